"""Trained networks as values and files, and their policy tabulated into a ``Strategy``.

``DeepNets`` holds ReLU MLPs (``layers``: the widths, features first, action columns last) in
named groups, each a stack of networks with a weight per network:

* SD-CFR (``method="sdcfr"``, Steinberger 2019): groups ``adv0`` and ``adv1``, every
  iteration's advantage network of each player, weighted by its iteration (linear CFR). The
  policy is their average: at each information set the mixture of the networks' regret-matched
  strategies weighted by iteration times the player's own reach under each; sampling one
  network per hand (weight-proportionally) and playing it throughout is the same policy;
* Deep CFR (``method="deepcfr"``, Brown et al. 2019): group ``avg``, one average-strategy
  network for both players (the player is a feature), softmax over the legal columns.

A file is ``.npz`` (``cfrlab.fileio``: atomic, no pickle) with arrays ``GROUP_wL`` float32
``[n, in, out]``, ``GROUP_bL`` float32 ``[n, out]``, ``GROUP_weight`` float64 ``[n]``, and a
JSON header: kind ``"deep"``, ``format``, ``method``, ``game`` (ACPC text) and ``game_name``,
``features`` (the feature layout's version), ``layers``, ``groups`` and what the trainer
records (seed, hyper-parameters, iterations, traversals, seconds, exploitability). A file made
for another game, feature layout or network shape is refused in one line, and so is one whose
numbers no training writes (``check_values``): a NaN or infinite parameter, one beyond
``MAX_PARAM`` in magnitude, a network weight that is not a finite number from 0 to
``MAX_NET_WEIGHT``, or widths beyond ``check_layers``' bounds.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.deep.features import FEATURES_VERSION, info_features, node_heads
from cfrlab.deep.policy import average_of, legal_rows, masked_softmax, mlp_forward, regret_matching
from cfrlab.engine import exploitability, model_for_game, row_offsets, tree_for
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader, printable, save_npz
from cfrlab.games import GameDef
from cfrlab.games.builtins import game_of_file
from cfrlab.strategy import Strategy
from cfrlab.version import __version__ as VERSION

DEEP_KIND = "deep"
FORMAT_VERSION = 1
METHODS = ("sdcfr", "deepcfr")
GROUPS = {"sdcfr": ("adv0", "adv1"), "deepcfr": ("avg",)}

Net = list[tuple[np.ndarray, np.ndarray]]  # one MLP: (W [in, out], b [out]) per layer

# Bounds of what training writes. Targets are scaled to a few units (advantages in units of the
# largest pot share, strategies in [0, 1]) and Adam moves a parameter about one learning rate
# per step, so trained parameters stay within a few tens: beyond MAX_PARAM a network diverged
# or a file was damaged. A network's weight in a mixture is its iteration (SD-CFR) or 1.
MAX_PARAM = 1e6
MAX_NET_WEIGHT = 1e12
MAX_WIDTH = 1 << 20  # widths of a layer (features, hidden, actions)
MAX_HIDDEN_LAYERS = 64


@dataclass(eq=False)
class DeepNets:
    """Networks of one method for one game (see the module docstring); ``nets[group]`` is a
    list of MLPs, ``net_weights[group]`` their weights."""

    game: GameDef
    method: str
    layers: tuple[int, ...]
    nets: dict[str, list[Net]]
    net_weights: dict[str, list[float]]
    header: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        """Write the weights file atomically (replacing ``path``)."""
        arrays: dict[str, np.ndarray] = {}
        for group in GROUPS[self.method]:
            nets = self.nets[group]
            for layer in range(len(self.layers) - 1):
                arrays[f"{group}_w{layer}"] = np.stack([n[layer][0] for n in nets]).astype(np.float32)
                arrays[f"{group}_b{layer}"] = np.stack([n[layer][1] for n in nets]).astype(np.float32)
            arrays[f"{group}_weight"] = np.asarray(self.net_weights[group], np.float64)
        header = {
            **self.header,
            "kind": DEEP_KIND,
            "format": FORMAT_VERSION,
            "method": self.method,
            "game": self.game.to_text(),
            "game_name": self.game.name,
            "features": FEATURES_VERSION,
            "layers": [int(x) for x in self.layers],
            "groups": {g: len(self.nets[g]) for g in GROUPS[self.method]},
            "cfrlab_version": VERSION,
            "saved": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        save_npz(path, header, arrays)

    def table(self, tree=None, model=None) -> np.ndarray:
        """float64[rows, A]: the networks' policy on every information set (ENGINE.md layout)."""
        tree = tree if tree is not None else tree_for(self.game)
        model = model if model is not None else model_for_game(self.game)
        x = info_features(tree, model)
        check_shape(self.layers, x.shape[1], tree.num_actions, f"the {self.game.name or 'game'} networks")
        legal = legal_rows(tree, model)
        with np.errstate(all="ignore"):  # an overflow is refused below, in one line
            if self.method == "deepcfr":
                out = masked_softmax(mlp_forward(self.nets["avg"][0], x), legal)
            else:
                player = np.repeat(np.asarray(tree.player)[tree.decision_node], np.diff(row_offsets(tree, model)))
                tables = []
                for net0, net1 in zip(self.nets["adv0"], self.nets["adv1"]):
                    adv = np.where((player == 0)[:, None], mlp_forward(net0, x), mlp_forward(net1, x))
                    tables.append(regret_matching(adv, legal))
                out = average_of(tables, list(self.net_weights["adv0"]), tree, model, legal)
        if not np.isfinite(out).all():
            raise CfrlabError(f"the {self.game.name or 'game'} networks' outputs overflow (NaN or infinite "
                              "probabilities): these networks cannot be tabulated")
        return out

    def strategy(self, tree=None, model=None, measure: bool = True) -> Strategy:
        """The tabulated policy as a ``Strategy`` (its exploitability measured exactly when
        ``measure``), its header naming the method and the training run."""
        tree = tree if tree is not None else tree_for(self.game)
        model = model if model is not None else model_for_game(self.game)
        policy = self.table(tree, model)
        expl = float(exploitability(tree, model, policy)) if measure else None
        h = self.header
        return Strategy.from_policy(
            self.game, policy, tree=tree, model=model, algorithm=self.method, params=h.get("params"),
            seed=h.get("seed"), iterations=int(h.get("iterations", 0)), seconds=float(h.get("seconds", 0.0)),
            exploitability=expl, extra={"deep_layers": list(self.layers), "traversals": h.get("traversals"),
                                        "cfrlab_version": VERSION})


def check_layers(hidden, what: str = "hidden layer widths") -> None:
    """Refuse hidden layers no network here can have: none, a width below 1 or above
    ``MAX_WIDTH``, more than ``MAX_HIDDEN_LAYERS`` of them."""
    hidden = list(hidden)
    if not hidden or len(hidden) > MAX_HIDDEN_LAYERS:
        raise CfrlabError(f"{what}: give 1 to {MAX_HIDDEN_LAYERS} hidden layers, got {len(hidden)}")
    bad = [h for h in hidden if not 1 <= int(h) <= MAX_WIDTH]
    if bad:
        raise CfrlabError(f"{what}: a width is a whole number from 1 to {MAX_WIDTH:,}, got {bad[0]:,}")


def check_params_array(a: np.ndarray, what: str) -> None:
    """Refuse network parameters holding NaN or infinities, or beyond ``MAX_PARAM``."""
    if a.size == 0:
        return
    if not np.isfinite(a).all():
        raise CfrlabError(f"{what} hold NaN or infinite values")
    big = float(np.abs(a).max())
    if big > MAX_PARAM:
        raise CfrlabError(f"{what} reach {big:.3g} in magnitude (trained networks stay below {MAX_PARAM:g})")


def check_net_weights(weights, what: str) -> None:
    """Refuse mixture weights that are not finite numbers from 0 to ``MAX_NET_WEIGHT`` with a
    positive sum."""
    w = np.asarray(weights, np.float64)
    bad = ~(np.isfinite(w) & (w >= 0) & (w <= MAX_NET_WEIGHT))
    if bad.any():
        raise CfrlabError(f"{what} must be finite numbers from 0 to {MAX_NET_WEIGHT:g}, got {float(w[bad][0]):g}")
    if not w.sum() > 0:
        raise CfrlabError(f"{what} are all 0")


def check_values(nets: dict[str, list[Net]], weights: dict[str, list[float]], what: str) -> None:
    """Every parameter and network weight of ``nets`` within what training writes (see the
    bounds above); ``what`` begins the one-line message."""
    for group, stack in nets.items():
        for k, net in enumerate(stack):
            for i, (w, b) in enumerate(net):
                check_params_array(np.asarray(w), f"{what}: {group} network {k + 1} layer {i} weights")
                check_params_array(np.asarray(b), f"{what}: {group} network {k + 1} layer {i} biases")
    for group, w in weights.items():
        check_net_weights(w, f"{what}: the {group} network weights")


def check_shape(layers, features: int, actions: int, what: str) -> None:
    """Refuse networks whose input or output width is not this game's."""
    if int(layers[0]) != features or int(layers[-1]) != actions:
        raise FileMismatchError(f"{what} take {layers[0]} features and give {layers[-1]} action columns; "
                                f"this game has {features} features and {actions} action columns")


def load_nets(path: str | Path, game: GameDef | str | None = None) -> DeepNets:
    """Read a weights file; refuse one made for another ``game``, feature layout or network
    shape (every array is checked against the header's layers before it is read)."""
    with NpzReader(path, kind=DEEP_KIND) as z:
        h = z.header
        if h.get("format") != FORMAT_VERSION:
            raise CfrlabError(f"{path}: deep weights format {printable(h.get('format'), 20)}, this cfrlab reads {FORMAT_VERSION}")
        method = h.get("method")
        if method not in METHODS:
            raise CfrlabError(f"{path}: unknown method {printable(method, 40)!s} (known: {', '.join(METHODS)})")
        file_game = game_of_file(path, h, "deep weights", game, holds="holds networks")
        if h.get("features") != FEATURES_VERSION:
            raise FileMismatchError(f"{path}: features {printable(h.get('features'), 40)}, this cfrlab builds {FEATURES_VERSION}")
        layers = h.get("layers")
        if not (isinstance(layers, list) and len(layers) >= 2
                and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in layers)):
            raise CfrlabError(f"{path}: corrupt deep weights header (layers {printable(layers, 60)})")
        check_layers(layers[1:-1], f"{path}: corrupt deep weights header (layers)")
        if file_game.num_players != 2:
            raise CfrlabError(f"{path}: networks of cfrlab deep are for 2-player games, "
                              f"not {file_game.num_players} players")
        # the widths against the game's features and actions, before any array is read
        tree = tree_for(file_game)
        check_shape(layers, node_heads(tree, file_game).shape[1], tree.num_actions, str(path))
        _check_header_numbers(path, h)
        counts = h.get("groups") if isinstance(h.get("groups"), dict) else {}
        nets: dict[str, list[Net]] = {}
        weights: dict[str, list[float]] = {}
        for group in GROUPS[method]:
            n = counts.get(group)
            if not isinstance(n, int) or n < 1:
                raise CfrlabError(f"{path}: corrupt deep weights header (group {group})")
            per_layer = [(z.read(f"{group}_w{i}", shape=(n, a, b), dtype=np.float32, what=f"{group} layer {i} weights"),
                          z.read(f"{group}_b{i}", shape=(n, b), dtype=np.float32, what=f"{group} layer {i} biases"))
                         for i, (a, b) in enumerate(itertools.pairwise(layers))]
            for i, (w, b) in enumerate(per_layer):  # all networks of a layer at once
                check_params_array(w, f"{path}: corrupt deep weights: {group} layer {i} weights")
                check_params_array(b, f"{path}: corrupt deep weights: {group} layer {i} biases")
            nets[group] = [[(w[k], b[k]) for w, b in per_layer] for k in range(n)]
            mix = z.read(f"{group}_weight", shape=(n,), dtype=np.float64, what=f"{group} network weights")
            check_net_weights(mix, f"{path}: corrupt deep weights: the {group} network weights")
            weights[group] = [float(x) for x in mix]
    if method == "sdcfr" and len(nets["adv0"]) != len(nets["adv1"]):
        raise CfrlabError(f"{path}: corrupt deep weights (the players have different numbers of networks)")
    return DeepNets(file_game, method, tuple(layers), nets, weights, dict(h))


def _check_header_numbers(path, h: dict) -> None:
    """The run's figures a strategy header takes over from the weights file: whole numbers
    and finite seconds, or absent."""
    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for key, ok, expected in (
            ("iterations", lambda v: is_int(v) and v >= 0, "a whole number >= 0"),
            ("traversals", lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
            ("seed", lambda v: is_int(v) and v >= 0, "a whole number >= 0"),
            ("seconds", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
             and math.isfinite(v) and v >= 0, "a number of seconds >= 0"),
            ("params", lambda v: isinstance(v, dict), "an object")):
        if h.get(key) is not None and not ok(h[key]):
            raise CfrlabError(f"{path}: corrupt deep weights header ({key} is {printable(h[key], 40)}, "
                              f"expected {expected})")


def load_deep_strategy(path: str | Path, game: GameDef | str) -> Strategy:
    """A weights file's policy tabulated on ``game`` (refused for another game or shape)."""
    return load_nets(path, game).strategy(measure=False)
