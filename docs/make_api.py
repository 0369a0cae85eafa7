"""Write docs/api.md, the API reference, from the docstrings and signatures of the public names.

    python docs/make_api.py          # rewrite docs/api.md
    python docs/make_api.py --check  # exit 1 when docs/api.md is not what the code says

``make docs`` runs the first; ``tests/test_docs_api.py`` the second, so the page never drifts
from the code. The public API is what this page lists: the names below, in these modules.
Nothing else is needed (no pdoc, no mkdocs): the page is Markdown that GitHub renders.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "api.md"

# (module, names or None for the names the module's docstring-bearing public members)
SECTIONS: list[tuple[str, str, list[str]]] = [
    ("Solving and measuring", "cfrlab.api",
     ["solve", "SolveResult", "SolvePlan", "exploit", "best_response", "BestResponse", "sizes", "lbr"]),
    ("Local best response", "cfrlab.realgame.lbr", ["LBRResult"]),
    ("Strategies", "cfrlab.strategy", ["Strategy", "InfoSet", "check_policy"]),
    ("Games", "cfrlab.games", ["load_game", "parse_game", "GameDef", "MatchState", "parse_match_state"]),
    ("Actions and units", "cfrlab.games.situation", ["ACTIONS", "action_word"]),
    ("Units", "cfrlab.games.units", ["CHIPS", "MBB", "unit_of", "parse_amount", "to_unit", "from_unit",
                                     "format_unit", "format_value", "normalize_unit"]),
    ("Agents and matches", "cfrlab.agents", ["Agent", "make_agent", "play_match", "crosstable", "play_nmatch",
                                            "ncrosstable", "TranslatedStrategy", "translate"]),
    ("Action translation rules", "cfrlab.tree.translation", ["RULES", "check_rule", "lower_probability",
                                                             "map_size", "Spot"]),
    ("Match results", "cfrlab.evaluate.match", ["MatchResult", "exact_value"]),
    ("Exact values", "cfrlab.evaluate",
     ["exploitability", "best_response_values", "expected_value", "game_value"]),
    ("Solvers", "cfrlab.solvers", ["make_solver", "ALGORITHMS", "CFRParams", "Solver"]),
    ("Runs, checkpoints, interruption", "cfrlab.solvers.driver", ["Tick", "Interrupted"]),
    ("Counter-strategies", "cfrlab.counter", ["build_model", "OpponentModel", "fbr", "rnr", "dbr", "sweep",
                                              "confidence", "Counter"]),
    ("Perturbed equilibria", "cfrlab.counter.perturbed", ["PerturbedSolver"]),
    ("OpenSpiel", "cfrlab.interop.openspiel", ["to_openspiel", "from_openspiel", "export_openspiel",
                                               "import_openspiel", "openspiel_game_name"]),
    ("CFR-BR", "cfrlab.realgame.cfrbr", ["cfrbr", "CardMap"]),
    ("CFR-BR with a sampled trunk", "cfrlab.realgame.cfrbr_trunk", ["cfrbr_trunk", "TrunkSolver"]),
    ("Subgame solving", "cfrlab.subgame", ["resolve_strategy", "SubgameResult", "resolve_root", "cut", "Cut",
                                           "blueprint_of", "Blueprint", "subgame_values", "subgame_round",
                                           "METHODS"]),
    ("Spots", "cfrlab.spot", ["load_spot", "make_spot", "solve_spot", "SpotSolution", "spot_size"]),
    ("Environments", "cfrlab.envs", ["PokerEnv", "PokerGymEnv", "BatchedEnv", "ActionSet", "Encoding"]),
    ("Deep CFR and SD-CFR", "cfrlab.deep", ["train", "DeepParams", "DeepResult", "load_nets",
                                             "load_deep_strategy"]),
    ("Errors", "cfrlab.errors", ["CfrlabError", "ParseError", "FileMismatchError", "IllegalActionError"]),
    ("The package's layers", "cfrlab", ["LAYERS", "layer_order"]),
]


def _signature(obj, method: bool = False) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    if method:  # leave out self
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    # annotations are strings (from __future__ import annotations): show them unquoted
    return re.sub(r"(: |-> )'([^']*)'", r"\1\2", str(sig))


def _doc(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    # doctest prompts read as code in Markdown
    out, in_code = [], False
    for line in doc.splitlines():
        code = line.startswith(">>>") or line.startswith("    ") and line.strip()
        if code and not in_code:
            out.append("```python")
            in_code = True
        elif not code and in_code and line.strip() != "" and not line.startswith("..."):
            out.append("```")
            in_code = False
        if in_code and not line.strip():
            out.append("```")
            in_code = False
        out.append(line[4:] if in_code and line.startswith("    ") else line)
    if in_code:
        out.append("```")
    return "\n".join(out).strip()


def _members(cls) -> list[tuple[str, object]]:
    found = []
    for name, member in vars(cls).items():
        if name.startswith("_") or not (inspect.isfunction(member) or isinstance(member, (classmethod, property))):
            continue
        found.append((name, member))
    return found


def _entry(qual: str, obj) -> list[str]:
    lines = []
    if inspect.isclass(obj):
        lines += [f"### class `{qual}`", "", _doc(obj), ""]
        short = qual.rsplit(".", 1)[-1]
        for name, member in _members(obj):
            if isinstance(member, property):
                head, fn = f"#### `{short}.{name}` (property)", member.fget
            elif isinstance(member, classmethod):
                fn = getattr(obj, name)  # bound: no cls in the signature
                head = f"#### `{short}.{name}{_signature(fn)}` (class method)"
            else:
                fn = member
                head = f"#### `{short}.{name}{_signature(fn, method=True)}`"
            doc = _doc(fn)
            if doc:
                lines += [head, "", doc, ""]
    elif callable(obj):
        lines += [f"### `{qual}{_signature(obj)}`", "", _doc(obj), ""]
    else:
        lines += [f"### `{qual}`", "", f"`{obj!r}`", ""]
    return lines


def render() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings by `docs/make_api.py` (`make docs`); a test fails when it",
             "is out of date. The names on the `cfrlab` package itself (`cfrlab.solve`,",
             "`cfrlab.Strategy`, ...) are the ones of `cfrlab.api`, `cfrlab.strategy`, `cfrlab.games`",
             "and `cfrlab.agents` below. Start with the [tutorial](tutorial.md).", ""]
    for title, module_name, names in SECTIONS:
        module = importlib.import_module(module_name)
        if not names:
            names = [n for n, v in vars(module).items()
                     if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
                     and getattr(v, "__module__", "") == module_name]
        lines += [f"## {title} (`{module_name}`)", ""]
        head = inspect.getdoc(module)
        if head:
            lines += [head.split("\n\n")[0], ""]
        for name in names:
            lines += _entry(f"{module_name}.{name}", getattr(module, name))
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run `make docs`", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
