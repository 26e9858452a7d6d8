"""Names of a package that load their module on first use (PEP 562).

A package's `__init__` re-exports its public names; importing them all eagerly would make
any one submodule import (numpy-free ones included) load every module of the package. With
`exports`, `from package import Name` loads Name's module when it is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, homes: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The module `__getattr__` for `package`: homes maps a submodule to the names it defines."""
    home_of = {name: module for module, names in homes.items() for name in names}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value  # once loaded, a plain module attribute
        return value

    return __getattr__
