"""`Joint`: body point a of body A held to a point b of body B, or to a world point (B the
world: at rest, R = E), by constraint forces (docs/physics.md, "Joint").

Each type is a set of scalar constraints C(x) = 0, one row each:

    ball    C = P_a − P_b                                  (3 rows, m)
    hinge   ball, and C_j = â · b̂_j, j = 1, 2              (5: â = R_A axis; b̂_j ⊥ it, in B)
    slider  C = θ(R_A R_0⁻¹ R_B⁻¹), C_j = (P_a − P_b) · t̂_j (5: no relative turn; t̂_j ⊥ axis, in A)
    fixed   ball, and θ(R_A R_0⁻¹ R_B⁻¹)                   (6)

with θ(R) the rotation vector of R (world) and R_0 = R_B⁻¹ R_A at the start. Per row, the
rate is linear in the bodies' velocities, Ċ = Σ_bodies (l · V_o + w · Ω) (V_o = R v the
reference point's velocity, Ω = R ω, world), and the acceleration C̈ = J ν̇ + bias, J the
row's (Rᵀ l, Rᵀ w) per body in its own coordinates ν = (v, ω); `fill` writes J and the
bias (the velocity-product terms) for the current state, `error` the position errors C,
`constraints_compiled` solves for the multipliers and projects the drift out. The
constraint forces do no work.

What a joint may add along its free coordinate q (a hinge's angle about its axis, a
slider's travel along it, both 0 where the joint starts; `coordinate`), as a generalised
force g on A (B feels −g; `drive`): a spring −k (q − rest), a damper −c q̇, and a stop at
each limit, −max(0, k_s δ + c_s δ̇) with δ how far q is past it: the ground's one-sided
spring-dashpot, k_s = GROUND_STIFFNESS_PER_KG × the coordinate's moved inertia (it rings at
141 rad/s whatever the bodies) and c_s such that a knock rebounds with the restitution e.
A ball joint's damper is −c (Ω_A − Ω_B). It stores ½ k (q − rest)² + ½ k_s δ² (`stored`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..params import Bodies
from ..quaternion import Array, to_rotmat
from ..quaternion import conjugate as quat_conjugate
from ..quaternion import multiply as quat_multiply
from .geometry import turn
from .ground import GROUND_STIFFNESS_PER_KG, damping_ratio
from .jit import kernel
from .poses import Poses

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "fc304ff4a9bb4e05"

NAME = "joint"
CODE = 8.0  # its E_KIND
TYPES = ("ball", "hinge", "slider", "fixed")
BALL, HINGE, SLIDER, FIXED = 0.0, 1.0, 2.0, 3.0  # its EJ_TYPE
ROWS = (3, 5, 5, 6)  # constraint rows of each type
# its row (E_DATA + …): type, a (3), b or the world point (3), hinge: the axis in A (3) and
# b̂_1, b̂_2 in B (6), slider: t̂_1, t̂_2 in A (6); R_0 as a quaternion (4)
EJ_TYPE, EJ_A, EJ_B, EJ_U, EJ_V, EJ_W, EJ_Q = 3, 4, 7, 10, 13, 16, 19
# then along its coordinate: damping, stiffness, rest, the limits, the stop's k_s (0: no
# limits) and c_s, and whether any of these acts
EJ_DAMP, EJ_K, EJ_REST, EJ_LO, EJ_HI, EJ_STOP_K, EJ_STOP_C, EJ_DRIVEN = (
    23,
    24,
    25,
    26,
    27,
    28,
    29,
    30,
)
AUX_COLUMNS: tuple[int, ...] = ()
# The columns of a constraint row in the solver's scratch (constraints_compiled): J on A's
# ν (6), J on B's (6), M⁻¹Jᵀ of each (12), the bias or error, the right side, the
# multiplier, A's and B's index in the group (−1: the world), the row's first nonzero column
# of J M⁻¹ Jᵀ, the row after its joint's last; that matrix and its factor follow, m columns
# each.
C_JA, C_JB, C_MA, C_MB, C_BIAS, C_RHS, C_LAM, C_A, C_B, C_FIRST, C_END = (
    0, 6, 12, 18, 24, 25, 26, 27, 28, 29, 30,
)  # fmt: skip
C_G = 31
Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


@dataclass(frozen=True)
class Joint:
    body: int
    type: str  # one of TYPES
    point: Vec3  # a, body axes from the reference point
    to: Vec3  # the world point, or the other body's point b (its axes, from its reference)
    axis: Vec3 = (0.0, 1.0, 0.0)  # a hinge's or a slider's axis, body axes
    other: int | None = None
    turn: Quat = (1.0, 0.0, 0.0, 0.0)  # R_0 = R_B⁻¹ R_A at the start (R_B = E: the world)
    damping: float = 0.0  # N·m·s/rad (hinge, ball) or N·s/m (slider)
    stiffness: float = 0.0  # N·m/rad or N/m, about `rest`
    rest: float = 0.0  # rad or m, from where the joint starts
    limits: tuple[float, float] | None = None  # [lo, hi] of the coordinate: stops
    restitution: float = 0.5  # of a knock on a stop


ELEMENT = Joint  # the dataclass it is given as


def _across(axis: Array) -> tuple[Array, Array]:
    """Two unit vectors perpendicular to the unit `axis` and to each other (right-handed)."""
    seed = np.eye(3)[int(np.argmin(np.abs(axis)))]
    one = np.cross(axis, seed)
    one /= np.linalg.norm(one)
    return one, np.cross(axis, one)


def _moved(e: Joint, bodies: Bodies) -> float:
    """The inertia its coordinate moves (kg·m² about a hinge's axis through its point, kg
    along a slider): the bodies' in series, A's alone against the world."""

    def about(i: int, point: Vec3, axis: Array) -> float:
        if e.type == "slider":
            return float(bodies.mass[i])
        r = np.asarray(point, dtype=float) - bodies.r_cg_body[i]
        inertia = bodies.inertia_cg[i] + bodies.mass[i] * (r @ r * np.eye(3) - np.outer(r, r))
        return float(axis @ inertia @ axis)

    axis = np.asarray(e.axis, dtype=float) / np.linalg.norm(e.axis)
    a = about(e.body, e.point, axis)
    if e.other is None:
        return a
    b = about(e.other, e.to, to_rotmat(np.asarray(e.turn, dtype=float)) @ axis)
    return a * b / (a + b)


def pack(e: Joint, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row (E_OTHER is the packer's)."""
    q0 = np.asarray(e.turn, dtype=float)
    q0 /= np.linalg.norm(q0)
    axis = np.asarray(e.axis, dtype=float)
    axis /= np.linalg.norm(axis)
    row[EJ_TYPE] = TYPES.index(e.type)
    row[EJ_A : EJ_A + 3] = e.point
    row[EJ_B : EJ_B + 3] = e.to
    row[EJ_Q : EJ_Q + 4] = q0
    if e.type == "hinge":  # the same line in B: R_B⁻¹ R_A axis = R_0 axis
        row[EJ_U : EJ_U + 3] = axis
        one, two = _across(to_rotmat(q0) @ axis)
        row[EJ_V : EJ_V + 3] = one
        row[EJ_W : EJ_W + 3] = two
    elif e.type == "slider":
        one, two = _across(axis)
        row[EJ_U : EJ_U + 3] = one
        row[EJ_V : EJ_V + 3] = two
    row[EJ_DAMP], row[EJ_K], row[EJ_REST] = e.damping, e.stiffness, e.rest
    if e.limits is not None:
        moved = _moved(e, bodies)
        k = GROUND_STIFFNESS_PER_KG * moved
        row[EJ_LO], row[EJ_HI] = e.limits
        row[EJ_STOP_K] = k
        row[EJ_STOP_C] = 2.0 * damping_ratio(e.restitution) * math.sqrt(k * moved)
    row[EJ_DRIVEN] = float(e.damping > 0.0 or e.stiffness > 0.0 or e.limits is not None)


def position(e: Joint, poses: Poses) -> float:
    """Its coordinate q (`coordinate`, in numpy): a hinge's angle, a slider's travel."""
    ra = poses.rot[e.body]
    axis = ra @ (np.asarray(e.axis, dtype=float) / np.linalg.norm(e.axis))
    if e.type == "slider":
        pb = np.asarray(e.to, dtype=float) if e.other is None else poses.world(e.other, e.to)
        return float((poses.world(e.body, e.point) - pb) @ axis)
    qb = np.array([1.0, 0.0, 0.0, 0.0]) if e.other is None else poses.x[e.other, 3:7]
    q = quat_multiply(
        quat_multiply(poses.x[e.body, 3:7], quat_conjugate(np.asarray(e.turn, dtype=float))),
        quat_conjugate(qb),
    )
    q = q / np.linalg.norm(q)
    s = float(q[1:4] @ axis)
    return 2.0 * math.atan2(s, float(q[0])) if q[0] >= 0.0 else 2.0 * math.atan2(-s, -q[0])


def stored(e: Joint, row: Array, poses: Poses) -> float:
    """½ k (q − rest)² of its spring and ½ k_s δ² of a stop it is pressed into (J)."""
    if e.type not in ("hinge", "slider") or not row[EJ_DRIVEN]:
        return 0.0
    q = position(e, poses)
    energy = 0.5 * row[EJ_K] * (q - row[EJ_REST]) ** 2
    past = max(0.0, q - row[EJ_HI], row[EJ_LO] - q) if row[EJ_STOP_K] > 0.0 else 0.0
    return float(energy + 0.5 * row[EJ_STOP_K] * past * past)


def gaps(e: Joint, poses: Poses) -> tuple[float, float]:
    """How far the joint is from holding: (m, rad), the distance its ends are apart
    (a slider's across its axis) and the angle its bodies are turned off it."""
    pa = poses.world(e.body, e.point)
    pb = np.asarray(e.to, dtype=float) if e.other is None else poses.world(e.other, e.to)
    rb = np.eye(3) if e.other is None else poses.rot[e.other]
    ra = poses.rot[e.body]
    axis = np.asarray(e.axis, dtype=float) / np.linalg.norm(e.axis)
    r0 = to_rotmat(np.asarray(e.turn, dtype=float) / np.linalg.norm(e.turn))
    off = ra @ r0.T @ rb.T  # E when the bodies are turned as at the start
    angle = math.acos(min(1.0, max(-1.0, (float(np.trace(off)) - 1.0) / 2.0)))
    d = pa - pb
    if e.type == "ball":
        return float(np.linalg.norm(d)), 0.0
    if e.type == "hinge":  # the axis in A against the same line in B
        a = ra @ axis
        b = rb @ r0 @ axis
        return float(np.linalg.norm(d)), float(np.arctan2(np.linalg.norm(np.cross(a, b)), a @ b))
    if e.type == "slider":
        a = ra @ axis
        return float(np.linalg.norm(d - (d @ a) * a)), angle
    return float(np.linalg.norm(d)), angle


@kernel(inline=True)
def count(el, e):
    """Constraint rows of joint e."""
    t = el[e, EJ_TYPE]
    if t == BALL:
        return 3
    if t == FIXED:
        return 6
    return 5


@kernel(inline=True)
def cross(a, b):
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@kernel(inline=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel(inline=True)
def back(r, v):
    """Rᵀ v."""
    return (
        r[0] * v[0] + r[3] * v[1] + r[6] * v[2],
        r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
        r[2] * v[0] + r[5] * v[1] + r[8] * v[2],
    )


@kernel(inline=True)
def frame(y, r, px, py, pz):
    """Of body point (px, py, pz) at state y (rotation r), world: its position, its arm from
    the reference point, its velocity, the body's Ω and its reference point's velocity."""
    s = turn(r, px, py, pz)
    vo = turn(r, y[7], y[8], y[9])
    om = turn(r, y[10], y[11], y[12])
    c = cross(om, s)
    p = (y[0] + s[0], y[1] + s[1], y[2] + s[2])
    return p, s, (vo[0] + c[0], vo[1] + c[1], vo[2] + c[2]), om, vo


@kernel(inline=True)
def put(C, k, ra, la, wa, rb, lb, wb, bias):
    """Constraint row k: (l, w) of each body (world) as J on its ν, and its bias."""
    u = back(ra, la)
    v = back(ra, wa)
    s = back(rb, lb)
    w = back(rb, wb)
    for j in range(3):
        C[k, C_JA + j] = u[j]
        C[k, C_JA + 3 + j] = v[j]
        C[k, C_JB + j] = s[j]
        C[k, C_JB + 3 + j] = w[j]
    C[k, C_BIAS] = bias


@kernel(inline=True)
def _unit(k):
    if k == 0:
        return 1.0, 0.0, 0.0
    if k == 1:
        return 0.0, 1.0, 0.0
    return 0.0, 0.0, 1.0


@kernel(inline=True)
def _neg(a):
    return -a[0], -a[1], -a[2]


@kernel
def fill(el, e, ya, ra, yb, rb, C, k0):
    """Rows k0… of C: J and the bias of joint e between state ya (rotation ra) and yb (rb;
    the world: at rest, R = E)."""
    t = el[e, EJ_TYPE]
    pa, sa, va, oa, _ = frame(ya, ra, el[e, EJ_A], el[e, EJ_A + 1], el[e, EJ_A + 2])
    pb, sb, vb, ob, _ = frame(yb, rb, el[e, EJ_B], el[e, EJ_B + 1], el[e, EJ_B + 2])
    zero = (0.0, 0.0, 0.0)
    k = k0
    ca = cross(oa, va)  # a point's acceleration is R v̇ + Ω̇ × s + Ω × V_point
    cb = cross(ob, vb)
    if t != SLIDER:  # the ends meet
        for j in range(3):
            n = _unit(j)
            put(C, k, ra, n, cross(sa, n), rb, _neg(n), _neg(cross(sb, n)), ca[j] - cb[j])
            k += 1
    if t == SLIDER or t == FIXED:  # no relative turn: Ω̇_A − Ω̇_B = 0, R ω̇ = Ω̇ exactly
        for j in range(3):
            n = _unit(j)
            put(C, k, ra, zero, n, rb, zero, _neg(n), 0.0)
            k += 1
    if t == HINGE:  # â · b̂_j: rate (â × b̂_j) · (Ω_A − Ω_B)
        a = turn(ra, el[e, EJ_U], el[e, EJ_U + 1], el[e, EJ_U + 2])
        rel = (oa[0] - ob[0], oa[1] - ob[1], oa[2] - ob[2])
        ad = cross(oa, a)
        for c in (EJ_V, EJ_W):
            b = turn(rb, el[e, c], el[e, c + 1], el[e, c + 2])
            n = cross(a, b)
            bd = cross(ob, b)
            x1 = cross(ad, b)
            x2 = cross(a, bd)
            put(C, k, ra, zero, n, rb, zero, _neg(n), dot((x1[0] + x2[0], x1[1] + x2[1],
                x1[2] + x2[2]), rel))  # fmt: skip
            k += 1
    if t == SLIDER:  # (P_a − P_b) · t̂_j, t̂_j turning with A
        d = (pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2])
        dd = (va[0] - vb[0], va[1] - vb[1], va[2] - vb[2])
        for c in (EJ_U, EJ_V):
            n = turn(ra, el[e, c], el[e, c + 1], el[e, c + 2])
            wa = cross(sa, n)
            wd = cross(n, d)
            on = cross(oa, n)
            bias = dot((ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]), n)
            bias += 2.0 * dot(dd, on) + dot(d, cross(oa, on))
            put(C, k, ra, n, (wa[0] + wd[0], wa[1] + wd[1], wa[2] + wd[2]), rb, _neg(n),
                _neg(cross(sb, n)), bias)  # fmt: skip
            k += 1
    return k


@kernel(inline=True)
def qmul(a, b):
    return (
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    )


@kernel(inline=True)
def unit_q(y):
    s = 1.0 / math.sqrt(y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6])
    return y[3] * s, y[4] * s, y[5] * s, y[6] * s


@kernel
def error(el, e, ya, ra, yb, rb, C, k0):
    """Rows k0… of C's bias column ← joint e's position errors C (m, rad), row by row as
    `fill` orders them."""
    t = el[e, EJ_TYPE]
    pa, _, _, _, _ = frame(ya, ra, el[e, EJ_A], el[e, EJ_A + 1], el[e, EJ_A + 2])
    pb, _, _, _, _ = frame(yb, rb, el[e, EJ_B], el[e, EJ_B + 1], el[e, EJ_B + 2])
    k = k0
    if t != SLIDER:
        for j in range(3):
            C[k, C_BIAS] = pa[j] - pb[j]
            k += 1
    if t == SLIDER or t == FIXED:  # θ of q_A q_0⁻¹ q_B⁻¹, the turn A is off by (world)
        qa = unit_q(ya)
        qb = unit_q(yb)
        q0 = (el[e, EJ_Q], -el[e, EJ_Q + 1], -el[e, EJ_Q + 2], -el[e, EJ_Q + 3])
        q = qmul(qmul(qa, q0), (qb[0], -qb[1], -qb[2], -qb[3]))
        s = 2.0 if q[0] >= 0.0 else -2.0
        for j in range(3):
            C[k, C_BIAS] = s * q[1 + j]
            k += 1
    if t == HINGE:
        a = turn(ra, el[e, EJ_U], el[e, EJ_U + 1], el[e, EJ_U + 2])
        for c in (EJ_V, EJ_W):
            C[k, C_BIAS] = dot(a, turn(rb, el[e, c], el[e, c + 1], el[e, c + 2]))
            k += 1
    if t == SLIDER:
        d = (pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2])
        for c in (EJ_U, EJ_V):
            C[k, C_BIAS] = dot(d, turn(ra, el[e, c], el[e, c + 1], el[e, c + 2]))
            k += 1
    return k


@kernel
def coordinate(el, e, ya, ra, yb, rb):
    """Joint e's coordinate q, its rate q̇ and its axis (world): a hinge's angle about its
    axis from where it started (the turn q_A q_0⁻¹ q_B⁻¹ about â, in (−π, π]; q̇ = â · (Ω_A −
    Ω_B)), a slider's travel (P_a − P_b) · â (q̇ its derivative, â turning with A)."""
    oa = turn(ra, ya[10], ya[11], ya[12])
    ob = turn(rb, yb[10], yb[11], yb[12])
    rel = (oa[0] - ob[0], oa[1] - ob[1], oa[2] - ob[2])
    if el[e, EJ_TYPE] == HINGE:
        a = turn(ra, el[e, EJ_U], el[e, EJ_U + 1], el[e, EJ_U + 2])
        qa = unit_q(ya)
        qb = unit_q(yb)
        q0 = (el[e, EJ_Q], -el[e, EJ_Q + 1], -el[e, EJ_Q + 2], -el[e, EJ_Q + 3])
        q = qmul(qmul(qa, q0), (qb[0], -qb[1], -qb[2], -qb[3]))
        s = q[1] * a[0] + q[2] * a[1] + q[3] * a[2]
        angle = 2.0 * math.atan2(s, q[0]) if q[0] >= 0.0 else 2.0 * math.atan2(-s, -q[0])
        return angle, dot(a, rel), a
    t1 = turn(ra, el[e, EJ_U], el[e, EJ_U + 1], el[e, EJ_U + 2])
    a = cross(t1, turn(ra, el[e, EJ_V], el[e, EJ_V + 1], el[e, EJ_V + 2]))
    pa, _, va, _, _ = frame(ya, ra, el[e, EJ_A], el[e, EJ_A + 1], el[e, EJ_A + 2])
    pb, _, vb, _, _ = frame(yb, rb, el[e, EJ_B], el[e, EJ_B + 1], el[e, EJ_B + 2])
    d = (pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2])
    dv = (va[0] - vb[0], va[1] - vb[1], va[2] - vb[2])
    return dot(d, a), dot(dv, a) + dot(d, cross(oa, a)), a


@kernel
def drive(el, e, ya, ra, yb, rb):
    """What joint e's spring, damper and stops do (module docstring): (force at its point,
    moment), world, on A; B feels the opposite force at its point b and moment."""
    t = el[e, EJ_TYPE]
    c = el[e, EJ_DAMP]
    if t == BALL:
        oa = turn(ra, ya[10], ya[11], ya[12])
        ob = turn(rb, yb[10], yb[11], yb[12])
        return 0.0, 0.0, 0.0, -c * (oa[0] - ob[0]), -c * (oa[1] - ob[1]), -c * (oa[2] - ob[2])
    if t == FIXED:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    q, rate, a = coordinate(el, e, ya, ra, yb, rb)
    g = -el[e, EJ_K] * (q - el[e, EJ_REST]) - c * rate
    k = el[e, EJ_STOP_K]
    if k > 0.0:
        cs = el[e, EJ_STOP_C]
        if q > el[e, EJ_HI]:
            g -= max(0.0, k * (q - el[e, EJ_HI]) + cs * rate)
        elif q < el[e, EJ_LO]:
            g += max(0.0, k * (el[e, EJ_LO] - q) - cs * rate)
    if t == HINGE:
        return 0.0, 0.0, 0.0, g * a[0], g * a[1], g * a[2]
    return g * a[0], g * a[1], g * a[2], 0.0, 0.0, 0.0
