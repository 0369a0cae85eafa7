"""Deep CFR (Brown, Lerer, Gross and Sandholm, ICML 2019) and Single Deep CFR (Steinberger
2019) on cfrlab's engine, with JAX and optax on the CPU (the optional extra ``cfrlab[deep]``).

Each iteration t = 1..T, for each player p in turn (alternating updates):

1. ``traversals`` external-sampling traversals for p (numba, ``_traverse_kernels.traverse``) with
   both players following their current strategy: the regret-matched output of their latest
   advantage network (uniform before the first); the sampled regrets of p's information sets go
   to p's reservoir buffer with weight t (linear CFR), and, for Deep CFR, the opponent's
   strategy at its information sets to the strategy buffer;
2. p's advantage network is trained from scratch (``warm_start=False``, as both papers do; with
   ``warm_start`` it continues from the previous one) on p's buffer: weighted squared error
   over the legal columns (the weight is the sample's iteration / t). By default the loss is
   the whole buffer's, computed exactly from per-row sums (``_fit_rows``: the same objective as
   the papers' minibatches, without their sampling noise); ``minibatch=True`` samples
   minibatches of ``adv_batch`` items as the papers do.

Then SD-CFR keeps every iteration's networks (weighted by their iteration) and its policy is
their reach-weighted mixture; Deep CFR trains an average-strategy network on the strategy
buffer (weighted cross-entropy to the recorded strategies: its minimum is the same weighted
average as the paper's squared error). The traversal needs the strategy of every row it
visits: the networks are evaluated on every row of the game once per update (the row
features, ``features.info_features``), which is exact for games whose rows fit in memory,
the games this module is for (Kuhn, Leduc and other enumerable 2-player games).

Deterministic given the seed: the traversal stream is splitmix64 seeded from it, the network
initializations and minibatches are JAX keys folded from it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from cfrlab.deep import _traverse_kernels as K
from cfrlab.deep.features import info_features
from cfrlab.deep.network import METHODS, DeepNets, check_params_array
from cfrlab.deep.policy import (
    finish_average,
    legal_rows,
    mlp_forward,
    own_reach,
    regret_matching,
    uniform,
)
from cfrlab.deep.sizes import check_sizes
from cfrlab.engine import exploitability, model_for_game, row_offsets, tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.solvers.driver import Interrupt, Interrupted
from cfrlab.solvers.mccfr import deal_tables
from cfrlab.solvers.protocol import resolve_seed
from cfrlab.tree.arrays import compile_tree

try:  # the optional extra: the rest of cfrlab works without it
    import jax
    import jax.numpy as jnp
    import optax
except ImportError:  # pragma: no cover - tested by hiding jax
    jax = jnp = optax = None

INSTALL_HINT = "Deep CFR needs JAX and optax: pip install cfrlab[deep]"


def require_jax() -> None:
    """Raise the one-line install hint when the ``deep`` extra is missing."""
    if jax is None or optax is None:
        raise CfrlabError(INSTALL_HINT)


@dataclass(frozen=True)
class DeepParams:
    """Hyper-parameters (defaults: the Leduc settings of docs/deep.md)."""

    hidden: tuple[int, ...] = (64, 64, 64)  # hidden layer widths of every network
    adv_steps: int = 1500  # Adam steps per advantage-network training
    adv_batch: int = 512  # minibatch size (with minibatch=True)
    avg_steps: int = 3000  # Deep CFR: steps of the average-strategy network
    avg_batch: int = 1024
    learning_rate: float = 3e-3  # Adam's initial rate, decayed to 0 on a cosine in each training
    buffer: int = 10_000_000  # reservoir capacity per player (advantages) and for strategies
    warm_start: bool = False  # from scratch each iteration, as the papers do
    minibatch: bool = False  # True: minibatches of the buffer (the papers); False: its exact loss per row


@dataclass
class DeepResult:
    """What ``train`` returns: the networks, their tabulated policy (a Strategy, exploitability
    measured), and the exploitability curve measured on the way."""

    nets: DeepNets
    strategy: object
    curve: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0


def _init(key, layers):
    """He-normal weights, zero biases: a list of (W, b)."""
    keys = jax.random.split(key, len(layers) - 1)
    return [(jax.random.normal(k, (a, b), jnp.float32) * math.sqrt(2.0 / a), jnp.zeros(b, jnp.float32))
            for k, a, b in zip(keys, layers[:-1], layers[1:])]


def _forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def _loss(params, x, mask, target, weight, kind):
    out = _forward(params, x)
    if kind == "advantage":  # squared error over the legal columns
        per = jnp.sum(mask * (out - target) ** 2, axis=1)
    else:  # cross-entropy of the masked softmax to the recorded strategy
        logits = jnp.where(mask > 0, out, -1e9)
        per = -jnp.sum(target * jax.nn.log_softmax(logits, axis=1) * mask, axis=1)
    return jnp.mean(weight * per)


def _fit(params, key, feats, legal, rows, target, weight, n, wscale, steps, batch, lr, kind):
    """``steps`` Adam steps on minibatches drawn uniformly from the first ``n`` buffer items,
    the learning rate decaying to 0 on a cosine (the targets are noisy samples: a vanishing
    step lands near their mean instead of jittering around it)."""
    opt = optax.adam(optax.cosine_decay_schedule(lr, steps))

    def step(carry, k):
        p, s = carry
        idx = jax.random.randint(k, (batch,), 0, n)
        r = rows[idx]
        v, g = jax.value_and_grad(_loss)(p, feats[r], legal[r], target[idx], weight[idx] * wscale, kind)
        upd, s = opt.update(g, s, p)
        return (optax.apply_updates(p, upd), s), v

    (params, _), losses = jax.lax.scan(step, (params, opt.init(params)), jax.random.split(key, steps))
    return params, last_losses(losses, steps)


def last_losses(losses, steps: int):
    """The mean minibatch loss over the last tenth of the steps (what the progress shows)."""
    return jnp.mean(losses[-max(1, steps // 10):])


def _fit_rows(params, feats, legal, row_weight, row_target, steps, lr, kind):
    """``steps`` full-batch Adam steps on the buffer's loss written per row: with W_r the summed
    weight of row r's samples and Y_r their weighted mean, sum_i w_i loss(f(x_i), y_i) equals
    sum_r W_r loss(f(x_r), Y_r) up to a constant (both losses are linear or quadratic in the
    target), so this is the whole reservoir's loss, exactly, at the cost of one row table."""
    opt = optax.adam(optax.cosine_decay_schedule(lr, steps))
    scale = 1.0 / jnp.sum(row_weight)

    w = row_weight * scale * row_weight.shape[0]

    def step(carry, _):
        p, s = carry
        g = jax.grad(_loss)(p, feats, legal, row_target, w, kind)
        upd, s = opt.update(g, s, p)
        return (optax.apply_updates(p, upd), s), None

    (params, _), _ = jax.lax.scan(step, (params, opt.init(params)), None, length=steps)
    return params, _loss(params, feats, legal, row_target, w, kind)


_fit_jit = None if jax is None else jax.jit(_fit, static_argnames=("steps", "batch", "lr", "kind"))
_fit_rows_jit = None if jax is None else jax.jit(_fit_rows, static_argnames=("steps", "lr", "kind"))


_CALLED: set = set()


def first_call(key) -> bool:
    """Whether a jitted fit meets these shapes and static arguments (``key``) for the first
    time in this process: then JAX compiles it first (said in the progress)."""
    new = key not in _CALLED
    _CALLED.add(key)
    return new


class Watch:
    """What a run says while it goes, and where it may stop. ``phase(name, done, **info)``
    is called as each phase starts (``setup``; per iteration and player ``traversals``,
    ``training`` with ``compiling`` on a fit's first call, ``trained`` with its ``loss``; ``done``
    after each iteration; ``measuring``, ``tabulating``): ``stop()`` true there raises
    ``Interrupted(done)`` (``done``: the whole iterations so far), else ``status`` hears
    ``{"phase": name, "done": done, **info}``."""

    def __init__(self, status: Callable[[dict], None] | None = None, stop: Callable[[], bool] | None = None):
        self.status, self.stop = status, stop

    def phase(self, name: str, done: int, **info) -> None:
        if self.stop is not None and self.stop():
            raise Interrupted(int(done), None)
        if self.status is not None:
            self.status({"phase": name, "done": int(done), **info})


class Buffer:
    """A reservoir buffer (rows, target, weight, seen) in the layout the kernel fills."""

    def __init__(self, capacity: int, width: int) -> None:
        self.rows = np.zeros(capacity, np.int32)
        self.target = np.zeros((capacity, width), np.float32)
        self.weight = np.zeros(capacity, np.float32)
        self.seen = np.zeros(1, np.int64)

    @property
    def arrays(self):
        return self.rows, self.target, self.weight, self.seen

    def __len__(self) -> int:
        return int(min(self.seen[0], len(self.rows)))

    def per_row(self, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
        """(W float64[rows], Y float64[rows, A]): each row's summed sample weight and weighted
        mean target over the buffer (0 where a row has no sample)."""
        n = len(self)
        rows, w = self.rows[:n], self.weight[:n].astype(np.float64)
        weight = np.bincount(rows, weights=w, minlength=num_rows)
        total = np.stack([np.bincount(rows, weights=w * self.target[:n, a], minlength=num_rows)
                          for a in range(self.target.shape[1])], axis=1)
        return weight, total / np.where(weight > 0, weight, 1.0)[:, None]


class Trainer:
    """One Deep CFR or SD-CFR run on a 2-player game (see the module docstring)."""

    def __init__(self, game, method: str = "sdcfr", traversals: int = 1000, seed: int | None = None,
                 params: DeepParams | None = None) -> None:
        self.params = check_setup(method, traversals, params)
        self.game = load_game(game)
        self.method, self.traversals = method, int(traversals)
        self.seed = resolve_seed(seed)
        self.tree = tree_for(self.game)
        self.model = model_for_game(self.game)
        self.features = info_features(self.tree, self.model)
        self.legal = legal_rows(self.tree, self.model)
        offsets = row_offsets(self.tree, self.model)
        self.row_offset = np.ascontiguousarray(offsets, np.int64)
        self.row_player = np.repeat(np.asarray(self.tree.player)[self.tree.decision_node], np.diff(offsets))
        self.layers = (self.features.shape[1], *self.params.hidden, self.tree.num_actions)
        self.scale = float(max(int(np.max(self.tree.spent)), 1))  # advantages in units of the largest pot share
        self._tree_arrays = compile_tree(self.tree)
        self._end = K.subtree_end(self._tree_arrays.first_child, self._tree_arrays.num_children,
                                  self._tree_arrays.child)
        self.deal_states, self.deal_value = deal_tables(self.tree, self.model)
        self.rng = np.random.SeedSequence(self.seed).generate_state(1, dtype=np.uint64)
        self.key = jax.random.PRNGKey(self.seed % (2**31))
        cap, A = self.params.buffer, self.tree.num_actions
        self.adv = [Buffer(cap, A), Buffer(cap, A)]
        self.strat = Buffer(cap if method == "deepcfr" else 1, A)
        self.policy = uniform(self.legal)  # this iteration's strategy, both players
        self.latest: list = [None, None]  # each player's latest advantage network (numpy)
        self.history: dict[str, list] = {"adv0": [], "adv1": []}  # SD-CFR: every iteration's networks
        self._avg_num = np.zeros_like(self.policy)
        self._avg_den = np.zeros(len(self.policy))
        self._jfeats = jnp.asarray(self.features)
        self._jlegal = jnp.asarray(self.legal, jnp.float32)
        every = np.arange(len(self.features))
        self._rows_of = {0: every[self.row_player == 0], 1: every[self.row_player == 1], "strategy": every}
        self.iterations = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.avg_time = (0.0, 0.0)  # Deep CFR: wall and CPU seconds of the last average-network training
        self.watch = Watch()  # progress and stopping (``train`` sets it)

    # -- one iteration -------------------------------------------------------------------
    def iterate(self, n: int = 1) -> None:
        """``n`` iterations. ``self.watch`` (a ``Watch``), when set, hears each phase as it
        starts and may stop the run there: ``Interrupted`` is raised between phases, and a
        trainer stopped inside an iteration is to be discarded (a checkpoint holds whole ones)."""
        for _ in range(n):
            t0, c0 = time.perf_counter(), time.process_time()
            t = self.iterations + 1
            for p in (0, 1):
                self.watch.phase("traversals", self.iterations, iteration=t, player=p, traversals=self.traversals)
                K.traverse(self._tree_arrays, self._end, self.row_offset,
                           (self.deal_states, self.deal_value), self.policy, p, self.traversals,
                           float(t), self.scale, (self.adv[p].arrays, self.strat.arrays),
                           self.method == "deepcfr", self.rng)
                net = self._train(p, t)
                self.latest[p] = net
                mine = self.row_player == p
                adv = mlp_forward(net, self.features[mine])
                self.policy[mine] = regret_matching(adv, self.legal[mine])
                if self.method == "sdcfr":
                    self.history[f"adv{p}"].append(net)
            if self.method == "sdcfr":  # the running average of the stored networks' strategies
                r = t * own_reach(self.tree, self.model, self.policy)
                self._avg_num += r[:, None] * self.policy
                self._avg_den += r
            self.iterations = t
            self.seconds += time.perf_counter() - t0
            self.cpu_seconds += time.process_time() - c0
        self.watch.phase("done", self.iterations)

    def _train(self, p: int, t: int):
        buf = self.adv[p]
        key = jax.random.fold_in(jax.random.fold_in(self.key, t), p)
        k_init, k_fit = jax.random.split(key)
        start = self.latest[p] if self.params.warm_start and self.latest[p] is not None else None
        params = _init(k_init, self.layers) if start is None else [(jnp.asarray(w), jnp.asarray(b)) for w, b in start]
        return self._fit(params, k_fit, buf, self.params.adv_steps, self.params.adv_batch, "advantage", 1.0 / t, p)

    def _fit(self, params, key, buf: Buffer, steps: int, batch: int, kind: str, wscale: float, player: int = -1):
        n = len(buf)
        if n == 0:
            raise CfrlabError("no samples to train on (the traversals visited no information set)")
        lr = float(self.params.learning_rate)
        t = self.iterations + 1
        who = player if kind == "advantage" else None  # None: the average-strategy network
        if self.params.minibatch:
            compiling = first_call(("fit", kind, len(buf.rows), steps, batch, lr, self.layers))
            self.watch.phase("training", self.iterations, iteration=t, player=who, samples=n, steps=steps,
                             compiling=compiling)
            out, loss = _fit_jit(params, key, self._jfeats, self._jlegal, jnp.asarray(buf.rows), jnp.asarray(buf.target),
                                 jnp.asarray(buf.weight), n, wscale, steps=int(steps), batch=int(batch), lr=lr, kind=kind)
        else:
            weight, target = buf.per_row(len(self.features))
            rows = self._rows_of[kind if kind != "advantage" else player]  # only rows the buffer can hold
            compiling = first_call(("rows", kind, len(rows), steps, lr, self.layers))
            self.watch.phase("training", self.iterations, iteration=t, player=who, samples=n, steps=steps,
                             compiling=compiling)
            out, loss = _fit_rows_jit(params, self._jfeats[rows], self._jlegal[rows],
                                      jnp.asarray(weight[rows], jnp.float32), jnp.asarray(target[rows], jnp.float32),
                                      steps=int(steps), lr=lr, kind=kind)
        what = f"player {player}'s advantage network at iteration {t}" if kind == "advantage" \
            else "the average-strategy network"
        net = checked_net([(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in out], what)
        self.watch.phase("trained", self.iterations, iteration=t, player=who, loss=float(loss))
        return net

    # -- results -------------------------------------------------------------------------
    def average_net(self):
        """Deep CFR: the average-strategy network trained (from scratch) on the strategy buffer."""
        t0, c0 = time.perf_counter(), time.process_time()
        key = jax.random.fold_in(self.key, 0)  # iterations fold in 1.., so 0 is free
        k_init, k_fit = jax.random.split(key)
        net = self._fit(_init(k_init, self.layers), k_fit, self.strat, self.params.avg_steps,
                        self.params.avg_batch, "strategy", 1.0 / max(self.iterations, 1))
        self.avg_time = (time.perf_counter() - t0, time.process_time() - c0)
        return net

    def nets(self, avg_net=None) -> DeepNets:
        """The networks so far as a ``DeepNets`` (Deep CFR trains its average network here
        unless ``avg_net`` is given)."""
        if self.iterations == 0:
            raise CfrlabError("nothing trained yet: run at least one iteration")
        header = {"seed": self.seed, "iterations": self.iterations, "traversals": self.traversals,
                  "params": _json_params(self.params), "seconds": self.seconds, "cpu_seconds": self.cpu_seconds}
        if self.method == "sdcfr":
            w = [float(t) for t in range(1, self.iterations + 1)]
            return DeepNets(self.game, "sdcfr", self.layers, dict(self.history), {"adv0": w, "adv1": list(w)}, header)
        net = avg_net if avg_net is not None else self.average_net()
        return DeepNets(self.game, "deepcfr", self.layers, {"avg": [net]}, {"avg": [1.0]}, header)

    def average_policy(self) -> np.ndarray:
        """The method's average policy on every row: SD-CFR's exact mixture (kept as the run
        goes), or Deep CFR's average network (trained now)."""
        if self.method == "sdcfr":
            return finish_average(self._avg_num, self._avg_den, self.legal)
        return self.nets().table(self.tree, self.model)

    def exploitability(self) -> float:
        return float(exploitability(self.tree, self.model, self.average_policy()))


def check_setup(method: str, traversals: int, params: DeepParams | None) -> DeepParams:
    """A run's settings checked before any work (JAX present, a known method, positive
    sizes); the parameters, defaults filled in."""
    require_jax()
    if method not in METHODS:
        raise CfrlabError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if traversals < 1:
        raise CfrlabError("traversals must be at least 1")
    p = params or DeepParams()
    _check_params(p)
    return p


def _check_params(p: DeepParams) -> None:
    for name in ("adv_steps", "adv_batch", "avg_steps", "avg_batch", "buffer"):
        if int(getattr(p, name)) < 1:
            raise CfrlabError(f"{name.replace('_', ' ')} must be at least 1")
    check_sizes(p)
    lr = p.learning_rate
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not (math.isfinite(lr) and lr > 0):
        raise CfrlabError(f"the learning rate must be a finite number above 0, got {lr!r}")


def checked_net(net, what: str):
    """``net`` (a list of numpy (W, b)) after training, refused in one line when it diverged
    (NaN, infinite or huge parameters: ``network.check_params_array``), before it plays or is saved."""
    try:
        for i, (w, b) in enumerate(net):
            check_params_array(w, f"layer {i} weights")
            check_params_array(b, f"layer {i} biases")
    except CfrlabError as e:
        raise CfrlabError(f"training diverged: {what}: {e}; lower the learning rate") from None
    return net


def _json_params(p: DeepParams) -> dict:
    d = asdict(p)
    d["hidden"] = list(d["hidden"])
    return d


def train(game, method: str = "sdcfr", iterations: int = 100, traversals: int = 1000, seed: int | None = None,
          params: DeepParams | None = None, eval_every: int | None = None,
          progress: Callable[[dict], None] | None = None, status: Callable[[dict], None] | None = None) -> DeepResult:
    """Run ``iterations`` iterations of ``method`` (``"sdcfr"`` or ``"deepcfr"``) on ``game``
    with ``traversals`` traversals per player per iteration; measure the exact exploitability
    of the average policy every ``eval_every`` iterations (and at the end), calling
    ``progress(point)`` with each point (iteration, traversals, seconds, cpu_seconds,
    exploitability in chips) and ``status(phase)`` as each phase starts (``Watch``).

    SIGINT or SIGTERM (Ctrl-C, a polite kill) stops the run at the next phase and raises
    ``cfrlab.solvers.driver.Interrupted`` with the iterations done; a second one aborts at once."""
    if iterations < 1:
        raise CfrlabError("iterations must be at least 1")
    if eval_every is not None and eval_every < 1:
        raise CfrlabError("eval_every must be at least 1")
    interrupt = Interrupt()
    with interrupt.installed():
        watch = Watch(status, lambda: interrupt.requested)
        watch.phase("setup", 0)
        trainer = Trainer(game, method, traversals, seed, params)
        trainer.watch = watch
        curve: list[dict] = []
        done = 0
        while done < iterations:
            step = min(eval_every or iterations, iterations - done)
            trainer.iterate(step)
            done += step
            if done < iterations:
                watch.phase("measuring", done)
                curve.append(_point(trainer, trainer.exploitability()))
                if progress:
                    progress(curve[-1])
        nets = trainer.nets()
        watch.phase("tabulating", done)
        strategy = nets.strategy(trainer.tree, trainer.model)
    curve.append(_point(trainer, strategy.header["exploitability"]))
    if progress:
        progress(curve[-1])
    nets.header["exploitability"] = strategy.header["exploitability"]
    strategy.header["curve"] = curve
    return DeepResult(nets, strategy, curve, trainer.seconds, trainer.cpu_seconds)


def _point(trainer: Trainer, expl: float) -> dict:
    """A curve point; Deep CFR's times include training the average network it was measured on."""
    wall, cpu = trainer.avg_time if trainer.method == "deepcfr" else (0.0, 0.0)
    return {"iteration": trainer.iterations, "traversals": 2 * trainer.iterations * trainer.traversals,
            "seconds": round(trainer.seconds + wall, 3), "cpu_seconds": round(trainer.cpu_seconds + cpu, 3),
            "exploitability": float(expl)}
