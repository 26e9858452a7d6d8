"""The elements' stepping kernel in parts that compile apart, so that a cold compile spreads
over the cores (kernel_warm.SYSTEM_PARTS).

`system_serial` compiles as one chain: ~86 s of one core on a cold cache, most of it in three
callees of `_advance_group` that do not call one another: the tree of hinges'
`tree_run_compiled.run` (~42 s), a body alone's `_run_one` (~26 s) and a group's `_group_run`
(~11 s). Each function here makes the calls `_advance_group` makes to one of them, on
arguments of the same types (borrowed as `system_serial` borrows them), and is compiled by
its signature alone (`compile_part`, never run): numba compiles the callee for that
signature and writes it to its cache, where the worker compiling `system_serial` then finds
it instead of compiling it again.
"""

from __future__ import annotations

from typing import Any

from . import constraints_compiled as joints
from . import system_compiled as s
from . import tree_compiled, tree_run_compiled
from .borrow import borrowed
from .kernel_compiled import njit
from .states_compiled import with_states
from .stepper_compiled import load as _load

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "0ca14cd3bdf536f5"

_JIT: Any = {"cache": False, "nogil": True, "fastmath": False, "error_model": "numpy"}


@njit(**_JIT)
def tree_run(p, x, u, groups, el, bounds, aux, t, h, n, method, z, zb):
    """`tree_run_compiled.run` as `_advance_group` calls it (a tree of hinges)."""
    p, x, u, el, aux = borrowed(p), borrowed(x), borrowed(u), borrowed(el), borrowed(aux)
    first, cnt, e0, e1 = groups[0, 0], groups[0, 1], bounds[0], bounds[1]
    T = tree_compiled.order(p, u, el, e0, e1, first, cnt)
    Y = x[first : first + cnt]
    tree_run_compiled.run(p, u, el, e0, e1, aux, first, T, Y, t[first], h[first], n[first],
                          method[first])  # fmt: skip


@njit(**_JIT)
def run_one(p, x, u, groups, el, bounds, aux, t, h, n, method, z, zb):
    """`_run_one` as `_advance_group` calls it (a body alone in its group)."""
    p, x, u, el, aux = borrowed(p), borrowed(x), borrowed(u), borrowed(el), borrowed(aux)
    first, e0, e1 = groups[0, 0], bounds[0], bounds[1]
    return s._run_one(p, u, el, e0, e1, aux, first, _load(x[first]), t[first], h[first],
                      n[first], method[first])  # fmt: skip


@njit(**_JIT)
def group_run(p, x, u, groups, el, bounds, aux, t, h, n, method, z, zb):
    """`_group_run` as `_advance_group` calls it: on a group's rows, and on its rows with its
    elements' states."""
    p, x, u, el, aux = borrowed(p), borrowed(x), borrowed(u), borrowed(el), borrowed(aux)
    first, cnt, e0, e1 = groups[0, 0], groups[0, 1], bounds[0], bounds[1]
    f = first
    pivots = joints.pivots_of(el, e0, e1, cnt)
    W = with_states(x, first, cnt, z, zb[0], zb[1] - zb[0])
    s._group_run(p, u, el, e0, e1, aux, first, cnt, pivots, W, t[f], h[f], n[f], method[f])
    Y = x[first : first + cnt]
    s._group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t[f], h[f], n[f], method[f])


def compile_part(part: Any, *arrays: Any) -> None:
    """Compile `part` for the types of `arrays` (`system_serial`'s arguments), without
    running it."""
    from numba import typeof

    part.compile(tuple(typeof(a) for a in arrays))
