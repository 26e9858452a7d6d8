"""A body alone in its group with nothing, a pivot alone or one world spring alone: the
commonest cases, stepped as straight code that keeps the state in registers (as
kernel_compiled does), apart from the general element loop of `system_compiled`.
"""

from __future__ import annotations

from typing import Any

from .kernel_compiled import _applied, _rigid_body, _step, _step_turning, njit
from .kinds import geometry, pivot, spring
from .kinds.jit import compile_kinds
from .kinds.table import COMPILED
from .stepper_compiled import rk_step

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "c8851cf59edac0d3"

compile_kinds(COMPILED)  # the twins below are made from the kinds' compiled functions


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _loads(u, i, y, turning):
    """Load row u[i] at state y (13-tuple): global (F_n, M_n) about the CG; `turning`: the
    row has state-dependent parts (decided once per run, as kernel_compiled does)."""
    if turning:
        return _applied(u, i, y)
    return u[i, 0], u[i, 1], u[i, 2], u[i, 3], u[i, 4], u[i, 5]


# The two commonest elements, a pivot or one world spring alone on a body, step as straight
# code: their derivative is inlined into the step, as kernel_compiled inlines _rigid_body
# (a pivot 254 → 130 ns a step, a spring 252 → 190 ns; a free body ~105 ns). Inlined twins,
# not inline="always" on the originals, so the general paths keep their calls and compile
# as fast as before.
_TWIN: Any = {"fastmath": False, "error_model": "numpy", "inline": "always"}
_pivot_body_inline = njit(**_TWIN)(pivot.derivative.py_func)
_spring_inline = njit(**_TWIN)(spring.force.py_func)
_moment_inline = njit(**_TWIN)(geometry.moment.py_func)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _pivot_stage(p, u, el, aux, args, y, t, h, left, ws, s):
    """ẋ of a body held by a pivot and nothing else (a pendulum, a top)."""
    i, row, turning = args
    fx, fy, fz, mx, my, mz = _loads(u, i, y, turning)
    return _pivot_body_inline(p, i, row, y, fx, fy, fz, mx, my, mz)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_pivot(p, u, i, row, turning, y, h, method):
    """`_step_one` for a body held by a pivot and nothing else, kept back on it."""
    return pivot.held(
        row, rk_step(_pivot_stage, p, u, p, p, (i, row, turning), y, 0.0, h, method, None)
    )


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _spring_stage(p, u, el, aux, args, y, t, h, left, ws, s):
    """ẋ of a body on one spring to a world point and nothing else."""
    i, row, turning = args
    fx, fy, fz, mx, my, mz = _loads(u, i, y, turning)
    r = geometry.rotation(y)
    sx, sy, sz, _, _, _, _, _, _ = _spring_inline(row, y, r, y, r, False)
    k = spring.ES_A
    ax, ay, az = _moment_inline(p, i, r, row[k], row[k + 1], row[k + 2], sx, sy, sz)
    return _rigid_body(p, i, y, fx + sx, fy + sy, fz + sz, mx + ax, my + ay, mz + az)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_spring(p, u, i, row, turning, y, h, method):
    """`_step_one` for a body on one spring to a world point and nothing else."""
    return rk_step(_spring_stage, p, u, p, p, (i, row, turning), y, 0.0, h, method, None)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_pivot(p, u, i, row, turning, y, h, n, method):
    y = pivot.held(row, y)
    for _ in range(n):
        y = _step_pivot(p, u, i, row, turning, y, h, method)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_spring(p, u, i, row, turning, y, h, n, method):
    for _ in range(n):
        y = _step_spring(p, u, i, row, turning, y, h, method)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_free(p, u, i, turning, y, h, n, method):
    if turning:
        for _ in range(n):
            y = _step_turning(p, u, i, y, h, method)
    else:
        for _ in range(n):
            y = _step(p, u, i, y, h, method)
    return y
