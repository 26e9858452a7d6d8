"""Compiled functions written beside the numbers they belong to, compiled only when a kernel
needs them.

A kind's module holds its force (compiled), its row and its stored energy (plain numpy)
side by side, and `import sixdof.dynamics` must not import numba (~0.3 s): so a kind marks
its compiled functions with `@kernel` (a marker, nothing more), and `compile_kinds`, called
by `system_compiled` as it is imported (with numba), replaces every marked function in the
kind modules' globals with its numba dispatcher. numba reads a function's globals when it
compiles it, so the kinds' calls to one another, and the kernels' calls to them, are calls
of dispatchers; each dispatcher caches on disk beside its module, as any `njit(cache=True)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: What every compiled function of the engine is built with (nogil: the server steps rooms
#: in threads with the GIL released; cache: compiled once, then loaded from disk).
OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
_MARK = "__sixdof_kernel__"


def kernel(fn: F | None = None, *, inline: bool = False) -> Any:
    """Mark fn as compiled (`inline`: numba inlines it into its callers)."""

    def mark(f: F) -> F:
        setattr(f, _MARK, "always" if inline else "never")
        return f

    return mark if fn is None else mark(fn)


def compile_kinds(modules: Iterable[ModuleType]) -> None:
    """Put a numba dispatcher in place of each marked function in these modules' globals (the
    same dispatcher wherever a function was imported); idempotent."""
    from numba import njit

    made: dict[int, Any] = {}
    modules = list(modules)
    for module in modules:
        for name, value in list(vars(module).items()):
            inline = getattr(value, _MARK, None)
            if inline is None or not callable(value) or hasattr(value, "py_func"):
                continue  # not marked, or a dispatcher already (it carries the mark too)
            if id(value) not in made:
                made[id(value)] = njit(inline=inline, **OPTIONS)(value)
            setattr(module, name, made[id(value)])
