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

With --json the last line is one JSON object: ``cases`` (name -> figures), and the two
targets: ``batched_over_1e6`` and ``pettingzoo_at_least_pettingzoo_leduc``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types

import numpy as np

from cfrlab.envs import BatchedEnv, PokerEnv, PokerGymEnv


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


def pettingzoo_leduc(seconds: float, rng) -> dict:
    stubbed = _stub_pygame()
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    env.reset(seed=0)
    out = _timed(_aec_loop(env, rng), seconds)
    out["pygame_stubbed"] = stubbed
    return out


def rlcard_leduc(seconds: float, rng) -> dict:
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
        "pettingzoo-cfrlab": _timed(_aec_loop(_seeded(PokerEnv("leduc")), rng), args.seconds),
        "pettingzoo-leduc_holdem_v4": pettingzoo_leduc(args.seconds, rng),
        "rlcard-leduc-holdem": rlcard_leduc(args.seconds, rng),
        "gymnasium-cfrlab": gym_cfrlab(args.seconds, rng),
        "batched-cfrlab": batched_cfrlab(args.seconds, args.num_envs),
    }
    for name, c in cases.items():
        print(f"{name:28s} {c['steps_per_second']:>12,} steps/s   {c['steps_per_cpu_second']:>12,} steps/CPU-s")
    ours, theirs = cases["pettingzoo-cfrlab"], cases["pettingzoo-leduc_holdem_v4"]
    out = {
        "cases": cases,
        "batched_over_1e6": cases["batched-cfrlab"]["steps_per_second"] >= 1e6,
        "pettingzoo_at_least_pettingzoo_leduc": ours["steps_per_second"] >= theirs["steps_per_second"],
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
