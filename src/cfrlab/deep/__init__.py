"""Neural CFR: Deep CFR (Brown, Lerer, Gross and Sandholm, ICML 2019) and Single Deep CFR
(Steinberger 2019), trained with JAX and optax on the CPU (``pip install cfrlab[deep]``).

``train(game, "sdcfr" | "deepcfr", iterations=T, traversals=K, seed=S)`` returns a
``DeepResult``: the networks (``DeepNets``, saved as ``.npz`` + JSON header, read back by
``load_nets``), their policy tabulated into a ``Strategy`` with its exact exploitability, and
the curve measured on the way. Games too large to tabulate (heads-up limit hold'em) train
on real dealt cards (``train_sampled``) and play per decision (``NetPolicy``, ``NetAgent``:
the ``deep:FILE`` agent there), measured by LBR and matches. Playing and tabulating need numpy only: ``load_deep_strategy``
(the agent spec ``deep:FILE``) works without the extra. See docs/deep.md.

The names below load their modules on first use: importing this package loads neither JAX nor
the traversal kernels.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "DeepNets": "network",
    "load_nets": "network",
    "load_deep_strategy": "network",
    "METHODS": "network",
    "info_features": "features",
    "feature_names": "features",
    "FEATURES_VERSION": "features",
    "DeepParams": "training",
    "DeepResult": "training",
    "Trainer": "training",
    "train": "sampled",
    "train_sampled": "sampled",
    "SampledTrainer": "sampled",
    "NetPolicy": "play",
    "NetAgent": "play",
    "fits_table": "play",
    "require_jax": "training",
    "INSTALL_HINT": "training",
}
__all__ = [
    "FEATURES_VERSION",
    "INSTALL_HINT",
    "METHODS",
    "DeepNets",
    "DeepParams",
    "DeepResult",
    "NetAgent",
    "NetPolicy",
    "SampledTrainer",
    "Trainer",
    "feature_names",
    "fits_table",
    "info_features",
    "load_deep_strategy",
    "load_nets",
    "require_jax",
    "train",
    "train_sampled",
]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"cfrlab.deep.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'cfrlab.deep' has no attribute {name!r}")
