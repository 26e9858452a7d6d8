"""The registry of element kinds: every module of this package is one kind, its `KIND` entry
(`scenario.kind.Kind`) beside its pydantic model, its checks and its build.

A new kind is a new module here (and its dynamics, `sixdof.dynamics`); nothing lists it:
the modules are found by name, and ordered as the dynamics number their kinds, so the
order (the JSON union's, the XML writer's, the error messages') follows the dynamics'.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ..kind import Kind


def dynamics_kinds() -> dict[str, int]:
    """The kinds the dynamics know, by name, and their order there (`dynamics.kinds.NAMES`,
    in the order of their row codes; importing it imports no numpy)."""
    from ...dynamics.kinds import NAMES

    return {name: k for k, name in enumerate(NAMES)}


def _found() -> tuple[Kind[Any], ...]:
    """Every module's KIND, in the dynamics' order (a kind the dynamics do not know last:
    tests/unit/test_kind_registry.py fails on it)."""
    kinds: list[Kind[Any]] = []
    for module in pkgutil.iter_modules(__path__):
        kinds.append(importlib.import_module(f"{__name__}.{module.name}").KIND)
    order = dynamics_kinds()
    return tuple(sorted(kinds, key=lambda k: (order.get(k.name, len(order)), k.name)))


#: Every element kind, in order.
KIND_TABLE: tuple[Kind[Any], ...] = _found()
#: The kinds by name.
BY_NAME: dict[str, Kind[Any]] = {k.name: k for k in KIND_TABLE}
#: The kinds' names (the JSON tags), in order.
KINDS: tuple[str, ...] = tuple(BY_NAME)
#: The SimObject of each kind, and the kind of each SimObject.
BY_XML_OBJECT: dict[str, Kind[Any]] = {k.xml_object: k for k in KIND_TABLE}

__all__ = ["BY_NAME", "BY_XML_OBJECT", "KINDS", "KIND_TABLE", "dynamics_kinds"]
