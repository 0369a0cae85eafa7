"""Environment steps per second on Leduc: cfrlab's PettingZoo, Gymnasium and batched
environments against PettingZoo's own ``leduc_holdem_v4`` and RLCard's ``leduc-holdem``, in
the same process.

Usage: python benchmarks/env.py [--seconds S] [--num-envs N] [--json]

Every case plays uniformly random legal actions (chosen from the action mask, as a learner
would) and counts a step as one action; hands are dealt anew as they end. Each case runs for
S seconds after a warm-up; ``steps_per_second`` is over wall time and ``steps_per_cpu_second``
over the process's CPU time (the figure that does not depend on how busy the machine is).

* ``pettingzoo-cfrlab``: ``cfrlab.envs.PokerEnv("leduc")``, the ``agent_iter`` / ``last`` /
  ``step`` loop of the PettingZoo docs;
* ``pettingzoo-leduc_holdem_v4``: the same loop on PettingZoo's own Leduc (it imports pygame
  for rendering only: without pygame a stub module stands in, nothing is rendered);
* ``rlcard-leduc-holdem``: RLCard's environment, ``env.step`` with a random legal action;
* ``gymnasium-cfrlab``: ``PokerGymEnv("leduc", "random")``: only the learner's actions count
  (the opponent's play is in the time);
* ``batched-cfrlab``: ``BatchedEnv("leduc", N)``, ``random_actions`` then ``step``.

Every case but the batched one is optional: a case whose package is missing (``rlcard``, which
PettingZoo's Leduc also needs; ``pettingzoo`` / ``gymnasium``, the ``env`` extra) is reported as
"not installed" and the others run. No extra installs ``rlcard``: ``pip install rlcard`` for
those two peers.

With --json the last line is one JSON object: ``cases`` (name -> figures, or ``{"skipped":
why}``), and the two targets: ``batched_over_1e6`` and ``pettingzoo_at_least_pettingzoo_leduc``
(None when a case it compares was skipped).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import types

import numpy as np

from cfrlab.envs import BatchedEnv, PokerEnv, PokerGymEnv
from cfrlab.envs.deps import INSTALL_HINT


def _missing(*modules: str) -> str | None:
    """Why a case cannot run ("rlcard not installed"), or None when every module imports."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            return f"{name} not installed"
    return None


def _timed(run, seconds: float) -> dict:
    run(max(0.2, seconds / 10))  # warm-up: compiled kernels loaded, caches filled
    wall, cpu = time.perf_counter(), time.process_time()
    steps = run(seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"steps": steps, "seconds": round(wall, 3), "steps_per_second": round(steps / wall),
            "steps_per_cpu_second": round(steps / max(cpu, 1e-9))}


def _aec_loop(env, rng):
    def run(seconds: float) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            env.reset()
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    action = None
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                    steps += 1
                env.step(action)
        return steps
    return run


def _stub_pygame() -> bool:
    """PettingZoo's Leduc imports pygame for rendering; a stub stands in when it is missing."""
    try:
        import pygame  # noqa: F401
        return False
    except ImportError:
        class _Any:
            def __getattr__(self, name):
                return _Any()

        stub = types.ModuleType("pygame")
        stub.__getattr__ = lambda name: _Any()
        sys.modules["pygame"] = stub
        return True


def pettingzoo_cfrlab(seconds: float, rng) -> dict:
    why = _missing("pettingzoo", "gymnasium")
    if why:
        return {"skipped": f"{why} ({INSTALL_HINT})"}
    return _timed(_aec_loop(_seeded(PokerEnv("leduc")), rng), seconds)


def pettingzoo_leduc(seconds: float, rng) -> dict:
    why = _missing("pettingzoo", "rlcard")  # PettingZoo's Leduc runs on RLCard
    if why:
        return {"skipped": why}
    stubbed = _stub_pygame()
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    env.reset(seed=0)
    out = _timed(_aec_loop(env, rng), seconds)
    out["pygame_stubbed"] = stubbed
    return out


def rlcard_leduc(seconds: float, rng) -> dict:
    why = _missing("rlcard")
    if why:
        return {"skipped": why}
    import rlcard

    env = rlcard.make("leduc-holdem", {"seed": 0})

    def run(seconds: float) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            state, _ = env.reset()
            while not env.is_over():
                action = int(rng.choice(list(state["legal_actions"])))
                state, _ = env.step(action)
                steps += 1
        return steps
    return _timed(run, seconds)


def gym_cfrlab(seconds: float, rng) -> dict:
    why = _missing("gymnasium")
    if why:
        return {"skipped": f"{why} ({INSTALL_HINT})"}
    env = PokerGymEnv("leduc", "random")
    env.reset(seed=0)

    def run(seconds: float) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            obs, _ = env.reset()
            terminated = False
            while not terminated:
                obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        return steps
    return _timed(run, seconds)


def batched_cfrlab(seconds: float, num_envs: int) -> dict:
    env = BatchedEnv("leduc", num_envs, seed=0)
    env.reset()

    def run(seconds: float) -> int:
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            env.step(env.random_actions())
            steps += num_envs
        return steps
    out = _timed(run, seconds)
    out["num_envs"] = num_envs
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--num-envs", type=int, default=4096)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cases = {
        "pettingzoo-cfrlab": pettingzoo_cfrlab(args.seconds, rng),
        "pettingzoo-leduc_holdem_v4": pettingzoo_leduc(args.seconds, rng),
        "rlcard-leduc-holdem": rlcard_leduc(args.seconds, rng),
        "gymnasium-cfrlab": gym_cfrlab(args.seconds, rng),
        "batched-cfrlab": batched_cfrlab(args.seconds, args.num_envs),
    }
    for name, c in cases.items():
        if "skipped" in c:
            print(f"{name:28s} {c['skipped']}")
        else:
            print(f"{name:28s} {c['steps_per_second']:>12,} steps/s   {c['steps_per_cpu_second']:>12,} steps/CPU-s")
    ours, theirs = cases["pettingzoo-cfrlab"], cases["pettingzoo-leduc_holdem_v4"]
    out = {
        "cases": cases,
        "batched_over_1e6": cases["batched-cfrlab"]["steps_per_second"] >= 1e6,
        "pettingzoo_at_least_pettingzoo_leduc": (None if "skipped" in ours or "skipped" in theirs
                                                 else ours["steps_per_second"] >= theirs["steps_per_second"]),
        "load_average": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(out))


def _seeded(env):
    env.reset(seed=0)
    return env


if __name__ == "__main__":
    main()
