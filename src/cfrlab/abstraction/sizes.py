"""Sizes of a hold'em-style game and of its bucket abstractions, by formula (nothing built).

Counting convention (the one that reproduces Zinkevich et al. 2007, section 4.1):

- *Information sets* = sum over betting decision nodes of the acting player's private states
  in that round: bucket sequences (B_0 ... B_r under perfect recall, B_r under imperfect
  recall) in the abstraction; hole cards and the board so far in the real game
  (1326 * C(50,3) * 47 * 46 on the river). HULHE, 10 buckets: 57,337,080 = 5.73e7; the
  real game: 3.19e14.
- *Game states* = sum over the nodes of the betting tree of the joint private states of both
  players at that node (bucket-sequence pairs, or ordered hole-card pairs times boards),
  where the tree holds, besides decision, fold, showdown and end-of-round chance nodes, a
  deal node at the root and two deal nodes (one per player) at the start of every later
  round. With those 1,275 deal nodes the HULHE tree has 18,496 nodes, exactly Zinkevich et al.'s (NIPS 2007)
  "18,496 reachable states" per joint bucket sequence, and the formula gives 1.646e12
  (B = 10), 6.452e9 (B = 5) and 9.170e17 for the real game, Zinkevich et al.'s 1.65e12, 6.45e9
  and 9.17e17. Without the deal nodes it gives
  1.53e12 and 8.5e17.
"""

from __future__ import annotations

from math import comb

import numba

from cfrlab.abstraction.bucketed import GEMM_MAX, SWEEP_MAX
from cfrlab.abstraction.kmeans import kmeans_estimate
from cfrlab.abstraction.metrics import board_totals, check_holdem_style, denominators
from cfrlab.cards.isomorphism import HandIndexer
from cfrlab.errors import CfrlabError, human_bytes
from cfrlab.tree.bets import parse_bets
from cfrlab.tree.betting_tree import CHANCE, DECISION, count_tree

SOLVE_TABLES = 3  # regrets, average policy, current policy


def max_actions(game, bets=None) -> int:
    """Action columns of the policy tables: 3 in a limit game, 2 + the most raise sizes any
    decision holds in a no-limit one (counted by walking the betting states)."""
    if game.is_limit:
        return 3
    return max(3, 2 + count_tree(game, bets=bets).most_raises)

ROOT_DEAL_NODES = 1  # one node deals both hands
DEAL_NODES_PER_ROUND = 2  # one per player at each later round


def canonical_counts(game) -> list[int]:
    """Per round: suit-isomorphism classes of (hole | board so far)."""
    return [HandIndexer(game.num_ranks, game.num_suits, (game.num_hole_cards, b)).size
            for b in board_totals(game)]


def sequence_counts(game) -> list[int]:
    """Per round: classes of (hole | each round's new cards) (what perfect recall tells apart)."""
    out = []
    for r in range(game.num_rounds):
        groups = [game.num_hole_cards] + [b for b in game.num_board_cards[:r + 1] if b]
        out.append(HandIndexer(game.num_ranks, game.num_suits, groups).size)
    return out


def tree_counts(game, bets=None) -> dict:
    """Per round: decision nodes and all nodes (with the deal nodes) of the betting tree,
    counted without building it (``count_tree``), so trees too large to build have sizes.
    ``bets``: a no-limit game's betting abstraction (``cfrlab.tree.bets``; every amount when
    None, which only small stacks allow)."""
    if bets is not None:
        parse_bets(bets, game)  # a limit game refuses a bet spec in one line
    t = count_tree(game, bets=bets)
    decision = list(t.by_kind[DECISION])
    nodes = t.nodes_by_round()
    chance = list(t.by_kind[CHANCE])
    deals = [ROOT_DEAL_NODES] + [DEAL_NODES_PER_ROUND * c for c in chance[:-1]]
    with_deals = [n + d for n, d in zip(nodes, deals)]
    return {"decision": decision, "nodes": nodes, "nodes_with_deals": with_deals,
            "tree_nodes": t.nodes, "tree_memory": t.memory()}


def betting_sizes(game, bets=None) -> dict:
    """The betting tree's figures alone (any 2-player game): nodes, decisions by round, and
    the memory building it takes."""
    tc = tree_counts(game, bets)
    out = {"bets": _bets_name(game, bets), "tree_nodes": tc["tree_nodes"],
           "decision_nodes": sum(tc["decision"]), "decision_nodes_by_round": tc["decision"],
           "tree_build_bytes": tc["tree_memory"]}
    return out


def _bets_name(game, bets) -> str:
    if game.is_limit:
        return "limit"
    spec = None if bets is None else parse_bets(bets, game)
    return "fullgame" if spec is None else spec.text


def _with_boards(game, n: int, left: int) -> list[int]:
    """Per round: n ways to deal the hole cards times the ordered boards so far from the
    `left` cards remaining."""
    out = []
    for r in range(game.num_rounds):
        b = game.num_board_cards[r]
        n *= comb(left, b)
        left -= b
        out.append(n)
    return out


def private_states(game) -> list[int]:
    """Per round: one player's private card sequences (hole cards, then boards in order)."""
    D, h = game.deck_size, game.num_hole_cards
    return _with_boards(game, comb(D, h), D - h)


def joint_deals(game) -> list[int]:
    """Per round: ordered deals of both players' hole cards and the board so far."""
    D, h = game.deck_size, game.num_hole_cards
    return _with_boards(game, comb(D, h) * comb(D - h, h), D - 2 * h)


def sizes(game, buckets=None, recall: str = "perfect", bets=None) -> dict:
    """Canonical counts and, for bucket counts per round (int or list), the abstraction's
    information sets and states; the real game's too (see the module docstring). ``bets``:
    a no-limit game's betting abstraction; with buckets, ``solve_bytes`` estimates a
    full-width solve's tables (regrets, average and current policy: three float64 per
    information set and action column)."""
    check_holdem_style(game)
    tc = tree_counts(game, bets)
    R = game.num_rounds
    out = {
        "bets": _bets_name(game, bets),
        "canonical_counts": canonical_counts(game),
        "sequence_counts": sequence_counts(game),
        "decision_nodes": sum(tc["decision"]),
        "decision_nodes_by_round": tc["decision"],
        "tree_nodes_with_deals": sum(tc["nodes_with_deals"]),
        "game_infosets": sum(d * p for d, p in zip(tc["decision"], private_states(game))),
        "game_states": sum(n * j for n, j in zip(tc["nodes_with_deals"], joint_deals(game))),
    }
    if buckets is not None:
        counts = [buckets] * R if isinstance(buckets, int) else list(buckets)
        if len(counts) != R:
            raise CfrlabError(f"give one bucket count or {R}")
        seq, n = [], 1
        for c in counts:
            n *= c
            seq.append(n)
        per_player = seq if recall == "perfect" else counts
        out["buckets"] = counts
        out["recall"] = recall
        out["infosets"] = sum(d * s for d, s in zip(tc["decision"], per_player))
        out["states"] = sum(nd * s * s for nd, s in zip(tc["nodes_with_deals"], seq))
        out["solve_bytes"] = SOLVE_TABLES * 8 * max_actions(game, bets) * out["infosets"]
    return out


# -- what the lossless chance tables take ------------------------------------------------

# peak bytes per entry of the dense (H_r x H_r) blocks while the engine packs the lossless
# tables: the float64 block, its transpose, the showdown's sign and products, the packed copy
# (tracemalloc: 27.2 for a 4,000-card one-card deck, 25.6 for a 32-card two-round hold'em deck)
LOSSLESS_BYTES_PER_ENTRY = 30


def lossless_blocks(game) -> tuple[list[int], list[int]]:
    """Per round: board sequences B_r and hole-card sets per board H_r of the lossless model
    (its private states are B_r * H_r), by formula: nothing enumerated."""
    D, h = game.deck_size, game.num_hole_cards
    blocks, sizes_, n, left = [], [], 1, D
    for r in range(game.num_rounds):
        b = game.num_board_cards[r]
        n *= comb(left, b)
        left -= b
        blocks.append(n)
        sizes_.append(comb(left, h))
    return blocks, sizes_


def lossless_build_bytes(game) -> int:
    """Estimated peak bytes of packing a 2-player game's lossless chance tables for the
    engine (one fold block per round, one showdown block per final board), by formula:
    checked before minutes of work rather than found out after them."""
    B, H = lossless_blocks(game)
    entries = sum(x * x for x in H) + B[-1] * H[-1] * H[-1]
    return LOSSLESS_BYTES_PER_ENTRY * entries


def check_lossless(game, available: int | None) -> int:
    """``lossless_build_bytes``; refuse (one line) when it is above ``available`` bytes."""
    need = lossless_build_bytes(game)
    if available is not None and need > available:
        B, H = lossless_blocks(game)
        states = " / ".join(f"{b * x:,}" for b, x in zip(B, H))
        raise CfrlabError(
            f"the lossless chance tables of this game ({states} private states per round) need "
            f"about {human_bytes(need)} to build, more than the {human_bytes(available)} available "
            "(a smaller deck, or a bucketed abstraction)")
    return need


# -- what building an abstraction takes --------------------------------------------------

# bytes per ordered canonical class while a round is bucketed (index, parent, weight, two
# metric keys, groups, levels, sort order: measured with tracemalloc on reduced decks)
BUCKETING_BYTES_PER_CLASS = 96


def build_estimate(game, spec, threads: int | None = None) -> dict:
    """Estimated peak bytes of ``BucketedModel.build(game, spec)`` with the metric tables
    cached or not, and the bytes of the abstraction file it writes; by formula, before
    anything is built. The phases (their peaks; the largest is the build's):

    - metric tables: per canonical class 16 bytes (8 on the last round: 2), while built 1.3x;
    - bucketing: ``BUCKETING_BYTES_PER_CLASS`` per ordered class of the largest round before
      the last, plus the last round's histograms (one per thread and the sum);
    - joint tables of round r: the earlier rounds' tables, plus ``S_r^2`` int64 counts: the
      GEMM path (rounds before the last, up to ``GEMM_MAX`` states) keeps one per thread and
      three more, the last round's rank sweep (up to ``SWEEP_MAX`` states) two per thread and
      four more, the tile paths three.

    Checked against tracemalloc peaks in tests/test_tree_size.py."""
    check_holdem_style(game)
    if spec.method == "kmeans":
        return kmeans_estimate(game, spec)
    T = int(threads or numba.get_num_threads())
    R = game.num_rounds
    S = [int(x) for x in spec.num_states]
    if len(S) != R:
        raise CfrlabError(f"the bucket spec has {len(S)} rounds, the game {R}")
    canon, seq = canonical_counts(game), sequence_counts(game)
    metric = 16 * sum(canon[:-1]) + 2 * canon[-1]
    V = denominators(game)[0][-1] + 1  # hand-strength values on the last round
    G = S[R - 2] if R > 1 else 1
    hist = G * V * 8
    maps = sum(seq[r] * (2 if S[r] < 2**15 else 4) for r in range(R - 1)) + hist + G * V * 4
    bucketing = BUCKETING_BYTES_PER_CLASS * max(seq[:R - 1], default=1) + (T + 1) * hist
    phases = {"metric tables": int(1.3 * metric), "bucketing": metric + bucketing}
    kept = 0  # float64 tables of the rounds done
    for r in range(R):
        sq = S[r] * S[r] * 8
        if r < R - 1:
            k = T + 3 if S[r] <= GEMM_MAX else 4
        else:
            k = 2 * T + 4 if S[r] <= SWEEP_MAX else 3
        phases[f"joint tables round {r}"] = metric + maps + kept + k * sq
        kept += sq
    file_bytes = kept + S[-1] * S[-1] * 8 + maps - hist + 8 * sum(S)
    peak = max(phases.values())
    return {"peak": peak, "phase": max(phases, key=phases.get), "phases": phases,
            "file": file_bytes, "threads": T}


def check_build(game, spec, available: int | None, force: bool = False) -> dict:
    """``build_estimate``; refuse (one line) when its peak is above ``available`` bytes,
    unless ``force``."""
    est = build_estimate(game, spec)
    if available is not None and est["peak"] > available and not force:
        raise CfrlabError(
            f"building this abstraction ({' / '.join(f'{s:,}' for s in spec.num_states)} states per "
            f"round) needs about {human_bytes(est['peak'])} at its peak ({est['phase']}; the file "
            f"{human_bytes(est['file'])}), more than the {human_bytes(available)} available "
            "(fewer buckets make it smaller; forcing the build goes ahead anyway)")
    return est
