"""Start-up: ``import cfrlab``, ``cfrlab --help`` and ``cfrlab games`` load no numba; the first
compile of a process says so in one line; Ctrl-C while loading is one line and exit 130. And a
Leduc solve from a fresh process loads and compiles nothing hold'em-specific: no seven-card
evaluator (its tables are built by numba at import), no bucketed abstraction, no LP solver.
(The match engine's showdown kernel still ranks hands with the evaluator's kernels.)"""

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import cfrlab

HOLDEM_ONLY = ("cfrlab.cards._eval_kernels", "cfrlab.cards.evaluator", "cfrlab.abstraction.bucketed",
               "cfrlab.abstraction._metrics_kernels", "cfrlab.abstraction._joint_kernels", "scipy.optimize")

def _run(code: str, env=None) -> list:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- what start-up imports -------------------------------------------------------------------

HEAVY = ("numba", "numpy", "scipy", "llvmlite")
_LOADED = "import sys, json; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in %r)))"


def test_import_cfrlab_loads_no_numba_or_numpy():
    assert _run("import cfrlab\n" + _LOADED % (HEAVY,)) == []


@pytest.mark.parametrize("first", [
    "import cfrlab, numba",
    "import numba, cfrlab",  # numba loaded before cfrlab
    "import importlib.util, cfrlab; importlib.util.find_spec('numba'); import numba",  # a look-up
])
def test_numba_gets_the_cache_locator_the_moment_it_loads(first):
    """Whoever imports numba first, cfrlab's locator is in place before any kernel is decorated."""
    code = (f"{first}\nimport json\nfrom numba.core import caching\n"
            "print(json.dumps([c.__name__ for c in caching.CacheImpl._locator_classes][:1]))")
    assert _run(code) == ["CfrlabCacheLocator"]


@pytest.mark.parametrize("argv", [["--help"], [], ["games"], ["--version"], ["game", "show", "kuhn"]])
def test_cli_start_up_loads_no_numba_or_numpy(argv):
    quiet = "contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())"
    code = (f"import contextlib, io\nfrom cfrlab.cli.main import main\nwith {quiet}:\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
            + _LOADED % (HEAVY,))
    assert _run(code) == []


def test_help_lists_every_command_with_the_start_of_its_own_help():
    """``cfrlab --help`` shows summaries without loading the commands: they must not drift."""
    from cfrlab.cli import main as cli

    registered = {}
    for module in dict.fromkeys(m for m, _ in cli.COMMANDS.values()):
        for name, cmd in cli.load_commands(module).items():
            registered[name] = (module, cmd)
    assert set(registered) == set(cli.COMMANDS)
    for name, (module, summary) in cli.COMMANDS.items():
        assert registered[name][0] == module, name
        real = " ".join((registered[name][1].help or "").split())
        head = re.split(r"[(:;]", " ".join(summary.split()))[0].strip().rstrip(".")
        assert len(head) > 10 and real.startswith(head), (name, summary, real[:120])


# -- the first compile says so, once ---------------------------------------------------------

_TINY = textwrap.dedent("""
    from numba import njit

    from cfrlab.config import NUMBA_CACHE


    @njit(cache=NUMBA_CACHE)
    def plus_one(x):
        return x + 1


    @njit(cache=NUMBA_CACHE)
    def twice(x):
        return 2 * x
""")
_USE = "from cfrlab import _tiny_kernels as k\nassert k.plus_one(1) + k.twice(2) == 6\n"


@pytest.fixture(scope="module")
def tiny_checkout(tmp_path_factory):
    """The package with one more kernel module, cheap to compile, and an empty cache."""
    root = tmp_path_factory.mktemp("tiny")
    shutil.copytree(Path(cfrlab.__file__).resolve().parent, root / "cfrlab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "cfrlab" / "_tiny_kernels.py").write_text(_TINY)
    return root


def _tiny_env(checkout: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CFRLAB_"))}
    env.update(PYTHONPATH=str(checkout), CFRLAB_CACHE=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return env


def _notices(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "compiling numba kernels" in ln]


def test_the_first_compile_says_so_once_from_python(tiny_checkout, tmp_path):
    env = _tiny_env(tiny_checkout, tmp_path / "cache")
    first = subprocess.run([sys.executable, "-c", "import cfrlab\n" + _USE], env=env,
                           capture_output=True, text=True, timeout=600, check=True)
    said = _notices(first.stderr)
    assert len(said) == 1, first.stderr  # two kernels compiled, one line
    assert said[0].startswith("cfrlab: compiling numba kernels, first use on this machine (about ")
    assert "make warmup" in said[0] and str(tmp_path / "cache" / "numba") in said[0]
    again = subprocess.run([sys.executable, "-c", "import cfrlab\n" + _USE], env=env,
                           capture_output=True, text=True, timeout=600, check=True)
    assert _notices(again.stderr) == [], again.stderr  # cached: nothing to say


def test_the_notice_modes_are_checked():
    from cfrlab import numba_cache

    with pytest.raises(ValueError, match="'terminals' is not 'log', 'terminal', 'off' or a stream"):
        numba_cache.announce_compiles("terminals")


def _cli_process_stderr(checkout: Path, cache: Path, terminal: bool, worker: bool = False) -> str:
    """stderr of a process that loads the CLI and runs the tiny kernels (a terminal or a pipe);
    ``worker``: a process the CLI started (it loads only cfrlab, with the CLI's environment)."""
    code = ("import cfrlab\n" if worker else "import cfrlab.cli.main\n") + _USE
    env = _tiny_env(checkout, cache)
    if worker:
        env["CFRLAB_COMPILE_NOTICE"] = "terminal"
    if not terminal:
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=600, check=True).stderr
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert p.wait(timeout=600) == 0, b"".join(chunks)
    return b"".join(chunks).decode()


def test_the_cli_says_it_on_a_terminal_only(tiny_checkout, tmp_path):
    piped = _cli_process_stderr(tiny_checkout, tmp_path / "a", terminal=False)
    assert _notices(piped) == [], piped  # scripts reading stderr: same lines, warm or cold
    said = _notices(_cli_process_stderr(tiny_checkout, tmp_path / "b", terminal=True))
    assert len(said) == 1 and said[0].startswith("cfrlab: compiling numba kernels"), said
    worker = _cli_process_stderr(tiny_checkout, tmp_path / "c", terminal=False, worker=True)
    assert _notices(worker) == [], worker  # the CLI's worker processes follow its choice


# -- Ctrl-C while loading ----------------------------------------------------------------------

# pytest-xdist's workers ignore SIGINT and their children inherit that: each child restores
# Python's own handler first, as a process started from a shell has it
_RESTORE_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"

_CTRL_C_AT = _RESTORE_SIGINT + textwrap.dedent("""
    import os, signal, sys

    class CtrlC:  # the user presses Ctrl-C while Python loads {name}
        def find_spec(self, name, path=None, target=None):
            if name == {name!r}:
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, CtrlC())
""")


@pytest.mark.parametrize("name", ["typer", "cfrlab.cli.solve_cmd", "numba"])
def test_ctrl_c_while_loading_is_one_line_and_130(name):
    code = _CTRL_C_AT.format(name=name) + (
        "from cfrlab.cli.main import main\nmain(['solve', 'kuhn', '-a', 'cfr', '-n', '2'])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       check=False)
    assert p.returncode == 130, p.stderr
    assert p.stderr.strip() == "cfrlab: error: interrupted", p.stderr


def test_ctrl_c_while_hashing_the_sources_is_one_line_and_130():
    code = (_RESTORE_SIGINT + "import signal, os\nfrom cfrlab import numba_cache\n"
            "def ctrl_c(*a):\n    os.kill(os.getpid(), signal.SIGINT)\n    return '0'\n"
            "numba_cache.source_hash = ctrl_c\n"
            "from cfrlab.cli.main import main\nmain(['solve', 'kuhn', '-a', 'cfr', '-n', '2'])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       check=False)
    assert p.returncode == 130, p.stderr
    assert p.stderr.strip() == "cfrlab: error: interrupted", p.stderr


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
    """Every kernel a Leduc solve runs, and every kernel their code calls, is the engine's (its
    walk, and the one regret matching it calls): a cold cache compiles nothing hold'em-specific
    for it."""
    count, modules = _run(_KERNELS_USED)
    assert count >= 3 and "cfrlab.engine._kernels" in modules, (count, modules)
    assert set(modules) <= {"cfrlab.engine._kernels", "cfrlab.engine._match_kernels"}, (count, modules)


# -- make demo compiles first what the demo runs -----------------------------------------------

_SIGNATURES = textwrap.dedent("""
    import contextlib, io, json, sys
    from numba.core.registry import CPUDispatcher
    from cfrlab.cli.main import main

    def compiled():  # every (kernel, signature) this process has compiled or loaded from the cache
        return {(m, k, str(s)) for m, mod in list(sys.modules.items()) if m.startswith("cfrlab")
                for k, v in vars(mod).items() if isinstance(v, CPUDispatcher) for s in v.signatures}

    def run(argv):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(argv)
            except SystemExit as e:
                assert not e.code, (argv, e.code)

    run(WARM)
    before = compiled()
    run(DEMO)
    print(json.dumps([len(before), sorted(map(list, compiled() - before))]))
""")


def _demo_commands() -> list[list[str]]:
    text = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    recipe = text.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    lines = [ln.strip().lstrip("@") for ln in recipe.splitlines()[1:] if ln.startswith("\t")]
    return [ln.split(">")[0].split()[1:] for ln in lines if ln.startswith("$(BIN)/cfrlab ")]


def test_make_demo_compiles_what_the_demo_runs_before_it_starts():
    """The demo's own output has no silent minute: its kernels were all needed by the step before."""
    warm, demo = _demo_commands()
    assert "--target" in demo and "--target" not in warm
    n, more = _run(_SIGNATURES.replace("WARM", repr(warm)).replace("DEMO", repr(demo)))
    assert n > 0 and more == [], more
