"""`TimedLoad`: a force and moment (global or body frame, at a point or the CG) times a
signal s(t): 1, a step at t₀, A sin(2π f (t − t₀) + φ) from t₀, or a table (linear between
its points, held outside). External work: it stores nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from ..layout import P_R_CG
from ..params import Bodies
from ..quaternion import Array
from .geometry import moment, turn
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "b02755572375ad91"

NAME = "load"
CODE = 5.0  # its E_KIND
# its row (E_DATA + …): frame (0 global, 1 body), has a point, point (3), F (3), M (3),
# signal, t0, A, f, phase, table (aux offset of its (time, value) pairs, count)
EL_FRAME, EL_HAS_POINT, EL_POINT, EL_F, EL_M = 3, 4, 5, 8, 11
EL_SIGNAL, EL_T0, EL_AMP, EL_FREQ, EL_PHASE, EL_TABLE, EL_TABLE_N = 14, 15, 16, 17, 18, 19, 20
AUX_COLUMNS = (EL_TABLE,)
S_CONSTANT, S_STEP, S_SINE, S_TABLE = 0.0, 1.0, 2.0, 3.0  # signal codes
SIGNALS = {"constant": S_CONSTANT, "step": S_STEP, "sine": S_SINE, "table": S_TABLE}
#: A switch within SWITCH_SNAP · h of a stage time is taken to be at that time: a start on
#: the step grid stays on it though t0 + s h and an accumulated room time round.
SWITCH_SNAP = 1e-6
Vec3 = tuple[float, float, float]
Signal = Literal["constant", "step", "sine", "table"]


@dataclass(frozen=True)
class TimedLoad:
    body: int
    force: Vec3 = (0.0, 0.0, 0.0)
    moment: Vec3 = (0.0, 0.0, 0.0)
    frame: Literal["global", "body"] = "global"
    point: Vec3 | None = None  # None: at the CG
    signal: Signal = "constant"
    start: float = 0.0
    amplitude: float = 1.0
    frequency: float = 0.0
    phase: float = 0.0
    table: tuple[tuple[float, float], ...] = field(default=())


ELEMENT = TimedLoad  # the dataclass it is given as


def pack(e: TimedLoad, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row, a table's pairs into aux."""
    row[EL_FRAME] = 1.0 if e.frame == "body" else 0.0
    row[EL_HAS_POINT] = 0.0 if e.point is None else 1.0
    row[EL_POINT : EL_POINT + 3] = (0.0, 0.0, 0.0) if e.point is None else e.point
    row[EL_F : EL_F + 3] = e.force
    row[EL_M : EL_M + 3] = e.moment
    row[EL_SIGNAL] = SIGNALS[e.signal]
    row[EL_T0], row[EL_AMP], row[EL_FREQ], row[EL_PHASE] = (
        e.start,
        e.amplitude,
        e.frequency,
        e.phase,
    )
    if e.signal == "table":
        row[EL_TABLE], row[EL_TABLE_N] = len(aux), len(e.table)
        for t, v in e.table:
            aux.extend((t, v))


stored = None  # external work


@kernel
def signal(el, e, aux, t, h, left):
    """The scalar factor of a timed load at time t: 1, a step, a sine or a table. A step or
    a sine switches on at t0; `left` (the stage at the end of a step) takes the value just
    before t, the other stages the value at t, so a switch on the step grid falls between
    two steps and RK4 keeps its order (a switch inside a step costs it, as any jump does)."""
    kind = el[e, EL_SIGNAL]
    t0 = el[e, EL_T0]
    if kind == S_STEP or kind == S_SINE:
        snap = SWITCH_SNAP * h
        on = t > t0 + snap if left else t >= t0 - snap
        if not on:
            return 0.0
        if kind == S_STEP:
            return 1.0
        return el[e, EL_AMP] * math.sin(2.0 * math.pi * el[e, EL_FREQ] * (t - t0) + el[e, EL_PHASE])
    if kind == S_TABLE:  # (time, value) pairs in aux, linear between them, held outside
        start = int(el[e, EL_TABLE])
        count = int(el[e, EL_TABLE_N])
        if t <= aux[start]:
            return aux[start + 1]
        last = start + 2 * (count - 1)
        if t >= aux[last]:
            return aux[last + 1]
        lo = 0
        hi = count - 1
        while hi - lo > 1:  # bisection: tables may be long
            mid = (lo + hi) // 2
            if aux[start + 2 * mid] <= t:
                lo = mid
            else:
                hi = mid
        ta = aux[start + 2 * lo]
        tb = aux[start + 2 * hi]
        va = aux[start + 2 * lo + 1]
        vb = aux[start + 2 * hi + 1]
        return va + (vb - va) * (t - ta) / (tb - ta)
    return 1.0


@kernel
def force(p, el, e, aux, i, y, r, t, h, left):
    """A timed load's global force and moment about body i's CG, and its world point."""
    s = signal(el, e, aux, t, h, left)
    fx = s * el[e, EL_F]
    fy = s * el[e, EL_F + 1]
    fz = s * el[e, EL_F + 2]
    mx = s * el[e, EL_M]
    my = s * el[e, EL_M + 1]
    mz = s * el[e, EL_M + 2]
    if el[e, EL_FRAME] != 0.0:  # body frame: turns with the body
        fx, fy, fz = turn(r, fx, fy, fz)
        mx, my, mz = turn(r, mx, my, mz)
    if el[e, EL_HAS_POINT] != 0.0:
        px = el[e, EL_POINT]
        py = el[e, EL_POINT + 1]
        pz = el[e, EL_POINT + 2]
        ax, ay, az = moment(p, i, r, px, py, pz, fx, fy, fz)
        mx += ax
        my += ay
        mz += az
    else:
        px = p[i, P_R_CG]
        py = p[i, P_R_CG + 1]
        pz = p[i, P_R_CG + 2]
    gx, gy, gz = turn(r, px, py, pz)
    return fx, fy, fz, mx, my, mz, y[0] + gx, y[1] + gy, y[2] + gz


@kernel(inline=True)
def act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """Its force and moment on body i (global, about the CG) and its world point."""
    c = force(p, el, e, aux, i, y, r, t, h, left)
    return c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[6], c[7], c[8]
