"""Compiling, or loading from numba's on-disk cache, every kernel signature the engine calls
(kernel.py's wrappers, the elements' kernels, a floating body's hull), before the first step.

The kernels come in groups (`GROUPS`) that can be compiled in separate processes, as
`sixdof warm` and a server's cold start do (simulation/warming.py): the free bodies' first
(all a room of free bodies calls), the elements' derivative beside them, then a hull's and
the elements' stepping kernel. Groups share compiled functions (the
steps the free bodies' and the elements' kernels both call), and numba updates a function's
index of signatures without a lock: the workers take one (warming.py says why). `after`
names the groups whose functions a group calls, when compiling them once, first, costs less
than waiting for them.

Apart from kernel.py (which re-exports `warm_up`): the wrappers need none of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .layout import ELEMENT_SIZE, LOAD_SIZE, P_MASS, P_MASS_INV, PARAM_SIZE, RECORD_SIZE
from .quaternion import Array, IntArray
from .sizes import INPUT_SIZE, STATE_SIZE

#: Told the name of each kernel as it is ready (a progress bar counts them).
Done = Callable[[str], None]


@dataclass(frozen=True)
class Group:
    """Kernels compiled together, in one process: `target` ("module:function", called with a
    `Done`) compiles `kernels` in that order, once the groups named in `after` are done."""

    name: str
    kernels: tuple[str, ...]
    target: str
    after: tuple[str, ...] = ()


def _bodies() -> tuple[Array, Array, Array]:
    """Two unit bodies at rest: parameter rows, states and load rows."""
    p = np.zeros((2, PARAM_SIZE))
    p[:, P_MASS] = 1.0
    p[:, P_MASS_INV] = p[:, P_MASS_INV + 7] = p[:, P_MASS_INV + 14] = 1.0
    p[:, P_MASS_INV + 21] = p[:, P_MASS_INV + 28] = p[:, P_MASS_INV + 35] = 1.0
    x = np.zeros((2, STATE_SIZE))
    x[:, 3] = 1.0
    return p, x, np.zeros((2, LOAD_SIZE))


def warm_free(done: Done) -> None:
    """The free bodies' kernels (`FREE.kernels`): every call kernel.py's wrappers make."""
    from . import kernel_compiled as k  # numba (~0.3 s) with the first call, not at import

    p, x, u = _bodies()
    each_h, each_n, each_m = np.full(2, 1e-3), np.ones(2, dtype=np.int64), np.ones(2, np.int64)
    spans_h, spans_n = np.full(1, 1e-3), np.ones(1, dtype=np.int64)
    out = np.empty((1, 2, STATE_SIZE))
    calls: dict[str, Callable[[], object]] = {
        "_derivative_batch": lambda: k._derivative_batch(p, x, u, np.empty_like(x)),
        "_applied_batch": lambda: k._applied_batch(u, x, np.empty((2, INPUT_SIZE))),
        "_spans_serial": lambda: k._spans_serial(p, x, u, spans_h, spans_n, 1, out),
        "_uniform_serial": lambda: k._uniform_serial(p, x, u, 1e-3, 1, 1),
        "_each_serial": lambda: k._each_serial(p, x, u, each_h, each_n, each_m),
        "_spans_parallel": lambda: k._spans_parallel(p, x, u, spans_h, spans_n, 1, out),
        "_uniform_parallel": lambda: k._uniform_parallel(p, x, u, 1e-3, 1, 1),
        "_each_parallel": lambda: k._each_parallel(p, x, u, each_h, each_n, each_m),
    }
    for name in FREE.kernels:
        calls[name]()
        done(name)


def warm_hull(done: Done) -> None:
    """A floating body's submerged volume (stored energy and hydrostatics, every tick)."""
    tetra = np.array([[[0, 0, 0], [0, 1, 0], [1, 0, 0]], [[0, 0, 0], [0, 0, 1], [0, 1, 0]],
                      [[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]],
                     dtype=float)  # fmt: skip
    from .hull_submerged import submerged

    submerged(tetra, np.eye(3), np.zeros(3), 0.5)
    done("submerged")


def _elements() -> tuple[IntArray, Array, IntArray, Array]:
    """A spring joining two bodies and a pivot: groups, rows, bounds and aux arrays."""
    groups = np.array([[0, 2]], dtype=np.int64)
    return groups, np.zeros((1, ELEMENT_SIZE)), np.array([0, 1], dtype=np.int64), np.zeros(0)


def _serial_arguments() -> tuple[Array | IntArray, ...]:
    """Arguments of `system_serial`: two bodies, a spring and a pivot, one step each."""
    p, x, u = _bodies()
    h, n, m = np.full(2, 1e-3), np.ones(2, dtype=np.int64), np.ones(2, dtype=np.int64)
    z, zb = np.zeros(0), np.zeros(2, dtype=np.int64)
    return (p, x, u, *_elements(), np.zeros(2), h, n, m, z, zb)


def warm_system_serial(done: Done) -> None:
    """The elements' stepping kernel (bodies with elements, every live step)."""
    from . import system_compiled as s

    s.system_serial(*_serial_arguments())
    done("system_serial")


def _warm_part(name: str, done: Done) -> None:
    """Compile the part `name` of the stepping kernel (parts_compiled.py) into numba's cache,
    unless the stepping kernel is there already (then it needs none of its parts)."""
    from .kernel_cache import holds

    if not holds(SYSTEM_SOURCE, "system_serial"):
        from . import parts_compiled as parts

        parts.compile_part(getattr(parts, name), *_serial_arguments())
    done(name)


def warm_tree_run(done: Done) -> None:
    """A tree of hinges' steps (tree_run_compiled.run), for the stepping kernel."""
    _warm_part("tree_run", done)


def warm_run_one(done: Done) -> None:
    """A body alone's steps with its elements (`_run_one`), for the stepping kernel."""
    _warm_part("run_one", done)


def warm_group_run(done: Done) -> None:
    """A group's steps (`_group_run`), for the stepping kernel."""
    _warm_part("group_run", done)


def warm_system_derivative(done: Done) -> None:
    """The elements' derivative and records (a frame's element table, the stored energy), and
    the joints' gaps."""
    from . import system_compiled as s

    p, x, u = _bodies()
    z, zb = np.zeros(0), np.zeros(2, dtype=np.int64)
    for records in (np.zeros((1, RECORD_SIZE)), np.empty((0, RECORD_SIZE))):
        s.system_derivative(
            p, x, u, *_elements(), 0.0, 1e-3, np.empty_like(x), records, z, zb, np.zeros(0)
        )
    groups, rows, bounds, _ = _elements()
    s.joints.gaps(rows, groups, bounds, x, np.zeros((1, 2)))
    done("system_derivative")


FREE = Group(
    "free",
    ("_derivative_batch", "_applied_batch", "_spans_serial", "_spans_parallel",
     "_uniform_serial", "_uniform_parallel", "_each_serial", "_each_parallel"),
    f"{__name__}:warm_free",
)  # fmt: skip
HULL = Group("hull", ("submerged",), f"{__name__}:warm_hull")
SYSTEM_SOURCE = Path(__file__).with_name("system_compiled.py")
#: The elements' two kernels: the derivative (~45 s of a core on a cold cache) and the
#: stepping kernel (~86 s), which compiles last, once its three largest parts, which do not
#: call one another, are in the cache (`SYSTEM_PARTS`), each compiled beside other work; the
#: part that shares the derivative's largest function (`_group_derivative`) after it.
SYSTEM = (
    Group("system_derivative", ("system_derivative",), f"{__name__}:warm_system_derivative"),
    Group("system_serial", ("system_serial",), f"{__name__}:warm_system_serial",
          ("tree_run", "run_one", "group_run")),
)  # fmt: skip
SYSTEM_PARTS = (
    Group("tree_run", ("tree_run",), f"{__name__}:warm_tree_run"),
    Group("run_one", ("run_one",), f"{__name__}:warm_run_one"),
    Group("group_run", ("group_run",), f"{__name__}:warm_group_run", ("system_derivative",)),
)

#: What a live simulation calls, in the order the workers take them (two cores: the free
#: bodies' kernels and the elements' derivative at once, then the stepping kernel's parts
#: beside each other): a room of free bodies needs `FREE`.
GROUPS: tuple[Group, ...] = (FREE, SYSTEM[0], SYSTEM_PARTS[0], HULL, *SYSTEM_PARTS[1:], SYSTEM[1])


def run_group(group: Group, done: Done) -> None:
    """Compile (or load) `group`'s kernels in this process."""
    import importlib

    module, function = group.target.split(":")
    getattr(importlib.import_module(module), function)(done)


def warm_up(names: Iterable[str] | None = None) -> float:
    """Compile, or load from numba's cache, the kernels of the groups `names` (all of
    `GROUPS` by default) in this process, in `GROUPS`' order; return the seconds taken.

    Call it at start-up (server, benchmark) so the first real step is not slow.
    """
    start = time.perf_counter()
    wanted = {g.name for g in GROUPS} if names is None else set(names)
    for group in GROUPS:
        if group.name in wanted:
            run_group(group, lambda _name: None)
    return time.perf_counter() - start


__all__ = [
    "FREE", "GROUPS", "HULL", "SYSTEM", "SYSTEM_PARTS", "Done", "Group", "run_group", "warm_up",
]  # fmt: skip
