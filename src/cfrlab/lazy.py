"""Names a package loads from their modules on first use (PEP 562), so that importing the
package stays cheap: ``__getattr__, __dir__ = lazy_names("cfrlab.envs", _LAZY)``, with
``_LAZY`` mapping each name to the module that defines it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable


def lazy_names(package: str, table: dict[str, str],
               listed: Callable[[], Iterable[str]] | None = None) -> tuple[Callable, Callable]:
    """The package's ``__getattr__`` (a name of ``table`` imported from its module when first
    read) and ``__dir__`` (``listed()``, or the table's names)."""
    def __getattr__(name: str):
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(listed() if listed is not None else table)

    return __getattr__, __dir__
