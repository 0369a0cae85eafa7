"""The layer order (``cfrlab.LAYERS``, written once) holds: no import runs back up, none hides
in a function, no private name crosses a package, no kernel takes over 12 parameters, and
docs/ENGINE.md shows the same order."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import NamedTuple

import pytest

import cfrlab

SRC = Path(__file__).resolve().parents[1] / "src" / "cfrlab"

LAYERS = [set(rooms) for rooms in cfrlab.LAYERS]
RANK = {name: i for i, names in enumerate(LAYERS) for name in names}


def _room(module: str) -> str:
    parts = module.split(".")
    assert parts[0] == "cfrlab", module
    return parts[1] if len(parts) > 1 else "__init__"


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts)
        name = name.removesuffix(".__init__")
        yield name, path


def _imports(path: Path, module: str):
    """(imported cfrlab module, line, inside a function?) for every import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "cfrlab":
                        yield alias.name, child.lineno, in_function
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.split(".")[0] == "cfrlab":
                    if target == "cfrlab":  # from cfrlab import cards
                        for alias in child.names:
                            yield f"cfrlab.{alias.name}", child.lineno, in_function
                    else:
                        yield target, child.lineno, in_function
            yield from visit(child, nested)

    yield from visit(tree, False)


@functools.cache  # one pass over the sources for the two tests below
def _violations():
    hidden, upward = [], []
    for module, path in _modules():
        room = _room(module)
        if room == "__init__":
            continue
        for target, line, in_function in _imports(path, module):
            where = f"{path.relative_to(SRC.parent)}:{line} imports {target}"
            if in_function and room != "cli":
                hidden.append(where)
            t_room = _room(target)
            if t_room == "__init__":
                continue
            if RANK[t_room] > RANK[room]:
                upward.append(where)
    return hidden, upward


def test_every_room_has_a_layer():
    rooms = {_room(m) for m, _ in _modules()} - {"__init__"}
    assert rooms <= set(RANK), sorted(rooms - set(RANK))


def test_no_import_inside_a_function_outside_the_cli():
    hidden, _ = _violations()
    assert hidden == [], "\n".join(hidden)


def test_no_import_runs_back_up_the_layers():
    _, upward = _violations()
    assert upward == [], "\n".join(upward)


@pytest.mark.parametrize("room", sorted(RANK))
def test_layer_names_are_real(room):
    assert (SRC / room).is_dir() or (SRC / f"{room}.py").is_file() or room in {
        "numba_cache", "warmup", "__main__", "engine", "known_values", "api"}


def test_the_cli_uses_only_the_public_api():
    """``cfrlab.cli`` imports no private module or name of cfrlab (no ``_`` component): what
    the CLI does, a Python user can do with the documented modules (docs/api.md)."""
    bad = []
    for path in sorted((SRC / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cfrlab"):
                names = [*node.module.split("."), *(a.name for a in node.names)]
                bad += [f"{path.name}:{node.lineno} {node.module}.{n}" for n in names if n.startswith("_")]
            elif isinstance(node, ast.Import):
                bad += [f"{path.name}:{node.lineno} {a.name}" for a in node.names
                        if a.name.startswith("cfrlab") and any(p.startswith("_") for p in a.name.split("."))]
    assert not bad, bad


def test_no_private_name_is_imported_across_packages():
    """A primitive another package uses is public in the package that owns it (docs/ENGINE.md):
    no ``from cfrlab.<room>... import`` of a ``_`` module or name from outside ``<room>``."""
    bad = []
    for module, path in _modules():
        room = _room(module)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.ImportFrom) or node.level or not (node.module or "").startswith("cfrlab."):
                continue
            if _room(node.module) == room:
                continue
            parts = node.module.split(".")[2:]
            for alias in node.names:
                if any(p.startswith("_") and not p.startswith("__") for p in (*parts, alias.name)):
                    bad.append(f"{path.relative_to(SRC.parent)}:{node.lineno} {node.module}.{alias.name}")
    assert bad == [], "\n".join(bad)


def test_the_docs_show_the_layer_order():
    text = (SRC.parents[1] / "docs" / "ENGINE.md").read_text()
    assert cfrlab.layer_order() in " ".join(text.split()), cfrlab.layer_order()


def _is_kernel(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit"):
            return True
    return False


def test_no_kernel_takes_more_than_12_parameters():
    """Numba kernels take their arrays in named bundles (namedtuples), at most 12 parameters."""
    bad = []
    for _, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef) and _is_kernel(node):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                if count > 12:
                    bad.append(f"{path.relative_to(SRC.parent)}:{node.lineno} {node.name} ({count})")
    assert bad == [], "\n".join(bad)


# -- one idea, one place (docs/ENGINE.md): each rule is a function of a module's text, so a
# planted copy can be shown to fail it ---------------------------------------------------------

BOARD_KERNELS = {"engine/_board_kernels.py", "engine/_board_lanes_kernels.py"}
MATCH_KERNELS = {"engine/_match_kernels.py"}
# a per-card sum indexed by a hand's card taken away: the card-removal terminal's core
_TERMINAL = re.compile(r"-=?\s*\w+\[\s*(\w*card\w*|c[01])\s*\[")
# regret matching written out: a value divided by a total when the value itself is positive
_MATCHING = re.compile(r"(\w+(?:\[[^\]\n]*\])?)\s*/\s*(?:tot\w*|total|sum\w*|t|s)(?:\[[^\]\n]*\])?\s+if\s+\1\s*>\s*0")


class Function(NamedTuple):
    name: str
    lineno: int
    decorators: tuple[str, ...]  # the called or named decorator, without its module
    text: str  # the source, as ast.get_source_segment gives it


def _segment(lines: list[str], node: ast.AST) -> str:
    """``ast.get_source_segment(src, node)`` from ``src``'s lines split once (the stdlib splits
    the whole file again for every node: a file of 1,000 functions took seconds)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    return "".join([lines[first].encode()[node.col_offset:].decode(), *lines[first + 1:last],
                    lines[last].encode()[:node.end_col_offset].decode()])


@functools.cache
def _functions(src: str) -> tuple[Function, ...]:
    """Every function of a module's text; parsed once per session (the rules below and the
    tests of planted copies share it)."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", src)  # as ast splits: \r\n, \r, \n
    out = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = []
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                names.append(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
            out.append(Function(node.name, node.lineno, tuple(names), _segment(lines, node)))
    return tuple(out)


def njit_outside_kernel_modules(rel: str, src: str) -> list[str]:
    """Numba-compiled functions in a module not named ``_*kernels.py``."""
    if re.fullmatch(r"_\w*kernels\.py", Path(rel).name):
        return []
    return [f"{rel}:{fn.lineno} {fn.name}" for fn in _functions(src)
            for name in fn.decorators if name in ("njit", "jit", "vectorize", "guvectorize")]


def terminal_copies(rel: str, src: str) -> list[str]:
    """Card-removal fold or showdown sums written outside the board engine's kernel modules."""
    if rel in BOARD_KERNELS:
        return []
    return [f"{rel}:{fn.lineno} {fn.name}" for fn in _functions(src) if _TERMINAL.search(fn.text)]


def matching_copies(rel: str, src: str) -> list[str]:
    """Regret matching written outside its one module: a function named for matching that
    reads regrets, or the positive-share division written out."""
    if rel in MATCH_KERNELS:
        return []
    return [f"{rel}:{fn.lineno} {fn.name}" for fn in _functions(src)
            if ("match" in fn.name.lower() and "regret" in fn.text.lower()) or _MATCHING.search(fn.text)]


def _sources():
    for _, path in _modules():
        yield str(path.relative_to(SRC).as_posix()), path.read_text()


def test_numba_kernels_live_in_kernel_modules():
    bad = [v for rel, src in _sources() for v in njit_outside_kernel_modules(rel, src)]
    assert bad == [], "\n".join(bad)


def test_card_removal_terminals_live_in_the_board_engine():
    bad = [v for rel, src in _sources() for v in terminal_copies(rel, src)]
    assert bad == [], "\n".join(bad)


def test_regret_matching_lives_in_one_module():
    bad = [v for rel, src in _sources() for v in matching_copies(rel, src)]
    assert bad == [], "\n".join(bad)


def private_attribute_reads(files: dict[str, str]) -> list[str]:
    """``obj._name`` read in one package where ``_name`` is an attribute or method that only
    other packages define (``self._name = ...``, ``def _name``): reaching into another
    package's object instead of a public name."""
    def room(rel: str) -> str:
        return rel.split("/")[0] if "/" in rel else rel.removesuffix(".py")

    defined: dict[str, set[str]] = {}
    reads = []
    for rel, src in files.items():
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("_") \
                    and not node.name.startswith("__"):
                defined.setdefault(node.name, set()).add(room(rel))
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
                continue
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if own and isinstance(node.ctx, ast.Store):
                defined.setdefault(node.attr, set()).add(room(rel))
            elif not own:
                reads.append((room(rel), node.attr, f"{rel}:{node.lineno} .{node.attr}"))
    return [where for r, name, where in reads if name in defined and r not in defined[name]]


def test_no_private_attribute_is_read_across_packages():
    bad = private_attribute_reads(dict(_sources()))
    assert bad == [], "\n".join(bad)


PLANTED_FOLD = '''
def fold(r, cards, csum, out):
    tot = r.sum()
    for i in range(len(r)):
        out[i] = tot - csum[cards[i, 0]] - csum[cards[i, 1]] + r[i]
'''
PLANTED_MATCH = '''
def strategy(reg, tot, A, out):
    for a in range(A):
        x = reg[a]
        out[a] = (x / tot if x > 0 else 0.0) if tot > 0 else 1.0 / A
'''
PLANTED_NAMED = '''
def _matched(regret, legal):
    return regret.clip(0) / regret.clip(0).sum()
'''
PLANTED_NJIT = '''
from numba import njit

@njit(cache=True)
def kernel(x):
    return x
'''


def test_the_rules_fail_on_planted_copies():
    """Each rule finds a copy planted in another package (and none in the module that owns
    the idea), so a second definition cannot come back unnoticed."""
    assert terminal_copies("realgame/walk.py", PLANTED_FOLD) == ["realgame/walk.py:2 fold"]
    assert terminal_copies("engine/_board_kernels.py", PLANTED_FOLD) == []
    assert matching_copies("spot/fast.py", PLANTED_MATCH) == ["spot/fast.py:2 strategy"]
    assert matching_copies("realgame/cfrbr.py", PLANTED_NAMED) == ["realgame/cfrbr.py:2 _matched"]
    assert matching_copies("engine/_match_kernels.py", PLANTED_MATCH) == []
    assert njit_outside_kernel_modules("realgame/cfrbr.py", PLANTED_NJIT) == ["realgame/cfrbr.py:5 kernel"]
    assert njit_outside_kernel_modules("realgame/_cfrbr_kernels.py", PLANTED_NJIT) == []
    files = {"engine/board_walk.py": "class S:\n    def __init__(self):\n        self._c8 = 1\n",
             "spot/report.py": "def f(w):\n    return w._c8\n",
             "engine/other.py": "def g(w):\n    return w._c8\n"}
    assert private_attribute_reads(files) == ["spot/report.py:2 ._c8"]
