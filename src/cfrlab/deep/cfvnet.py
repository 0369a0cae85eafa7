"""Counterfactual value networks: DeepStack's learned leaf values (Moravčík et al., "DeepStack:
Expert-level artificial intelligence in heads-up no-limit poker", Science 2017).

A ``CfvNet`` maps one round start's public state and the two players' ranges to both players'
counterfactual values there, for one round of one game. What the inputs and outputs mean
(the feature layout, the units) is the caller's (``cfrlab.subgame.valuenet``): this module
predicts in numpy (no JAX needed to search with a trained network) and reads and writes the
file; ``cfrlab.deep.cfvfit`` trains one (JAX and optax, the ``deep`` extra).

A file is ``.npz`` (``cfrlab.fileio``: atomic, no pickle) with arrays ``wL`` float32 [in, out]
and ``bL`` float32 [out] per layer and a JSON header: kind ``"cfvnet"``, ``format``, ``game``
(ACPC text) and ``game_name``, ``round``, ``layout`` (the feature layout's version),
``layers``, and what the trainer records (data size, seconds, errors). A file made for another
game, round or layout, or holding numbers no training writes, is refused in one line.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.deep.network import Net, check_layers, check_params_array
from cfrlab.deep.policy import mlp_forward
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader, printable, save_npz
from cfrlab.games import GameDef
from cfrlab.games.builtins import game_of_file
from cfrlab.version import __version__ as VERSION

CFVNET_KIND = "cfvnet"
FORMAT_VERSION = 1


@dataclass(eq=False)
class CfvNet:
    """One round's value network of one game: ``layers`` its widths (features first),
    ``net`` its (W, b) per layer, ``layout`` the version of the caller's feature layout."""

    game: GameDef
    round: int
    layout: int
    layers: tuple[int, ...]
    net: Net
    header: dict[str, Any] = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """float64[N, outputs] for features ``x`` [N, inputs] (numpy)."""
        return mlp_forward(self.net, x)

    def save(self, path: str | Path) -> None:
        """Write the network file atomically (replacing ``path``)."""
        arrays = {}
        for i, (w, b) in enumerate(self.net):
            arrays[f"w{i}"] = np.asarray(w, np.float32)
            arrays[f"b{i}"] = np.asarray(b, np.float32)
        header = {**self.header, "kind": CFVNET_KIND, "format": FORMAT_VERSION, "game": self.game.to_text(),
                  "game_name": self.game.name, "round": int(self.round), "layout": int(self.layout),
                  "layers": [int(x) for x in self.layers], "cfrlab_version": VERSION,
                  "saved": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        save_npz(path, header, arrays)


def load_cfvnet(path: str | Path, game: GameDef | str | None = None) -> CfvNet:
    """Read a network file; refuse one made for another ``game`` (every array is checked
    against the header's layers before it is read, and for finite, bounded numbers)."""
    with NpzReader(path, kind=CFVNET_KIND) as z:
        h = z.header
        if h.get("format") != FORMAT_VERSION:
            raise CfrlabError(f"{path}: value network format {printable(h.get('format'), 20)}, "
                              f"this cfrlab reads {FORMAT_VERSION}")
        g = game_of_file(path, h, "value network", game, holds="holds a value network")
        layers = h.get("layers")
        if not (isinstance(layers, list) and len(layers) >= 3
                and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in layers)):
            raise CfrlabError(f"{path}: corrupt value network header (layers {printable(layers, 60)})")
        check_layers(layers[1:-1], f"{path}: corrupt value network header (layers)")
        for key in ("round", "layout"):
            v = h.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise CfrlabError(f"{path}: corrupt value network header ({key} is {printable(v, 40)})")
        net = []
        for i, (a, b) in enumerate(itertools.pairwise(layers)):
            w = z.read(f"w{i}", shape=(a, b), dtype=np.float32, what=f"layer {i} weights")
            bias = z.read(f"b{i}", shape=(b,), dtype=np.float32, what=f"layer {i} biases")
            check_params_array(w, f"{path}: corrupt value network: layer {i} weights")
            check_params_array(bias, f"{path}: corrupt value network: layer {i} biases")
            net.append((w, bias))
    return CfvNet(g, int(h["round"]), int(h["layout"]), tuple(layers), net, dict(h))


def check_fits(net: CfvNet, round: int, layout: int, inputs: int, outputs: int, where: str = "") -> None:
    """Refuse a network for another round, layout or width than the caller needs."""
    name = where or "the value network"
    if net.round != round:
        raise FileMismatchError(f"{name} is for round {net.round + 1}, these leaves start round {round + 1}")
    if net.layout != layout:
        raise FileMismatchError(f"{name} has feature layout {net.layout}, this cfrlab builds {layout}")
    if net.layers[0] != inputs or net.layers[-1] != outputs:
        raise FileMismatchError(f"{name} takes {net.layers[0]} inputs and gives {net.layers[-1]} values; "
                                f"this game's round {round + 1} needs {inputs} and {outputs}")
