"""The one fixed-step stage sequence of the compiled kernels: explicit Euler and classic RK4,
from `methods`' tableaux, for every path (a free body, a turning load, a pivot, a spring, the
general element loop, a group of bodies stepped together).

    k_s = f(y + h Σ_j a_sj k_j, t + c_s h),    y ← y + h Σ_s b_s k_s

`rk_step(f, p, u, el, aux, args, y, t, h, method, ws)` takes the derivative f as an
argument. numba types each jitted function as its own type, so a caller compiles (and caches)
one specialisation per derivative; `rk_step` is inlined into its caller and f, when it is
`inline="always"`, into `rk_step`, so a pivot or spring path compiles to the straight code it
had written out by hand. f is called as `f(p, u, el, aux, args, y_stage, t_stage, h, left,
ws, s)`: the arrays travel as arguments of their own (a tuple of arrays, unpacked at every
stage, cost reference counts: a damped body's step was ~7 % slower), `args` holds the rest;
`left` is True for the stage at the step's end (a timed load takes the value just before a
switch there), and s (1…4) names the slot of `ws` an array-valued derivative writes k_s into.

The state y is a 13-tuple (one body, kept in registers; ws is None) or an (n, 13) array (a
group, advanced in place; ws = (stage scratch, k1, k2, k3, k4), each (n, 13)). The stage and
update arithmetic is the same, term by term, for both, and the same as `integrators.rk_step`
(0.5 h k = h (0.5 k) exactly), so every path gives the same bits as the others and as the
Python integrators.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

from .methods import EULER, RK4

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "96c66001dff99289"

# The classic RK4 tableau has one nonzero a_sj per stage, on the subdiagonal: the sequence
# below reads only those, and says so here rather than silently ignoring a changed tableau.
assert np.count_nonzero(RK4.a) == 3 and np.all(np.diag(RK4.a, -1) != 0.0)
assert EULER.b[0] == 1.0 and EULER.c[0] == 0.0
_A21 = float(RK4.a[1, 0])
_A32 = float(RK4.a[2, 1])
_A43 = float(RK4.a[3, 2])
_C2 = float(RK4.c[1])
_C3 = float(RK4.c[2])
_C4 = float(RK4.c[3])
_B1 = float(RK4.b[0])
_B2 = float(RK4.b[1])
_B3 = float(RK4.b[2])
_B4 = float(RK4.b[3])

_JIT: Any = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}

#: `left`'s two values. A callee that is not inlined is compiled once per literal value it is
#: passed, so the kernels pass `bool(EARLY)`, `bool(LATE)`: numba types `bool()` of a constant
#: as a plain bool (passed as literals, the element loop and each kind's force were compiled
#: twice, ~12 % of a cold `sixdof warm`).
EARLY, LATE = False, True


@njit(inline="always", **_JIT)
def rk_step(f, p, u, el, aux, args, y, t, h, method, ws):
    """One step of h from (t, y): explicit Euler (method 0) or classic RK4 (1); the new state
    (a tuple, or the array y updated in place)."""
    early, late = bool(EARLY), bool(LATE)  # plain bools (EARLY says why)
    k1 = f(p, u, el, aux, args, y, t, h, early, ws, 1)
    if method == 0:
        return _update1(y, h, k1)
    k2 = f(p, u, el, aux, args, _stage(y, _A21 * h, k1, ws), t + _C2 * h, h, early, ws, 2)
    k3 = f(p, u, el, aux, args, _stage(y, _A32 * h, k2, ws), t + _C3 * h, h, early, ws, 3)
    k4 = f(p, u, el, aux, args, _stage(y, _A43 * h, k3, ws), t + _C4 * h, h, late, ws, 4)
    return _update4(y, h, k1, k2, k3, k4)


@njit(inline="always", **_JIT)
def rk_step_apart(f, p, u, el, aux, args, y, t, h, method, ws):
    """`rk_step` with the method decided before the first stage (each branch inlines the one
    sequence with its method a constant), for a derivative that is a call of its own (a free
    body's): with the branch between k1 and k2, numba kept reference counts of p and u between
    the stages, a free body's step 136 ns against 124 when its step was written out, 127 so.
    The element paths, whose derivatives are inlined, keep `rk_step`: decided first, their
    first stage would be compiled twice (their cold compile ~10 % longer)."""
    if method == 0:
        return rk_step(f, p, u, el, aux, args, y, t, h, 0, ws)
    return rk_step(f, p, u, el, aux, args, y, t, h, 1, ws)


@njit(**_JIT)
def axpy(y, h, k):
    """y + h k for 13-tuples."""
    return (
        y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2], y[3] + h * k[3],
        y[4] + h * k[4], y[5] + h * k[5], y[6] + h * k[6], y[7] + h * k[7],
        y[8] + h * k[8], y[9] + h * k[9], y[10] + h * k[10], y[11] + h * k[11],
        y[12] + h * k[12],
    )  # fmt: skip


@njit(**_JIT)
def rk4_sum(y, h, a, b, c, d):
    """y + h (b₁ a + b₂ b + b₃ c + b₄ d) for 13-tuples: the RK4 update."""
    return (
        y[0] + h * (_B1 * a[0] + _B2 * b[0] + _B3 * c[0] + _B4 * d[0]),
        y[1] + h * (_B1 * a[1] + _B2 * b[1] + _B3 * c[1] + _B4 * d[1]),
        y[2] + h * (_B1 * a[2] + _B2 * b[2] + _B3 * c[2] + _B4 * d[2]),
        y[3] + h * (_B1 * a[3] + _B2 * b[3] + _B3 * c[3] + _B4 * d[3]),
        y[4] + h * (_B1 * a[4] + _B2 * b[4] + _B3 * c[4] + _B4 * d[4]),
        y[5] + h * (_B1 * a[5] + _B2 * b[5] + _B3 * c[5] + _B4 * d[5]),
        y[6] + h * (_B1 * a[6] + _B2 * b[6] + _B3 * c[6] + _B4 * d[6]),
        y[7] + h * (_B1 * a[7] + _B2 * b[7] + _B3 * c[7] + _B4 * d[7]),
        y[8] + h * (_B1 * a[8] + _B2 * b[8] + _B3 * c[8] + _B4 * d[8]),
        y[9] + h * (_B1 * a[9] + _B2 * b[9] + _B3 * c[9] + _B4 * d[9]),
        y[10] + h * (_B1 * a[10] + _B2 * b[10] + _B3 * c[10] + _B4 * d[10]),
        y[11] + h * (_B1 * a[11] + _B2 * b[11] + _B3 * c[11] + _B4 * d[11]),
        y[12] + h * (_B1 * a[12] + _B2 * b[12] + _B3 * c[12] + _B4 * d[12]),
    )


@njit(**_JIT)
def load(row):
    """A state row (13,) as a 13-tuple: the hot paths keep it in registers."""
    return (
        row[0], row[1], row[2], row[3], row[4], row[5], row[6],
        row[7], row[8], row[9], row[10], row[11], row[12],
    )  # fmt: skip


@njit(**_JIT)
def store(row, y):
    """row (13,) ← the 13-tuple y."""
    row[0] = y[0]
    row[1] = y[1]
    row[2] = y[2]
    row[3] = y[3]
    row[4] = y[4]
    row[5] = y[5]
    row[6] = y[6]
    row[7] = y[7]
    row[8] = y[8]
    row[9] = y[9]
    row[10] = y[10]
    row[11] = y[11]
    row[12] = y[12]


@njit(**_JIT)
def add6(a, b):
    """a + b for 6-tuples (a force and a moment), in the order the sums were always taken."""
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]


# The three operations of a step on either kind of state: a tuple (one body) or an (n, 13)
# array (a group, in place). Overloads of these stubs, so rk_step is written once for both.
def _stage(y, a, k, ws):
    """y + a k: a stage's state (an array one in ws[0])."""


def _update1(y, h, k):
    """y + h k: Euler's new state."""


def _update4(y, h, k1, k2, k3, k4):
    """The RK4 update: the new state."""


@overload(_stage, inline="always", jit_options=_JIT)
def _stage_impl(y, a, k, ws):
    if isinstance(y, types.BaseTuple):
        return lambda y, a, k, ws: axpy(y, a, k)

    def in_scratch(y, a, k, ws):
        s = ws[0]
        for b in range(y.shape[0]):
            for j in range(13):
                s[b, j] = y[b, j] + a * k[b, j]
        return s

    return in_scratch


@overload(_update1, inline="always", jit_options=_JIT)
def _update1_impl(y, h, k):
    if isinstance(y, types.BaseTuple):
        return lambda y, h, k: axpy(y, h, k)

    def in_place(y, h, k):
        for b in range(y.shape[0]):
            for j in range(13):
                y[b, j] += h * k[b, j]
        return y

    return in_place


@overload(_update4, inline="always", jit_options=_JIT)
def _update4_impl(y, h, k1, k2, k3, k4):
    if isinstance(y, types.BaseTuple):
        return lambda y, h, k1, k2, k3, k4: rk4_sum(y, h, k1, k2, k3, k4)

    def in_place(y, h, k1, k2, k3, k4):
        for b in range(y.shape[0]):
            for j in range(13):
                y[b, j] += h * (_B1 * k1[b, j] + _B2 * k2[b, j] + _B3 * k3[b, j] + _B4 * k4[b, j])
        return y

    return in_place
