"""The real-game best response's units on Ray: a local head (127.0.0.1, two CPUs) gives the
same bits as local worker processes; addresses that do not answer give one line, no hang.

Skipped where Ray is not installed (it is an optional extra; ``make test`` installs it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfrlab.errors import CfrlabError
from cfrlab.realgame import StrategyFile, real_best_response
from cfrlab.strategy import Strategy

ray = pytest.importorskip("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    exe = Path(sys.executable).with_name("ray")
    if not exe.exists():
        exe = Path(shutil.which("ray") or "ray")
    port = _free_port()
    tmp = tmp_path_factory.mktemp("ray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    # --block: this process owns the head; stopping it stops only this cluster (not a user's)
    start = [str(exe), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
             "--num-cpus=2", "--include-dashboard=false", "--object-store-memory=150000000",
             "--disable-usage-stats", f"--temp-dir={tmp}"]
    head = subprocess.Popen(start, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if head.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the local Ray head did not start")
                time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        if ray.is_initialized():
            ray.shutdown()
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()


@pytest.mark.slow
def test_ray_units_give_the_local_bits(ray_head, tmp_path):
    rng = __import__("numpy").random.default_rng(3)
    s = Strategy.uniform("leduc")
    pol = s.policy * rng.random(s.policy.shape) ** 2
    s = Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True))
    s.save(tmp_path / "s.npz")
    local = real_best_response(StrategyFile(str(tmp_path / "s.npz")), "leduc", workers=2)
    on_ray = real_best_response(StrategyFile(str(tmp_path / "s.npz")), "leduc", ray=ray_head,
                                checkpoint=tmp_path / "ck")
    assert on_ray.br == local.br  # bit for bit: units are combined in unit order
    assert on_ray.units_computed == local.units == 6  # a random policy: no suit symmetry
    again = real_best_response(StrategyFile(str(tmp_path / "s.npz")), "leduc", ray=ray_head,
                               checkpoint=tmp_path / "ck", resume=True)
    assert again.br == local.br and again.units_computed == 0


def test_an_address_that_does_not_answer_is_one_line():
    t = time.perf_counter()
    with pytest.raises(CfrlabError, match="no Ray cluster answers at 127.0.0.1:1"):
        real_best_response(Strategy.uniform("kuhn"), ray="127.0.0.1:1")
    assert time.perf_counter() - t < 30


@pytest.mark.parametrize("address", ["nowhere", "ray://h:1", "h:port"])
def test_a_malformed_address_is_refused(address):
    with pytest.raises(CfrlabError, match="expected 'auto' or HOST:PORT"):
        real_best_response(Strategy.uniform("kuhn"), ray=address)


@pytest.mark.slow
def test_a_match_in_blocks_on_ray_plays_the_same_hands(ray_head):
    from cfrlab.agents import play_match

    one = play_match("leduc", "random", "always-raise", 40_000, seed=5, duplicate=True)
    blocks = play_match("leduc", "random", "always-raise", 40_000, seed=5, duplicate=True,
                        ray=ray_head, block=15_000)
    assert blocks.values.tobytes() == one.values.tobytes()
