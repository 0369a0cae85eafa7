"""docs/api.md is what docs/make_api.py generates from the code's docstrings today."""

import runpy
from pathlib import Path

MAKE_API = Path(__file__).resolve().parents[1] / "docs" / "make_api.py"


def test_the_api_reference_is_up_to_date():
    make_api = runpy.run_path(str(MAKE_API))
    assert make_api["OUT"].read_text() == make_api["render"](), "docs/api.md is stale: run `make docs`"


def test_every_public_package_name_is_in_the_reference():
    import cfrlab

    text = (MAKE_API.parent / "api.md").read_text()
    for name in cfrlab.__all__:
        if name != "__version__":
            assert f".{name}" in text, name
