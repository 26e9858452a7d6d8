"""The element kinds as a table (numpy, no numba): what the rest of the engine looks up by
a kind's name or by its dataclass (the package docstring says what a kind's module holds)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any

from ..params import Bodies
from ..quaternion import Array
from . import NAMES, geometry
from .poses import Poses

#: Every kind's module, in the order of their codes.
MODULES: tuple[ModuleType, ...] = tuple(import_module(f"{__package__}.{n}") for n in NAMES)
#: What `jit.compile_kinds` compiles: the kinds and what their forces share.
COMPILED: tuple[ModuleType, ...] = (geometry, *MODULES)


@dataclass(frozen=True)
class Kind:
    """One kind of element, as the rest of the engine looks it up (by `name`)."""

    name: str  # as scenario/elements.py names it ("pivot", "load", "added_mass", …)
    code: float  # its E_KIND in an element row
    element: type[Any]  # the dynamics dataclass (elements.Pivot, …)
    pack: Callable[[Any, Array, Bodies, list[float]], None]  # its numbers into its row
    aux_columns: tuple[int, ...]  # columns of its row that are offsets into aux
    stored: Callable[[Any, Array, Poses], float] | None  # energy it holds, J; None: none
    module: ModuleType  # the module itself (its docstring states its equations)
    #: The initial states of an element that carries its own (layout.E_STATES), None: none.
    states: Callable[[Any], Array] | None = None

    @classmethod
    def of(cls, module: ModuleType) -> Kind:
        return cls(
            module.NAME,
            module.CODE,
            module.ELEMENT,
            module.pack,
            module.AUX_COLUMNS,
            module.stored,
            module,
            getattr(module, "states", None),
        )


#: The kinds by name.
KINDS: dict[str, Kind] = {m.NAME: Kind.of(m) for m in MODULES}
#: The kinds by their dataclass.
BY_ELEMENT: dict[type[Any], Kind] = {k.element: k for k in KINDS.values()}

__all__ = ["BY_ELEMENT", "COMPILED", "KINDS", "MODULES", "Kind", "Poses"]
