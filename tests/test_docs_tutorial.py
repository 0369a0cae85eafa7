"""docs/tutorial.md runs from top to bottom as one script and its asserts hold."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"


@pytest.mark.slow
def test_the_tutorial_runs_in_order(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "tutorial"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/tutorial.md block {i + 1}", "exec"), namespace)  # noqa: S102 - our own docs
    assert (tmp_path / "leduc-curves.png").stat().st_size > 0
