"""Shared fixtures. Tests use reduced decks; nothing here builds full-size HULHE tables."""

import os

import pytest


# Keep any cache a test creates inside the pytest temp area, never in the user's home.
@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    if "CFRLAB_CACHE" not in os.environ:
        os.environ["CFRLAB_CACHE"] = str(tmp_path_factory.mktemp("cfrlab-cache"))
    yield
