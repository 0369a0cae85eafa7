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


# The kernels a Leduc solve calls from Python (loaded or compiled: they have an overload) and,
# transitively, every kernel their code names: numba types a kernel's whole body, so this is
# what a cold cache compiles for the solve, found without compiling (any cache state).
_KERNELS_USED = """
import json, types, sys, cfrlab
from numba.core.registry import CPUDispatcher
cfrlab.solve('leduc', 'cfr+', target=1e-3)

def names(code):
    yield from code.co_names
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from names(c)

def callees(d):
    g, ns = d.py_func.__globals__, list(names(d.py_func.__code__))
    for n in ns:
        v = g.get(n)
        for w in ([getattr(v, a, None) for a in ns] if isinstance(v, types.ModuleType) else [v]):
            if isinstance(w, CPUDispatcher):
                yield w

todo = [v for m in list(sys.modules.values()) if m is not None and m.__name__.startswith('cfrlab')
        for v in vars(m).values() if isinstance(v, CPUDispatcher) and v.overloads]
seen = {}
while todo:
    d = todo.pop()
    if id(d) not in seen:
        seen[id(d)] = d
        todo.extend(callees(d))
mods = {d.py_func.__module__ for d in seen.values()}
print(json.dumps([len(seen), sorted(mods)]))
"""


def test_a_leduc_solve_uses_no_kernel_but_the_engine_s():
    """Every kernel a Leduc solve runs, and every kernel their code calls, is the engine's:
    a cold cache compiles nothing hold'em-specific for it."""
    count, modules = _run(_KERNELS_USED)
    assert count >= 3 and modules == ["cfrlab.engine._kernels"], (count, modules)
