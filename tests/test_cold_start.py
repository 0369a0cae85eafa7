"""A Leduc solve from a fresh process loads and compiles nothing hold'em-specific: no seven-card
evaluator (its tables are built by numba at import), no bucketed abstraction, no LP solver.
(The match engine's showdown kernel still ranks hands with the evaluator's kernels.)"""

import json
import os
import subprocess
import sys

import pytest

HOLDEM_ONLY = ("cfrlab.cards._eval_kernels", "cfrlab.cards.evaluator", "cfrlab.abstraction.bucketed",
               "cfrlab.abstraction._metrics_kernels", "cfrlab.abstraction._joint_kernels", "scipy.optimize")

def _run(code: str, env=None) -> list:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_a_small_game_loads_no_holdem_module(game):
    code = ("import sys, json, cfrlab; r = cfrlab.solve(%r, 'cfr+', iterations=50); "
            "cfrlab.exploit(r.strategy); r.strategy.action_probs('Ks', ''); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(%r))))")
    loaded = _run(code % (game, HOLDEM_ONLY))
    assert loaded == [], loaded


def test_short_hands_rank_like_the_evaluator():
    import itertools

    from cfrlab.cards import rank_short
    from cfrlab.cards.evaluator import rank_hand

    for k in (1, 2, 3):
        for hand in itertools.combinations(range(52), k):
            assert rank_short(hand) == rank_hand(hand), hand
    for hand in itertools.islice(itertools.combinations(range(52), 4), 0, None, 13):
        assert rank_short(hand) == rank_hand(hand), hand


@pytest.mark.slow
def test_a_cold_leduc_solve_compiles_no_holdem_kernel(tmp_path):
    """With an empty numba cache, every kernel the Leduc solve compiles is the engine's."""
    code = ("import json, collections, numba.core.event as ev, cfrlab\n"
            "seen = []\n"
            "class L(ev.Listener):\n"
            "    def on_start(self, e): seen.append(e.data['dispatcher'].py_func.__module__)\n"
            "    def on_end(self, e): pass\n"
            "ev.register('numba:compile', L())\n"
            "cfrlab.solve('leduc', 'cfr+', target=1e-3)\n"
            "print(json.dumps(sorted(set(m for m in seen if m.startswith('cfrlab')))))")
    modules = _run(code, env={"CFRLAB_NUMBA_CACHE": str(tmp_path)})
    assert modules == ["cfrlab.engine._kernels"], modules
