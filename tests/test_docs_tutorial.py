"""docs/tutorial.md runs from top to bottom as one script and its asserts hold."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"
# Run here at a smaller size than the page shows (as tests/test_docs_snippets.py does; the
# page must still say the original, so the docs cannot drift), each with its margin measured:
# OpenSpiel's CFR compared point by point over its first 100 iterations, not 300 (each
# iteration and each of its exploitabilities takes 14 ms: 8 s of the test; an iterate that
# differed would show within 10); the match against the aggressive agent over 2,000 deals,
# not 20,000 (a Python agent: 14 s; at 2,000, seeds 1, 2, 3 and 7, the mean is 5 intervals
# above 0: 0.44 to 0.53 chips/g +- 0.09); OpenSpiel's CFR+ for 20 iterations, not 100 (the
# oracle, both sides measuring the same exploitability, holds at any iteration).
SHRINK = [("for i in range(1, 301):", "for i in range(1, 101):"),
          ("Aggressive(), 20_000, seed=7", "Aggressive(), 2_000, seed=7"),
          ("for _ in range(100):", "for _ in range(20):")]


@pytest.mark.slow
def test_the_tutorial_runs_in_order(tmp_path, monkeypatch):
    text = DOC.read_text()
    for old, new in SHRINK:
        assert text.count(old) == 1, f"docs/tutorial.md no longer says {old!r} once: update SHRINK"
        text = text.replace(old, new)
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "tutorial"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/tutorial.md block {i + 1}", "exec"), namespace)  # noqa: S102 - our own docs
    assert (tmp_path / "leduc-curves.png").stat().st_size > 0
