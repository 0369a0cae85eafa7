"""Deep CFR and SD-CFR on games too large to tabulate (heads-up limit hold'em): the same
algorithm as ``cfrlab.deep.training`` on real dealt cards.

Each traversal deals real cards (numpy, seeded); the numba kernel
(``_sampled_kernels.traverse_sampled``) evaluates the players' latest advantage networks at
the decision nodes it visits (the first layer split into the node's head and the cards, so a
node costs the hidden layers only) and stores each sample as (decision node, the cards its
player sees, target, iteration weight). The networks are trained on minibatches of the
reservoir (the papers' way: there are no rows to sum over), the features rebuilt in JAX from
(node, cards) exactly as ``cfrlab.deep.features`` lays them out. Nothing is tabulated: the
result's networks play per decision (``cfrlab.deep.play``), measured by LBR and matches.

``train`` here is the package's entry point for every game: it hands games whose information
sets can be enumerated to ``training.train`` (exact exploitability) and the others to
``train_sampled``. With ``checkpoint=FILE`` the sampled trainer saves its networks, buffers
and random state after every iteration (atomically) and a later call with the same file
resumes where it stopped.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cfrlab.cards.evaluator import rank_batch
from cfrlab.deep import _sampled_kernels as KS
from cfrlab.deep._traverse_kernels import subtree_end
from cfrlab.deep.features import card_layout, node_heads
from cfrlab.deep.network import DeepNets, check_params_array
from cfrlab.deep.play import fits_table
from cfrlab.deep.training import (
    DeepParams,
    DeepResult,
    Watch,
    _init,
    _json_params,
    _loss,
    check_setup,
    checked_net,
    first_call,
    last_losses,
)
from cfrlab.deep.training import train as train_table
from cfrlab.engine import tree_for
from cfrlab.errors import CfrlabError, printable
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.games import load_game
from cfrlab.solvers.driver import Interrupt, Interrupted
from cfrlab.solvers.protocol import resolve_seed
from cfrlab.tree.arrays import compile_tree

try:
    import jax
    import jax.numpy as jnp
    import optax
except ImportError:  # pragma: no cover - tested by hiding jax
    jax = jnp = optax = None

CHECKPOINT_KIND = "deep-checkpoint"


def _card_features(heads, pos, d, cards, h, at, D, K, top):
    """The feature rows of samples (decision ``d`` int[n], ``cards`` int8[n, h + B], -1
    padded): ``features.add_cards`` in JAX."""
    x = heads[d]
    valid = cards >= 0
    c = jnp.where(valid, cards, 0).astype(jnp.int32)
    v = valid.astype(jnp.float32)[:, :, None]
    card = jax.nn.one_hot(pos[c], D) * v
    rank = jax.nn.one_hot(c // 4 - top, K) * v
    same = (c[:, :h, None] // 4 == c[:, None, h:] // 4) & valid[:, :h, None] & valid[:, None, h:]
    block = jnp.concatenate([card[:, :h].sum(1), rank[:, :h].sum(1), card[:, h:].sum(1), rank[:, h:].sum(1),
                             same.sum((1, 2)).astype(jnp.float32)[:, None]], axis=1)
    return x.at[:, at:at + 2 * (D + K) + 1].add(block)


def _fit_sampled(params, key, heads, pos, legal, dec, cards, target, weight, n, wscale, steps, batch, lr, kind, lay):
    opt = optax.adam(optax.cosine_decay_schedule(lr, steps))

    def step(carry, k):
        p, s = carry
        idx = jax.random.randint(k, (batch,), 0, n)
        d = dec[idx]
        x = _card_features(heads, pos, d, cards[idx], *lay)
        v, g = jax.value_and_grad(_loss)(p, x, legal[d], target[idx], weight[idx] * wscale, kind)
        upd, s = opt.update(g, s, p)
        return (optax.apply_updates(p, upd), s), v

    (params, _), losses = jax.lax.scan(step, (params, opt.init(params)), jax.random.split(key, steps))
    return params, last_losses(losses, steps)


_fit_sampled_jit = None if jax is None else jax.jit(_fit_sampled, static_argnames=("steps", "batch", "lr", "kind", "lay"))


class SampledBuffer:
    """A reservoir of (decision, cards, target, weight) in the kernel's layout."""

    def __init__(self, capacity: int, cards: int, width: int) -> None:
        self.dec = np.zeros(capacity, np.int32)
        self.cards = np.full((capacity, cards), -1, np.int8)
        self.target = np.zeros((capacity, width), np.float32)
        self.weight = np.zeros(capacity, np.float32)
        self.seen = np.zeros(1, np.int64)

    @property
    def arrays(self):
        return self.dec, self.cards, self.target, self.weight, self.seen

    def __len__(self) -> int:
        return int(min(self.seen[0], len(self.dec)))


class SampledTrainer:
    """Deep CFR or SD-CFR with real dealt cards (module docstring)."""

    def __init__(self, game, method: str = "deepcfr", traversals: int = 1000, seed: int | None = None,
                 params: DeepParams | None = None) -> None:
        self.params = check_setup(method, traversals, params)
        if len(set(self.params.hidden)) != 1:
            raise CfrlabError("games too large to tabulate take hidden layers of one width (e.g. 64,64)")
        self.game = load_game(game)
        self.method, self.traversals, self.seed = method, int(traversals), resolve_seed(seed)
        self.tree = tree_for(self.game)
        self.heads = node_heads(self.tree, self.game)
        self.lay = card_layout(self.game)
        self.layers = (self.heads.shape[1], *self.params.hidden, self.tree.num_actions)
        self.scale = float(max(int(np.max(self.tree.spent)), 1))
        self._ta = compile_tree(self.tree)
        self._end = subtree_end(self._ta.first_child, self._ta.num_children, self._ta.child)
        g = self.game
        self.h, self.B = g.num_hole_cards, g.total_board_cards(g.num_rounds - 1)
        self.before = np.array([g.total_board_cards(r) for r in range(g.num_rounds)], np.int64)
        self.deck = np.array(sorted(int(c) for c in np.flatnonzero(self.lay.pos >= 0)), np.int64)
        cap, A = self.params.buffer, self.tree.num_actions
        self.adv = [SampledBuffer(cap, self.h + self.B, A), SampledBuffer(cap, self.h + self.B, A)]
        self.strat = SampledBuffer(cap if method == "deepcfr" else 1, self.h + self.B, A)
        self.latest: list = [None, None]
        self.history: dict[str, list] = {"adv0": [], "adv1": []}
        self.rng = np.random.SeedSequence(self.seed).generate_state(1, dtype=np.uint64)
        self.deal_rng = np.random.default_rng(self.seed)
        self.key = jax.random.PRNGKey(self.seed % (2**31))
        self._jheads = jnp.asarray(self.heads)
        self._jpos = jnp.asarray(self.lay.pos, jnp.int32)
        self._jlegal = jnp.asarray(np.asarray(self.tree.legal), jnp.float32)
        self._jlay = (self.h, self.lay.at, self.lay.num_cards, self.lay.num_ranks, self.lay.top_rank)
        self.iterations = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.avg_time = (0.0, 0.0)
        self.watch = Watch()  # progress and stopping (``train_sampled`` sets it)

    def deals(self, n: int):
        """(cards int64[n, 2h + B], player 0's showdown sign float64[n])."""
        need = 2 * self.h + self.B
        pick = np.argsort(self.deal_rng.random((n, len(self.deck))), axis=1)[:, :need]
        cards = self.deck[pick]
        board = cards[:, 2 * self.h:]
        r0 = rank_batch(np.concatenate([cards[:, :self.h], board], axis=1).astype(np.uint8))
        r1 = rank_batch(np.concatenate([cards[:, self.h:2 * self.h], board], axis=1).astype(np.uint8))
        return np.ascontiguousarray(cards), np.sign(r0.astype(np.int64) - r1).astype(np.float64)

    def _kernel_nets(self):
        """The players' latest networks in the kernel's layout (``_sampled_kernels``)."""
        Hd, L, A = self.params.hidden[0], len(self.params.hidden) - 1, self.tree.num_actions
        F = self.heads.shape[1]
        hw, w1 = np.zeros((2, len(self.heads), Hd)), np.zeros((2, F, Hd))
        wh, bh = np.zeros((2, L, Hd, Hd)), np.zeros((2, L, Hd))
        wo, bo = np.zeros((2, Hd, A)), np.zeros((2, A))
        has = np.zeros(2, np.bool_)
        for q, net in enumerate(self.latest):
            if net is None:
                continue
            has[q] = True
            w1[q] = net[0][0]
            hw[q] = self.heads.astype(np.float64) @ net[0][0].astype(np.float64) + net[0][1]
            for i in range(L):
                wh[q, i], bh[q, i] = net[1 + i]
            wo[q], bo[q] = net[-1]
        return hw, w1, wh, bh, wo, bo, has

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations, phases told to and stopped by ``self.watch`` as ``Trainer.iterate``'s."""
        for _ in range(n):
            t0, c0 = time.perf_counter(), time.process_time()
            t = self.iterations + 1
            for p in (0, 1):
                self.watch.phase("traversals", self.iterations, iteration=t, player=p, traversals=self.traversals)
                cards, sd0 = self.deals(self.traversals)
                lay = (self.lay.pos, self.lay.at, self.lay.num_cards, self.lay.num_ranks, self.lay.top_rank)
                KS.traverse_sampled(self._ta, self._end, (cards, sd0, self.before), self._kernel_nets(), lay, p,
                                    float(t), self.scale, self.adv[p].arrays, self.strat.arrays,
                                    self.method == "deepcfr", self.rng)
                key = jax.random.fold_in(jax.random.fold_in(self.key, t), p)
                k_init, k_fit = jax.random.split(key)
                start = self.latest[p] if self.params.warm_start and self.latest[p] is not None else None
                params = _init(k_init, self.layers) if start is None else [(jnp.asarray(w), jnp.asarray(b)) for w, b in start]
                net = checked_net(self._fit(params, k_fit, self.adv[p], self.params.adv_steps, self.params.adv_batch,
                                            "advantage", 1.0 / t, p), f"player {p}'s advantage network at iteration {t}")
                self.latest[p] = net
                if self.method == "sdcfr":
                    self.history[f"adv{p}"].append(net)
            self.iterations = t
            self.seconds += time.perf_counter() - t0
            self.cpu_seconds += time.process_time() - c0
        self.watch.phase("done", self.iterations)

    def _fit(self, params, key, buf: SampledBuffer, steps: int, batch: int, kind: str, wscale: float,
             player: int | None = None):
        n = len(buf)
        if n == 0:
            raise CfrlabError("no samples to train on (the traversals visited no information set)")
        lr = float(self.params.learning_rate)
        compiling = first_call(("sampled", kind, len(buf.dec), steps, batch, lr, self.layers, self._jlay))
        self.watch.phase("training", self.iterations, iteration=self.iterations + 1, player=player, samples=n,
                         steps=steps, compiling=compiling)
        # the whole reservoir (n traced): one compilation for the run, not one per iteration
        out, loss = _fit_sampled_jit(params, key, self._jheads, self._jpos, self._jlegal, jnp.asarray(buf.dec),
                                     jnp.asarray(buf.cards), jnp.asarray(buf.target), jnp.asarray(buf.weight),
                                     n, wscale, steps=int(steps), batch=int(batch), lr=lr, kind=kind, lay=self._jlay)
        net = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in out]
        self.watch.phase("trained", self.iterations, iteration=self.iterations + 1, player=player, loss=float(loss))
        return net

    def average_net(self):
        t0, c0 = time.perf_counter(), time.process_time()
        k_init, k_fit = jax.random.split(jax.random.fold_in(self.key, 0))
        net = checked_net(self._fit(_init(k_init, self.layers), k_fit, self.strat, self.params.avg_steps,
                                    self.params.avg_batch, "strategy", 1.0 / max(self.iterations, 1)),
                          "the average-strategy network")
        self.avg_time = (time.perf_counter() - t0, time.process_time() - c0)
        return net

    def nets(self) -> DeepNets:
        if self.iterations == 0:
            raise CfrlabError("nothing trained yet: run at least one iteration")
        header = {"seed": self.seed, "iterations": self.iterations, "traversals": self.traversals,
                  "params": _json_params(self.params), "seconds": self.seconds, "cpu_seconds": self.cpu_seconds,
                  "sampled": True}
        if self.method == "sdcfr":
            w = [float(t) for t in range(1, self.iterations + 1)]
            return DeepNets(self.game, "sdcfr", self.layers, dict(self.history), {"adv0": w, "adv1": list(w)}, header)
        return DeepNets(self.game, "deepcfr", self.layers, {"avg": [self.average_net()]}, {"avg": [1.0]}, header)

    # -- checkpoints ---------------------------------------------------------------------
    def save_checkpoint(self, path: str | Path) -> None:
        """Everything a resumed run needs (atomic; no pickle)."""
        arrays: dict[str, np.ndarray] = {"rng": self.rng.copy()}
        for name, buf in [("adv0", self.adv[0]), ("adv1", self.adv[1]), ("strat", self.strat)]:
            n = len(buf)
            for field, a in zip(("dec", "cards", "target", "weight", "seen"), buf.arrays):
                arrays[f"{name}_{field}"] = a if field == "seen" else a[:n]
        for group, nets in self._all_nets().items():
            for k, net in enumerate(nets):
                for i, (w, b) in enumerate(net):
                    arrays[f"{group}_{k}_w{i}"], arrays[f"{group}_{k}_b{i}"] = w, b
        header = {"game": self.game.to_text(), "method": self.method, "traversals": self.traversals,
                  "seed": self.seed, "params": _json_params(self.params), "iterations": self.iterations,
                  "seconds": self.seconds, "cpu_seconds": self.cpu_seconds,
                  "deal_rng": self.deal_rng.bit_generator.state,
                  "nets": {g: len(v) for g, v in self._all_nets().items()}}
        save_npz(path, {**header, "kind": CHECKPOINT_KIND}, arrays)

    def _all_nets(self) -> dict[str, list]:
        out = {f"latest{q}": [self.latest[q]] for q in (0, 1) if self.latest[q] is not None}
        out.update({g: v for g, v in self.history.items() if v})
        return out

    def load_checkpoint(self, path: str | Path) -> None:
        """Resume from a checkpoint of the same game, method, traversals, seed and parameters;
        refuse (one line) one holding what no run writes (``_check_checkpoint_header``,
        ``_check_buffer``, ``check_params_array``): the run would go on from garbage."""
        with NpzReader(path, kind=CHECKPOINT_KIND) as z:
            h = z.header
            same = (h.get("game") == self.game.to_text() and h.get("method") == self.method
                    and h.get("traversals") == self.traversals and h.get("seed") == self.seed
                    and h.get("params") == _json_params(self.params))
            if not same:
                raise CfrlabError(f"{path} is a checkpoint of another run (game, method, traversals, seed "
                                  "or parameters differ)")
            iterations, counts = _check_checkpoint_header(path, h, self.method)
            self.rng[:] = z.read("rng", shape=(1,), dtype=np.uint64)
            for name, buf in [("adv0", self.adv[0]), ("adv1", self.adv[1]), ("strat", self.strat)]:
                seen = z.read(f"{name}_seen", shape=(1,), dtype=np.int64)
                if seen[0] < 0:
                    raise CfrlabError(f"{path}: corrupt checkpoint ({name} buffer has seen {int(seen[0])} samples)")
                n = int(min(seen[0], len(buf.dec)))
                buf.dec[:n] = z.read(f"{name}_dec", shape=(n,), dtype=np.int32)
                buf.cards[:n] = z.read(f"{name}_cards", shape=(n, buf.cards.shape[1]), dtype=np.int8)
                buf.target[:n] = z.read(f"{name}_target", shape=(n, buf.target.shape[1]), dtype=np.float32)
                buf.weight[:n] = z.read(f"{name}_weight", shape=(n,), dtype=np.float32)
                buf.seen[:] = seen
                self._check_buffer(path, name, buf, iterations)
            shapes = list(itertools.pairwise(self.layers))

            def net(group, k):
                out = [(z.read(f"{group}_{k}_w{i}", shape=(a, b), dtype=np.float32),
                        z.read(f"{group}_{k}_b{i}", shape=(b,), dtype=np.float32)) for i, (a, b) in enumerate(shapes)]
                for i, (w, b) in enumerate(out):
                    check_params_array(w, f"{path}: corrupt checkpoint: {group} network {k + 1} layer {i} weights")
                    check_params_array(b, f"{path}: corrupt checkpoint: {group} network {k + 1} layer {i} biases")
                return out

            latest = [net(f"latest{q}", 0) if counts.get(f"latest{q}") else None for q in (0, 1)]
            history = {g: [net(g, k) for k in range(counts.get(g, 0))] for g in ("adv0", "adv1")}
        try:
            self.deal_rng.bit_generator.state = h["deal_rng"]
        except (TypeError, ValueError, KeyError) as e:
            raise CfrlabError(f"{path}: corrupt checkpoint header (deal_rng: {printable(e, 60)})") from None
        self.latest, self.history = latest, history
        self.iterations = iterations
        self.seconds, self.cpu_seconds = float(h["seconds"]), float(h["cpu_seconds"])

    def _check_buffer(self, path, name: str, buf: SampledBuffer, iterations: int) -> None:
        """A resumed reservoir holds what the traversals store: decision nodes of the tree,
        cards of the deck (-1 for those not dealt yet), finite targets (strategies: probabilities
        from 0 to 1), weights from 1 to the iterations done."""
        n = len(buf)

        def bad(what: str) -> CfrlabError:
            return CfrlabError(f"{path}: corrupt checkpoint ({name} buffer: {what})")

        if n == 0:
            return
        dec, cards, target, weight = buf.dec[:n], buf.cards[:n], buf.target[:n], buf.weight[:n]
        if dec.min() < 0 or dec.max() >= len(self.heads):
            raise bad(f"decision nodes outside 0 to {len(self.heads) - 1}")
        c = cards.astype(np.int64)
        in_deck = np.zeros(len(self.lay.pos) + 1, bool)
        in_deck[:-1] = self.lay.pos >= 0
        if ((c < -1) | (c >= len(self.lay.pos))).any() or not in_deck[c[c >= 0]].all():
            raise bad("cards that are not in the deck")
        if not np.isfinite(target).all():
            raise bad("targets hold NaN or infinite values")
        if name == "strat" and ((target < 0) | (target > 1 + 1e-5)).any():
            raise bad("strategy targets outside 0 to 1")
        if not (np.isfinite(weight).all() and weight.min() >= 1 and weight.max() <= max(iterations, 1)):
            raise bad(f"sample weights outside 1 to {max(iterations, 1)} (the iterations done)")


def _check_checkpoint_header(path, h: dict, method: str) -> tuple[int, dict[str, int]]:
    """(iterations, network counts) of a checkpoint header, refused in one line when they are
    not what a run writes: whole numbers, finite seconds >= 0, SD-CFR's networks one per
    iteration and player, each player's latest network once an iteration is done."""
    def bad(what: str) -> CfrlabError:
        return CfrlabError(f"{path}: corrupt checkpoint header ({what})")

    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    it = h.get("iterations")
    if not (is_int(it) and it >= 0):
        raise bad(f"iterations is {printable(it, 40)}, expected a whole number >= 0")
    for key in ("seconds", "cpu_seconds"):
        v = h.get(key)
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0):
            raise bad(f"{key} is {printable(v, 40)}, expected a number of seconds >= 0")
    counts = h.get("nets")
    if not isinstance(counts, dict) or not all(is_int(v) and v >= 0 for v in counts.values()):
        raise bad(f"nets is {printable(counts, 60)}")
    want = {f"latest{q}": 1 for q in (0, 1)} if it else {}
    if method == "sdcfr" and it:
        want.update(adv0=it, adv1=it)
    if {k: v for k, v in counts.items() if v} != want:
        raise bad(f"nets {printable(counts, 60)} after {it} iterations of {method}")
    return it, counts


def train_sampled(game, method: str = "deepcfr", iterations: int = 100, traversals: int = 1000,
                  seed: int | None = None, params: DeepParams | None = None,
                  progress: Callable[[dict], None] | None = None, checkpoint: str | Path | None = None,
                  status: Callable[[dict], None] | None = None) -> DeepResult:
    """``iterations`` iterations on real dealt cards (module docstring); ``progress(point)``
    after each (iteration, traversals, seconds, cpu_seconds; no exploitability: nothing is
    tabulated), ``status(phase)`` as each phase starts (``training.Watch``). The result's
    ``strategy`` is None. SIGINT or SIGTERM stops the run at the next phase: ``Interrupted``
    names the iterations done and the checkpoint that holds them (None without one)."""
    if iterations < 1:
        raise CfrlabError("iterations must be at least 1")
    interrupt = Interrupt()
    saved = False
    with interrupt.installed():
        watch = Watch(status, lambda: interrupt.requested)
        try:
            watch.phase("setup", 0)
            trainer = SampledTrainer(game, method, traversals, seed, params)
            trainer.watch = watch
            if checkpoint is not None and Path(checkpoint).exists():
                trainer.load_checkpoint(checkpoint)
                saved = True
                watch.phase("resumed", trainer.iterations)
            curve: list[dict] = []
            while trainer.iterations < iterations:
                trainer.iterate(1)
                if checkpoint is not None:
                    trainer.save_checkpoint(checkpoint)
                    saved = True
                curve.append({"iteration": trainer.iterations, "traversals": 2 * trainer.iterations * trainer.traversals,
                              "seconds": round(trainer.seconds, 3), "cpu_seconds": round(trainer.cpu_seconds, 3),
                              "exploitability": None})
                if progress:
                    progress(curve[-1])
            nets = trainer.nets()
        except Interrupted as e:  # the checkpoint holds the iterations done
            raise Interrupted(e.iterations, Path(checkpoint) if saved else None) from None
    nets.header["seconds"] = trainer.seconds + trainer.avg_time[0]
    nets.header["cpu_seconds"] = trainer.cpu_seconds + trainer.avg_time[1]
    return DeepResult(nets, None, curve, trainer.seconds, trainer.cpu_seconds)


def train(game, method: str = "sdcfr", iterations: int = 100, traversals: int = 1000, seed: int | None = None,
          params: DeepParams | None = None, eval_every: int | None = None,
          progress: Callable[[dict], None] | None = None, checkpoint: str | Path | None = None,
          status: Callable[[dict], None] | None = None) -> DeepResult:
    """Run ``iterations`` iterations of ``method`` (``"sdcfr"`` or ``"deepcfr"``) on ``game``
    with ``traversals`` traversals per player per iteration, calling ``progress(point)`` with
    each point (iteration, traversals, seconds, cpu_seconds, exploitability in chips) and
    ``status(phase)`` as each phase of the run starts (``training.Watch``: what it is doing,
    the networks' loss). SIGINT or SIGTERM stops it at the next phase
    (``cfrlab.solvers.driver.Interrupted``).

    Where the game's information sets can be enumerated (Kuhn, Leduc: ``fits_table``) the
    policy is tabulated and its exact exploitability measured every ``eval_every``
    iterations and at the end (``training.train``; ``checkpoint`` is refused: those runs are
    short). Otherwise (heads-up limit hold'em) the run deals real cards (``train_sampled``:
    ``eval_every`` unused, exploitability None, ``result.strategy`` None; ``checkpoint``
    saves after every iteration and resumes from an existing file)."""
    g = load_game(game)
    if fits_table(g):
        if checkpoint is not None:
            raise CfrlabError("checkpoints are for games too large to tabulate")
        return train_table(g, method, iterations, traversals, seed, params, eval_every, progress, status)
    return train_sampled(g, method, iterations, traversals, seed, params, progress, checkpoint, status)
