"""Every ```python block of docs/python.md runs and its asserts hold."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)


def test_the_page_has_snippets():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_snippet_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index], f"docs/python.md block {index + 1}", "exec"), {})  # noqa: S102 - our own docs
