"""`Controller`: a force and moment at the CG that a control law computes from the body's
state and states of its own, integrated with the bodies at every stage (layout.E_STATES).

`pid` (n = 6 states, the integral of the error per axis j of its frame):

    e = (p_t − p,  θ(q, q_t)),   v = (ṗ, ω)        (frame "global"; "body": Rᵀ of each)
    u_j = sat_j(kp_j e_j + ki_j z_j − kd_j v_j),    sat_j(s) = max(−L_j, min(L_j, s))
    ż_j = e_j, except 0 while u_j is saturated and e_j drives it further (anti-windup:
          conditional integration)

with θ the attitude error as a rotation vector, 2 sgn(η) ε of q_e = q⁻¹ ⊗ q_t (body axes;
exact for small errors), and (F, M) = u in the global frame (R u for "body"). The
derivative term acts on the velocity, not on the error's rate: a moved target does not kick.

`linear_system` (FhSim's Math/LinearSystem, n states x):

    ẋ = A x + B w,   y = C x + D w,   w_k = signal_k(state) − reference_k

with each output y_l added to one of the global Force/Moment components. The signals
(`SIGNALS`) are the body's outputs computed from the stage state. A controller stores no
energy (external work).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..layout import E_N_STATES, E_STATES, P_R_CG
from ..params import Bodies
from ..quaternion import Array
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "88572cdb05a540bb"

NAME = "controller"
CODE = 9.0  # its E_KIND
# its row (E_DATA + …): type (0 pid, 1 linear system), the aux offset of its numbers, and a
# linear system's input and output counts
EC_TYPE, EC_AUX, EC_NI, EC_NO = 3, 4, 5, 6
AUX_COLUMNS = (EC_AUX,)
PID, LINEAR = 0.0, 1.0
# a pid's numbers in aux (from EC_AUX): target Pos (3), target Quater (4), kp, ki, kd,
# limit (6 each), frame (1 body, 0 global), anti-windup (1 on)
A_POS, A_QUAT, A_KP, A_KI, A_KD, A_LIMIT, A_FRAME, A_WINDUP = 0, 3, 7, 13, 19, 25, 31, 32
PID_STATES = 6

#: What a linear system reads, by name: the body's outputs at the stage state (Vel and the
#: Euler angles as docs/physics.md section 6 defines them).
SIGNALS: tuple[str, ...] = (
    "Pos.x", "Pos.y", "Pos.z", "Vel.x", "Vel.y", "Vel.z",
    "Quater.w", "Quater.x", "Quater.y", "Quater.z",
    "LocalVel.x", "LocalVel.y", "LocalVel.z", "AngVel.x", "AngVel.y", "AngVel.z",
    "Roll", "Pitch", "Yaw",
)  # fmt: skip
#: Where a linear system's outputs go: the body's global Force and Moment components.
CHANNELS: tuple[str, ...] = (
    "Force.x", "Force.y", "Force.z", "Moment.x", "Moment.y", "Moment.z",
)  # fmt: skip
Vec6 = tuple[float, float, float, float, float, float]
Matrix = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Controller:
    body: int
    type: Literal["pid", "linear_system"] = "pid"
    # pid
    target_pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    target_quat: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    kp: Vec6 = (0.0,) * 6
    ki: Vec6 = (0.0,) * 6
    kd: Vec6 = (0.0,) * 6
    limit: Vec6 = (math.inf,) * 6
    frame: Literal["global", "body"] = "global"
    anti_windup: bool = True
    # linear system
    a: Matrix = ()
    b: Matrix = ()
    c: Matrix = ()
    d: Matrix = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    reference: tuple[float, ...] = ()
    # initial states (a pid's integral, a linear system's x); empty: zeros
    initial: tuple[float, ...] = field(default=())

    @property
    def n_states(self) -> int:
        return PID_STATES if self.type == "pid" else len(self.a)


ELEMENT = Controller  # the dataclass it is given as


def states(e: Controller) -> Array:
    """Its initial states (the layout.E_N_STATES it carries)."""
    z = np.zeros(e.n_states)
    if e.initial:
        z[:] = e.initial
    return z


def pack(e: Controller, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into aux, the offset and counts into its row (E_STATES is the packer's)."""
    row[EC_AUX] = len(aux)
    row[E_N_STATES] = e.n_states
    if e.type == "pid":
        row[EC_TYPE] = PID
        q = np.asarray(e.target_quat, dtype=float)
        aux.extend([*e.target_pos, *(q / np.linalg.norm(q)).tolist()])
        aux.extend([*e.kp, *e.ki, *e.kd, *e.limit])
        aux.extend([1.0 if e.frame == "body" else 0.0, 1.0 if e.anti_windup else 0.0])
        return
    row[EC_TYPE] = LINEAR
    row[EC_NI], row[EC_NO] = len(e.inputs), len(e.outputs)
    for m in (e.a, e.b, e.c, e.d):
        aux.extend(np.asarray(m, dtype=float).ravel().tolist())
    aux.extend(float(SIGNALS.index(s)) for s in e.inputs)
    aux.extend(float(v) for v in (e.reference or (0.0,) * len(e.inputs)))
    aux.extend(float(CHANNELS.index(s)) for s in e.outputs)


stored = None  # external work: it stores nothing


@kernel(inline=True)
def _zget(W, base, k):
    """State k of a group's block: its states follow its `base` body rows of W, 13 a row."""
    return W[base + k // 13, k % 13]


@kernel(inline=True)
def _zset(K, base, k, v):
    K[base + k // 13, k % 13] = v


@kernel
def _signal(code, y, r):
    """SIGNALS[code] at state y (rotation r)."""
    c = int(code)
    if c < 3:
        return y[c]
    if c < 6:  # Vel = R v
        j = 3 * (c - 3)
        return r[j] * y[7] + r[j + 1] * y[8] + r[j + 2] * y[9]
    if c < 16:  # Quater, LocalVel, AngVel
        return y[c - 3]
    if c == 16:  # roll, z-y-x
        return math.atan2(r[7], r[8])
    if c == 17:
        return math.asin(max(-1.0, min(1.0, -r[6])))
    return math.atan2(r[3], r[0])


@kernel
def _attitude_error(y, aux, a):
    """θ (body axes): 2 sgn(η) ε of q_e = q⁻¹ ⊗ q_t, q normalised."""
    s = 1.0 / math.sqrt(y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6])
    aw, ax, ay, az = y[3] * s, -y[4] * s, -y[5] * s, -y[6] * s
    bw = aux[a + A_QUAT]
    bx = aux[a + A_QUAT + 1]
    by = aux[a + A_QUAT + 2]
    bz = aux[a + A_QUAT + 3]
    ew = aw * bw - ax * bx - ay * by - az * bz
    ex = aw * bx + ax * bw + ay * bz - az * by
    ey = aw * by - ax * bz + ay * bw + az * bx
    ez = aw * bz + ax * by - ay * bx + az * bw
    g = 2.0 if ew >= 0.0 else -2.0
    return g * ex, g * ey, g * ez


@kernel
def _pid(el, e, aux, y, r, W, base, K):
    """A pid's (F, M) (global, at the CG); its rates into K when K has rows."""
    a = int(el[e, EC_AUX])
    k0 = int(el[e, E_STATES])
    body = aux[a + A_FRAME] != 0.0
    tx, ty, tz = _attitude_error(y, aux, a)
    dx = aux[a + A_POS] - y[0]
    dy = aux[a + A_POS + 1] - y[1]
    dz = aux[a + A_POS + 2] - y[2]
    vx = r[0] * y[7] + r[1] * y[8] + r[2] * y[9]
    vy = r[3] * y[7] + r[4] * y[8] + r[5] * y[9]
    vz = r[6] * y[7] + r[7] * y[8] + r[8] * y[9]
    if body:  # position error and velocity in body axes; θ and ω are body axes already
        err = (
            r[0] * dx + r[3] * dy + r[6] * dz,
            r[1] * dx + r[4] * dy + r[7] * dz,
            r[2] * dx + r[5] * dy + r[8] * dz,
            tx, ty, tz,
        )  # fmt: skip
        vel = (y[7], y[8], y[9], y[10], y[11], y[12])
    else:
        err = (
            dx, dy, dz,
            r[0] * tx + r[1] * ty + r[2] * tz,
            r[3] * tx + r[4] * ty + r[5] * tz,
            r[6] * tx + r[7] * ty + r[8] * tz,
        )  # fmt: skip
        wx, wy, wz = y[10], y[11], y[12]
        vel = (
            vx, vy, vz,
            r[0] * wx + r[1] * wy + r[2] * wz,
            r[3] * wx + r[4] * wy + r[5] * wz,
            r[6] * wx + r[7] * wy + r[8] * wz,
        )  # fmt: skip
    windup = aux[a + A_WINDUP] != 0.0
    out = np.empty(6)
    for j in range(6):
        s = (
            aux[a + A_KP + j] * err[j]
            + aux[a + A_KI + j] * _zget(W, base, k0 + j)
            - aux[a + A_KD + j] * vel[j]
        )
        lim = aux[a + A_LIMIT + j]
        u = max(-lim, min(lim, s))
        out[j] = u
        if K.shape[0] > 0:
            held = windup and u != s and (s > 0.0) == (err[j] > 0.0)
            _zset(K, base, k0 + j, 0.0 if held else err[j])
    if body:
        return (
            r[0] * out[0] + r[1] * out[1] + r[2] * out[2],
            r[3] * out[0] + r[4] * out[1] + r[5] * out[2],
            r[6] * out[0] + r[7] * out[1] + r[8] * out[2],
            r[0] * out[3] + r[1] * out[4] + r[2] * out[5],
            r[3] * out[3] + r[4] * out[4] + r[5] * out[5],
            r[6] * out[3] + r[7] * out[4] + r[8] * out[5],
        )
    return out[0], out[1], out[2], out[3], out[4], out[5]


@kernel
def _linear(el, e, aux, y, r, W, base, K):
    """A linear system's (F, M) (global, at the CG); its rates ẋ = A x + B w into K."""
    a = int(el[e, EC_AUX])
    k0 = int(el[e, E_STATES])
    n = int(el[e, E_N_STATES])
    ni = int(el[e, EC_NI])
    no = int(el[e, EC_NO])
    ob = a + n * n  # B
    oc = ob + n * ni  # C
    od = oc + no * n  # D
    osig = od + no * ni
    oref = osig + ni
    ochan = oref + ni
    w = np.empty(ni)
    for k in range(ni):
        w[k] = _signal(aux[osig + k], y, r) - aux[oref + k]
    if K.shape[0] > 0:
        for j in range(n):
            s = 0.0
            for m in range(n):
                s += aux[a + j * n + m] * _zget(W, base, k0 + m)
            for k in range(ni):
                s += aux[ob + j * ni + k] * w[k]
            _zset(K, base, k0 + j, s)
    out = np.zeros(6)
    for j in range(no):
        s = 0.0
        for m in range(n):
            s += aux[oc + j * n + m] * _zget(W, base, k0 + m)
        for k in range(ni):
            s += aux[od + j * ni + k] * w[k]
        out[int(aux[ochan + j])] += s
    return out[0], out[1], out[2], out[3], out[4], out[5]


@kernel
def act_states(p, el, e, aux, i, y, r, W, base, K):
    """Its force and moment on body i (global, about the CG), its point and its other end
    (the CG); with its states read from the group's stage rows W after `base` body rows,
    and their rates written to K's (when K has rows)."""
    if el[e, EC_TYPE] == PID:
        c = _pid(el, e, aux, y, r, W, base, K)
    else:
        c = _linear(el, e, aux, y, r, W, base, K)
    gx = r[0] * p[i, P_R_CG] + r[1] * p[i, P_R_CG + 1] + r[2] * p[i, P_R_CG + 2]
    gy = r[3] * p[i, P_R_CG] + r[4] * p[i, P_R_CG + 1] + r[5] * p[i, P_R_CG + 2]
    gz = r[6] * p[i, P_R_CG] + r[7] * p[i, P_R_CG + 1] + r[8] * p[i, P_R_CG + 2]
    px, py, pz = y[0] + gx, y[1] + gy, y[2] + gz
    return c[0], c[1], c[2], c[3], c[4], c[5], px, py, pz, px, py, pz
