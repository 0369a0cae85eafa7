"""Numba kernels of the hand isomorphism (Waugh 2013 style), on plain arrays.

Cards here are **deck-local**: ``card = rank * num_suits + suit`` with ``0 <= rank < num_ranks``
(at most 13) and ``0 <= suit < num_suits``. A hand is a row of cards split into groups
(hole, flop, turn, ...) of sizes ``gsz``; order inside a group does not matter.

Per suit the hand gives one rank mask per group. A suit's *code* packs its card count per
group (3 bits each, group 0 lowest); its *suit index* numbers its rank masks in mixed radix,
group by group, each mask as the colex rank of its ranks among the ranks the suit has not
used in earlier groups. Suits are sorted by (code descending, suit index ascending); the
sorted codes are the hand's *configuration* (found by binary search in ``cfg_key``). Runs of
suits with equal codes are interchangeable, so a run's suit indices form a multiset, numbered
as a combination with repetition. The index is ``cfg_offset[c]`` plus the runs' multiset
numbers in mixed radix. Suit permutations only reorder suits, so they leave the index alone.

Indexer arrays (built by ``cfrlab.cards.isomorphism``):

- ``gsz`` int64[G]: group sizes (all > 0).
- ``cfg_key`` int64[C]: sorted configuration keys (suit codes, descending, 15 bits each).
- ``cfg_code`` int64[C, S]: the codes in suit order of the canonical form.
- ``cfg_offset`` int64[C + 1]: first index of each configuration (same order as ``cfg_key``).
- ``subsets`` int32[14, 1716]: ``subsets[k, i]`` = the i-th smallest 13-bit mask with k bits
  (colex order of k-subsets is numeric order of their masks, whatever the universe size).
- ``colex`` int32[8192]: the inverse, the colex rank of a mask among masks of its size.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE

CODE_BITS = 3
CODE_STRIDE = 15  # bits per suit code inside a configuration key (at most 5 groups)

# popcount of 13-bit masks, and small binomials C(n, k) for n <= 63, k <= 7
POP13 = np.array([m.bit_count() for m in range(8192)], dtype=np.int64)
SMALL_BINOM = np.zeros((64, 8), dtype=np.int64)
for _n in range(64):
    SMALL_BINOM[_n, 0] = 1
    for _k in range(1, min(_n, 7) + 1):
        upper = SMALL_BINOM[_n - 1, _k] if _k < _n else 0
        SMALL_BINOM[_n, _k] = SMALL_BINOM[_n - 1, _k - 1] + upper


@njit(cache=NUMBA_CACHE, inline="always")
def binom(n, k):
    """C(n, k) for int64 n >= 0 (0 when k < 0 or k > n). Exact while the result fits int64."""
    if k < 0 or k > n:
        return np.int64(0)
    k = min(k, n - k)
    r = np.int64(1)
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=NUMBA_CACHE, inline="always")
def popcount(x):
    """Bits set in a 13-bit mask."""
    return POP13[x]


@njit(cache=NUMBA_CACHE, inline="always")
def _compress(mask, used):
    """Positions of `mask`'s bits among the bits not in `used` (a pext by the complement)."""
    out = 0
    m = mask
    while m:
        low = m & -m
        pos = popcount(low - 1)
        out |= 1 << (pos - popcount(used & (low - 1)))
        m ^= low
    return out


@njit(cache=NUMBA_CACHE, inline="always")
def _expand(cmask, used):
    """Inverse of _compress: the compressed bit i goes to the i-th rank not in `used`."""
    out = 0
    free_pos = 0
    r = 0
    while cmask >> free_pos:
        while (used >> r) & 1:
            r += 1
        if (cmask >> free_pos) & 1:
            out |= 1 << r
        free_pos += 1
        r += 1
    return out


@njit(cache=NUMBA_CACHE, inline="always")
def code_count(code, j):
    return (code >> (CODE_BITS * j)) & 7


@njit(cache=NUMBA_CACHE, inline="always")
def suit_size(code, num_groups, num_ranks):
    """Number of rank-mask sequences a suit with this code can hold."""
    size = np.int64(1)
    used = 0
    for j in range(num_groups):
        c = code_count(code, j)
        size *= SMALL_BINOM[num_ranks - used, c]
        used += c
    return size


@njit(cache=NUMBA_CACHE)
def next_combination(idx, k, n):
    """Advances ``idx[:k]`` (ascending positions in range(n)) to the next k-subset in
    lexicographic order; False after the last one."""
    q = k - 1
    while q >= 0 and idx[q] == n - k + q:
        q -= 1
    if q < 0:
        return False
    idx[q] += 1
    for t in range(q + 1, k):
        idx[t] = idx[t - 1] + 1
    return True


@njit(cache=NUMBA_CACHE)
def rest_of(board, nb, D, rest):
    """Ascending local cards not among board[:nb]; returns how many."""
    used = np.int64(0)
    for i in range(nb):
        used |= np.int64(1) << board[i]
    m = 0
    for c in range(D):
        if not (used >> c) & 1:
            rest[m] = c
            m += 1
    return m


@njit(cache=NUMBA_CACHE)
def sorted_image(cards, start, n, perm, S, D, out):
    """Code of the sorted image of cards[start:start+n] under the suit permutation perm: its
    cards ascending as base-D digits, so codes compare as the sorted card tuples do."""
    for i in range(n):
        c = cards[start + i]
        out[i] = (c // S) * S + perm[c % S]
    out[:n].sort()
    code = np.int64(0)
    for i in range(n):
        code = code * D + out[i]
    return code


@njit(cache=NUMBA_CACHE)
def board_children(parents, gsz, perms, k, D, S):
    """The suit-symmetry classes of the next k board cards of each parent board: one
    representative set per orbit under the parent's stabilizer (the permutations among perms,
    int64[P, S], mapping each of the parent's card groups onto itself), the set whose sorted
    cards come first lexicographically.

    parents int64[N, n] (local cards, groups of sizes gsz; n may be 0). Returns (children
    int64[Q, k] ascending per parent, orbit int64[Q], parent int64[Q]): orbit = how many
    k-sets the child stands for, so a child's weight is its parent's weight times orbit.
    """
    N, n = parents.shape
    ident = np.arange(S)
    P = perms.shape[0]
    m = D - n
    maxc = 1
    for i in range(k):
        maxc = maxc * (m - i) // (i + 1)
    children = np.empty((N * maxc, k), np.int64)
    orbit = np.empty(N * maxc, np.int64)
    parent = np.empty(N * maxc, np.int64)
    buf = np.empty(max(n, k) + 1, np.int64)
    stab = np.empty(P, np.int64)
    rest = np.empty(D, np.int64)
    comb = np.empty(k, np.int64)
    cards = np.empty(k, np.int64)
    q = 0
    for b in range(N):
        ns = 0
        for p in range(P):
            ok = True
            start = 0
            for j in range(gsz.shape[0]):
                g = gsz[j]
                if sorted_image(parents[b], start, g, perms[p], S, D, buf) != sorted_image(
                        parents[b], start, g, ident, S, D, buf):
                    ok = False
                    break
                start += g
            if ok:
                stab[ns] = p
                ns += 1
        mm = rest_of(parents[b], n, D, rest)
        for j in range(k):
            comb[j] = j
        more = True
        while more:
            for i in range(k):
                cards[i] = rest[comb[i]]
            own = sorted_image(cards, 0, k, ident, S, D, buf)
            canonical = True
            fixed = 0
            for t in range(ns):
                img = sorted_image(cards, 0, k, perms[stab[t]], S, D, buf)
                if img < own:
                    canonical = False
                    break
                if img == own:
                    fixed += 1
            if canonical:
                for i in range(k):
                    children[q, i] = cards[i]
                orbit[q] = ns // fixed
                parent[q] = b
                q += 1
            more = next_combination(comb, k, mm)
    return children[:q].copy(), orbit[:q].copy(), parent[:q].copy()


@njit(cache=NUMBA_CACHE)
def _index_one(hand, num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex, masks, codes,
               sidx, order):
    """Canonical index of one hand (a row of local cards). Work arrays are passed in."""
    G = gsz.shape[0]
    for s in range(num_suits):
        for j in range(G):
            masks[s, j] = 0
    pos = 0
    for j in range(G):
        for _ in range(gsz[j]):
            c = hand[pos]
            masks[c % num_suits, j] |= 1 << (c // num_suits)
            pos += 1
    for s in range(num_suits):
        code = np.int64(0)
        idx = np.int64(0)
        used = 0
        nused = 0
        for j in range(G):
            m = masks[s, j]
            cnt = popcount(m)
            code |= np.int64(cnt) << (CODE_BITS * j)
            idx = idx * SMALL_BINOM[num_ranks - nused, cnt] + colex[_compress(m, used)]
            used |= m
            nused += cnt
        codes[s] = code
        sidx[s] = idx
        order[s] = s
    # insertion sort of suits: code descending, then suit index ascending
    for a in range(1, num_suits):
        t = order[a]
        b = a - 1
        while b >= 0 and (codes[order[b]] < codes[t]
                          or (codes[order[b]] == codes[t] and sidx[order[b]] > sidx[t])):
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = t
    key = np.int64(0)
    for a in range(num_suits):
        key |= codes[order[a]] << (CODE_STRIDE * (num_suits - 1 - a))
    cfg = np.searchsorted(cfg_key, key)
    total = np.int64(0)
    a = 0
    while a < num_suits:
        code = codes[order[a]]
        e = a
        while e < num_suits and codes[order[e]] == code:
            e += 1
        k = e - a
        M = suit_size(code, G, num_ranks)
        if k == 1:
            total = total * M + sidx[order[a]]
        else:
            mi = np.int64(0)
            for i in range(k):  # multiset of k indices -> strictly increasing b_i = a_i + i
                mi += binom(sidx[order[a + i]] + i, i + 1)
            total = total * binom(M + k - 1, k) + mi
        a = e
    return cfg_offset[cfg] + total


@njit(cache=NUMBA_CACHE, parallel=True)
def index_rows(hands, num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex, out):
    """out[i] = canonical index of hands[i] (int64[N] out, hands int[N, total cards])."""
    n = hands.shape[0]
    nchunks = 64
    for ch in prange(nchunks):
        masks = np.zeros((num_suits, gsz.shape[0]), np.int64)
        codes = np.zeros(num_suits, np.int64)
        sidx = np.zeros(num_suits, np.int64)
        order = np.zeros(num_suits, np.int64)
        for i in range(ch * n // nchunks, (ch + 1) * n // nchunks):
            out[i] = _index_one(hands[i], num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex,
                                masks, codes, sidx, order)


@njit(cache=NUMBA_CACHE)
def _largest_b(mi, i, hi):
    """Largest b < hi with C(b, i) <= mi (binary search; C(b, i) grows with b)."""
    lo = i - 1  # C(i-1, i) = 0 <= mi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if binom(mid, i) <= mi:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=NUMBA_CACHE)
def _unindex_one(index, num_ranks, num_suits, gsz, cfg_code, cfg_offset, subsets, out, sidx,
                 work):
    """Write the canonical representative of `index` (local cards, each group ascending).
    `sidx` int64[S] and `work` int64[3, G] are scratch."""
    G = gsz.shape[0]
    cfg = np.searchsorted(cfg_offset, index, side="right") - 1
    rem = index - cfg_offset[cfg]
    # runs decode in reverse mixed-radix order
    a_end = num_suits
    while a_end > 0:
        code = cfg_code[cfg, a_end - 1]
        a = a_end - 1
        while a > 0 and cfg_code[cfg, a - 1] == code:
            a -= 1
        k = a_end - a
        M = suit_size(code, G, num_ranks)
        if k == 1:
            sidx[a] = rem % M
            rem //= M
        else:
            size = binom(M + k - 1, k)
            mi = rem % size
            rem //= size
            hi = M + k
            for i in range(k, 0, -1):
                b = _largest_b(mi, i, hi)
                mi -= binom(b, i)
                sidx[a + i - 1] = b - (i - 1)
                hi = b
        a_end = a
    # suit p of the representative holds the p-th code; place its cards group by group
    fill = work[0]
    start = work[1]
    digits = work[2]
    start[0] = 0
    fill[0] = 0
    for j in range(1, G):
        start[j] = start[j - 1] + gsz[j - 1]
        fill[j] = 0
    for p in range(num_suits):
        code = cfg_code[cfg, p]
        idx = sidx[p]
        nused = 0
        for j in range(G):
            nused += code_count(code, j)
        for j in range(G - 1, -1, -1):
            c = code_count(code, j)
            nused -= c
            size = SMALL_BINOM[num_ranks - nused, c]
            digits[j] = idx % size
            idx //= size
        used = 0
        for j in range(G):
            c = code_count(code, j)
            m = _expand(subsets[c, digits[j]], used)
            used |= m
            mm = m
            while mm:
                low = mm & -mm
                r = popcount(low - 1)
                out[start[j] + fill[j]] = r * num_suits + p
                fill[j] += 1
                mm ^= low
    for j in range(G):  # ascending order inside each group
        s0 = start[j]
        for x in range(s0 + 1, s0 + gsz[j]):
            t = out[x]
            y = x - 1
            while y >= s0 and out[y] > t:
                out[y + 1] = out[y]
                y -= 1
            out[y + 1] = t


@njit(cache=NUMBA_CACHE, parallel=True)
def unindex_rows(indices, num_ranks, num_suits, gsz, cfg_code, cfg_offset, subsets, out):
    """out[i] = representative hand of indices[i] (out int[N, total cards])."""
    n = indices.shape[0]
    nchunks = 64
    for ch in prange(nchunks):
        sidx = np.zeros(num_suits, np.int64)
        work = np.zeros((3, gsz.shape[0]), np.int64)
        for i in range(ch * n // nchunks, (ch + 1) * n // nchunks):
            _unindex_one(indices[i], num_ranks, num_suits, gsz, cfg_code, cfg_offset, subsets,
                         out[i], sidx, work)


@njit(cache=NUMBA_CACHE)
def multiplicity_one(hand, num_ranks, num_suits, gsz):
    """Number of hands (groups as sets) in the suit-permutation class of `hand`:
    num_suits! / prod over identical per-suit patterns of (count)!."""
    return multiplicity_into(hand, num_suits, gsz, np.zeros(num_suits, np.int64))


@njit(cache=NUMBA_CACHE)
def multiplicity_into(hand, num_suits, gsz, pat):
    """``multiplicity_one`` with its per-suit patterns in the scratch pat int64[num_suits]."""
    G = gsz.shape[0]
    pat[:] = 0
    pos = 0
    for j in range(G):
        for _ in range(gsz[j]):
            c = hand[pos]
            s = c % num_suits
            pat[s] |= np.int64(1) << (13 * j + c // num_suits)  # distinct per (group, rank)
            pos += 1
    pat.sort()
    num = np.int64(1)
    for i in range(2, num_suits + 1):
        num *= i
    run = 1
    for s in range(1, num_suits + 1):
        if s < num_suits and pat[s] == pat[s - 1]:
            run += 1
        else:
            for i in range(2, run + 1):
                num //= i
            run = 1
    return num


@njit(cache=NUMBA_CACHE, parallel=True)
def multiplicity_rows(hands, num_ranks, num_suits, gsz, out):
    for i in prange(hands.shape[0]):
        out[i] = multiplicity_one(hands[i], num_ranks, num_suits, gsz)


def build_subset_tables() -> tuple[np.ndarray, np.ndarray]:
    """(subsets int32[14, 1716], colex int32[8192]) over 13-bit masks."""
    subsets = np.zeros((14, 1716), dtype=np.int32)
    colex = np.zeros(8192, dtype=np.int32)
    fill = [0] * 14
    for m in range(8192):
        k = m.bit_count()
        subsets[k, fill[k]] = m
        colex[m] = fill[k]
        fill[k] += 1
    return subsets, colex
