"""The environments' optional dependencies (the ``env`` extra), checked where an env is made."""

from __future__ import annotations

import importlib

from cfrlab.errors import CfrlabError

INSTALL_HINT = "the environments need pettingzoo and gymnasium: pip install cfrlab[env]"


def require(*modules: str) -> None:
    """Import ``modules`` (default pettingzoo and gymnasium) or raise one CfrlabError line
    saying how to install them."""
    for name in modules or ("pettingzoo", "gymnasium"):
        try:
            importlib.import_module(name)
        except ImportError:
            raise CfrlabError(f"{INSTALL_HINT} ({name} is missing)") from None
