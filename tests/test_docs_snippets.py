"""Every ```python block of the docs pages runs (in a fresh folder, page by page, in order),
with the few files a page's prose says it already has: a match log, a strategy file. The
tutorial, the Python page and the API reference have tests of their own."""

import re
import sys
from pathlib import Path

import pytest

import cfrlab

DOCS = Path(__file__).resolve().parents[1] / "docs"
OWN_TESTS = {"tutorial.md", "python.md", "api.md"}
# Snippets run here at a smaller size than the page shows (the page's text must still hold the
# original, so the docs cannot drift). Each shrinks a run whose figures the page prints but
# does not assert (the page's asserts all run at full size); what the figures are worth is
# measured by the tests the pages name. deep.md: the full SD-CFR run took 200 s of the
# suite's time, 3 iterations of 1,500 Adam steps per network 20 s; tests/test_deep*.py
# measure how well it learns. The others: 3-player CFR+ and sampled solves (28 s), a Python
# agent's match (9 s), CFR-BR and its trunk version (10 s), nested re-solving (10 s), a
# translated agent's match (4 s).
SHRINK = {
    "deep.md": [("iterations=120, traversals=4000, seed=0, eval_every=20",
                 "iterations=3, traversals=100, seed=0, eval_every=3, params=DeepParams(adv_steps=50)")],
    "multiplayer.md": [('r = cfrlab.solve("leduc-3p", "cfr+", iterations=300)',
                        'r = cfrlab.solve("leduc-3p", "cfr+", iterations=30)'),
                       ("iterations=100_000, seed=1, eval_every=20_000", "iterations=10_000, seed=1, eval_every=2_000"),
                       ("s.iterate(10_000)", "s.iterate(1_000)")],
    "matches.md": [('PairRaiser(), "value", 20000, seed=1', 'PairRaiser(), "value", 2000, seed=1')],
    "realgame.md": [("m, iterations=600)", "m, iterations=60)"),
                    ('m, iterations=3000, opponent="br")', 'm, iterations=300, opponent="br")'),
                    ('m, iterations=3000, opponent="abstract")', 'm, iterations=300, opponent="abstract")'),
                    ("cfrbr_trunk(g, buckets, iterations=100, trunk=1", "cfrbr_trunk(g, buckets, iterations=10, trunk=1")],
    "subgame.md": [('bets="fcpa", iterations=500).strategy', 'bets="fcpa", iterations=50).strategy'),
                   ('NestedSolver(bp, "resolve", iterations=200)', 'NestedSolver(bp, "resolve", iterations=20)')],
    "nolimit.md": [('agent, "random", 2_000, seed=1, duplicate=True', 'agent, "random", 200, seed=1, duplicate=True')],
}
PAGES = sorted(p.name for p in DOCS.glob("*.md") if p.name not in OWN_TESTS and "```python" in p.read_text())


def _setup(page: str, folder: Path) -> None:
    """The files the page's snippets take as given."""
    if page == "counter.md":
        s = cfrlab.solve("leduc", "cfr+", iterations=50).strategy
        cfrlab.play_match("leduc", s, "random", 3_000, seed=1, log=folder / "games.log", names=("target", "field"))
    if page == "matches.md":
        cfrlab.play_match("holdem-limit", "always-call", "random", 200, seed=1, log=folder / "match.log")
    if page == "spots.md":  # the river spot the page solves: the benchmark spot's ranges on a full board
        example = Path(__file__).resolve().parents[1] / "examples" / "spots" / "texassolver_benchmark.toml"
        text = example.read_text().replace('board = "Qs Jh 2h"', 'board = "Qs Jh 2h 8d 3c"')
        (folder / "river.toml").write_text(text)
    if page == "solving.md":
        cfrlab.solve("leduc", "cfr+", target=1e-3).strategy.save(folder / "leduc.npz")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_the_snippets_of_a_page_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    _setup(page, tmp_path)
    namespace: dict = {"__name__": "docs"}
    text = (DOCS / page).read_text()
    for old, new in SHRINK.get(page, []):
        assert text.count(old) == 1, f"docs/{page} no longer says {old!r} once: update SHRINK"
        text = text.replace(old, new)
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.DOTALL)):
        first = block.splitlines()[0].strip()
        if first.startswith("# ") and first.endswith(".py"):  # a module the next blocks import
            (tmp_path / first[2:]).write_text(block)
            continue
        exec(compile(block, f"docs/{page} block {i + 1}", "exec"), namespace)  # noqa: S102 - our own docs
    sys.modules.pop("mybot", None)


def test_the_pages_with_snippets_are_found():
    assert {"abstraction.md", "counter.md", "matches.md", "solving.md"} <= set(PAGES)
