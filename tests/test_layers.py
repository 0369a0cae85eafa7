"""The layer order (``cfrlab.LAYERS``, written once) holds: no import runs back up, none hides
in a function, no private name crosses a package, no kernel takes over 12 parameters, and
docs/ENGINE.md shows the same order."""

from __future__ import annotations

import ast
from pathlib import Path

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
