"""Python errors name parameters, not CLI flags: the CLI may add its flag names, the API
says ``target must be positive``, not ``--target must be positive``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cfrlab

SRC = Path(cfrlab.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
PENDING: dict[str, int] = {}  # files allowed to keep a flag name in a Python error: none


def _raised_texts(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                parts = [arg] if isinstance(arg, ast.Constant) else getattr(arg, "values", [])
                text = "".join(p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str))
                if text:
                    yield node.lineno, text


def test_python_layer_errors_do_not_name_cli_flags():
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(("cli/", "warmup/")):
            continue
        for line, text in _raised_texts(ast.parse(path.read_text())):
            if FLAG.search(text):
                found.setdefault(rel, []).append(f"{rel}:{line}: {text}")
    extra = {rel: msgs for rel, msgs in found.items() if len(msgs) > PENDING.get(rel, 0)}
    assert not extra, "\n".join(m for msgs in extra.values() for m in msgs)
