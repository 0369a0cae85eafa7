"""Training a counterfactual value network (``cfrlab.deep.cfvnet``): a ReLU MLP fitted by
squared error with JAX and optax on the CPU (the ``deep`` extra), with Deep CFR's fitting loop
(``cfrlab.deep.training``)."""

from __future__ import annotations

import time

import numpy as np

from cfrlab.deep.cfvnet import CfvNet
from cfrlab.deep.network import check_layers, check_params_array
from cfrlab.deep.training import _fit_jit, _init, jax, jnp, require_jax
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef


def fit_cfvnet(game: GameDef, round: int, layout: int, x: np.ndarray, y: np.ndarray, *,
               hidden=(256, 256, 256), steps: int = 6000, batch: int = 1024, lr: float = 1e-3,
               seed: int = 0, header: dict | None = None) -> CfvNet:
    """A network fitted to targets ``y`` [N, outputs] from features ``x`` [N, inputs] by
    ``steps`` Adam steps on minibatches (squared error; the rate decays to 0 on a cosine)."""
    require_jax()
    check_layers(hidden)
    x = np.asarray(x, np.float32)
    y = np.asarray(y, np.float32)
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y) or len(x) == 0:
        raise CfrlabError(f"training data must be features [N, inputs] and targets [N, outputs] with N > 0, "
                          f"got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise CfrlabError("the training data hold NaN or infinite values")
    layers = (x.shape[1], *[int(h) for h in hidden], y.shape[1])
    t0 = time.perf_counter()
    key = jax.random.PRNGKey(int(seed) % (2**31))
    k_init, k_fit = jax.random.split(key)
    n = len(x)
    params, loss = _fit_jit(_init(k_init, layers), k_fit, jnp.asarray(x), jnp.ones_like(jnp.asarray(y)),
                            jnp.arange(n), jnp.asarray(y), jnp.ones(n, jnp.float32), n, 1.0,
                            steps=int(steps), batch=int(min(batch, n)), lr=float(lr), kind="advantage")
    net = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in params]
    for i, (w, b) in enumerate(net):
        check_params_array(w, f"the trained value network's layer {i} weights")
        check_params_array(b, f"the trained value network's layer {i} biases")
    h = {**(header or {}), "steps": int(steps), "batch": int(batch), "learning_rate": float(lr),
         "seed": int(seed), "train_seconds": time.perf_counter() - t0, "final_loss": float(loss)}
    return CfvNet(game, int(round), int(layout), layers, net, h)


