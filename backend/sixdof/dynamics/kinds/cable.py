"""`Cable`: a lumped-mass line (FhSim's Cable) from a body point a to a world point or to
another body's point b, its n − 1 inner nodes' positions and velocities carried as states
and stepped with the bodies (layout.E_STATES), and its unstretched length L a state too, so
that a winch at either end pays it out at ṡ_a + ṡ_b (`pay_out_speed`, live).

With l = L / n each segment's unstretched length and node k at x_k (x_0 the body point a,
x_n the other end), each inner node has the mass m = μ l and

    m ẍ_k = T_{k+1} t̂_{k+1} − T_k t̂_k + W + D + S,   ẍ of an end: its body's

    T_k = max(0, EA ε_k + c ε̇_k) while ε_k = |x_k − x_{k−1}| / l − 1 > 0, else 0 (slack:
          no compression), t̂_k the segment's unit vector from node k − 1 to k
    W   = (μ − ρ A) l g ẑ below the water's level (A = π d² / 4), μ l g ẑ above it
    D   = −½ ρ d l C_n |u_n| u_n − ½ ρ π d l C_t |u_t| u_t (Morison's drag, below the level),
          u = ẋ_k − current split along t̂ (x_{k+1} − x_{k−1}) and across it
    S   = −(κ l δ + 2 √(κ l m) ż) ẑ where the node is δ = z − (level + depth) > 0 below the
          seabed (a critically damped contact, κ = seabed_stiffness per metre of line; no
          friction), never pulling down

Each end gets its segment's tension along it plus the weight of the half segment next to
it (the inner nodes carry the rest of the line's weight); no added mass (limits:
docs/physics.md). What it measures and holds (the force at each end, the tensions, the
length on the seabed, its energy) is read from its states by dynamics/cable_lines.py: the
kinds' `stored` reads no states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..layout import E_N_STATES, E_OTHER, E_STATES, P_GRAVITY
from ..params import Bodies
from ..quaternion import Array
from .geometry import moment, point_motion, rotation
from .jit import kernel

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "b02755572375ad91"

NAME = "cable"
CODE = 11.0  # its E_KIND
# its row (E_DATA + …): point a (3), b (3: world or the other body's), segments, μ, EA,
# d, ρ, level, depth (0: no seabed), current (3), C_n, C_t, pay-out speeds at a and b,
# axial damping c, κ, the shortest length a winch may reel in to
EC_A, EC_B, EC_N, EC_MU, EC_EA, EC_D, EC_RHO, EC_LEVEL, EC_DEPTH = 3, 6, 9, 10, 11, 12, 13, 14, 15
EC_CUR, EC_CN, EC_CT, EC_PAY_A, EC_PAY_B, EC_DAMP, EC_KSEA, EC_LMIN = (
    16, 19, 20, 21, 22, 23, 24, 25,
)  # fmt: skip
AUX_COLUMNS: tuple[int, ...] = ()
#: The seabed's stiffness per metre of line per metre of diameter when none is given,
#: N/m² per m (MoorDyn's default 3e6 Pa).
SEABED_STIFFNESS_PER_DIAMETER = 3e6
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Cable:
    body: int
    point: Vec3
    to: Vec3  # a world point, or the other body's point (body axes, from its reference point)
    length: float
    segments: int
    mass_per_length: float  # kg/m, in air
    axial_stiffness: float  # EA, N
    diameter: float  # m: buoyancy and drag
    other: int | None = None
    density: float = 1025.0  # of the water, kg/m³ (0: in air)
    level: float = 0.0
    depth: float | None = None  # of the seabed below the level; None: none
    current: Vec3 = (0.0, 0.0, 0.0)
    drag_normal: float = 1.2
    drag_tangential: float = 0.008
    pay_out_a: float = 0.0  # m/s, at the body point
    pay_out_b: float = 0.0  # m/s, at the other end
    axial_damping: float = 0.0  # c, N·s (per unit strain rate)
    seabed_stiffness: float | None = None  # κ, N/m² (None: 3e6 d)
    #: The world positions of its ends at the start: the inner nodes start between them
    #: (`initial_nodes`).
    ends: tuple[Vec3, Vec3] | None = None
    #: Inner nodes' positions and velocities to start from ((n − 1, 6)); None: at rest
    #: on the shape `initial_nodes` lays out.
    nodes: tuple[tuple[float, ...], ...] | None = None

    @property
    def n_states(self) -> int:
        return 1 + 6 * (self.segments - 1)

    def kappa(self) -> float:
        if self.seabed_stiffness is not None:
            return self.seabed_stiffness
        return SEABED_STIFFNESS_PER_DIAMETER * self.diameter


ELEMENT = Cable  # the dataclass it is given as


def initial_nodes(e: Cable) -> Array:
    """Inner nodes (n − 1, 3) at the start: on the chord from a to b when the line is
    taut, else at equal arc lengths along a parabola of its length sagging down, held above
    the seabed (a projection: no segment longer than its unstretched length, so the line
    starts slack, not stretched)."""
    ends = (np.zeros(3), np.asarray(e.to, dtype=float)) if e.ends is None else e.ends
    a, b = (np.asarray(p, dtype=float) for p in ends)
    s = np.linspace(0.0, 1.0, e.segments + 1)[1:-1]
    if e.length <= float(np.linalg.norm(b - a)):
        return a + s[:, None] * (b - a)
    u = np.linspace(0.0, 1.0, 2001)

    def curve(sag: float) -> tuple[Array, Array]:
        x = a + u[:, None] * (b - a)
        x[:, 2] += 4.0 * sag * u * (1.0 - u)
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(x, axis=0), axis=1))])
        return x, arc

    lo, hi = 0.0, e.length
    for _ in range(60):  # the sag whose arc is the line's length
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve(mid)[1][-1] < e.length else (lo, mid)
    x, arc = curve(lo)
    at = s * arc[-1]
    nodes = np.stack([np.interp(at, arc, x[:, c]) for c in range(3)], axis=1)
    if e.depth is not None:
        nodes[:, 2] = np.minimum(nodes[:, 2], e.level + e.depth)
    return nodes


def states(e: Cable) -> Array:
    """Its initial states: L, then each inner node's position and velocity."""
    z = np.zeros(e.n_states)
    z[0] = e.length
    if e.nodes is not None:
        z[1:] = np.asarray(e.nodes, dtype=float).ravel()
    else:
        z[1:] = np.hstack([initial_nodes(e), np.zeros((e.segments - 1, 3))]).ravel()
    return z


def pack(e: Cable, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its row (E_OTHER, E_STATES are the packer's)."""
    row[E_N_STATES] = e.n_states
    row[EC_A : EC_A + 3] = e.point
    row[EC_B : EC_B + 3] = e.to
    row[EC_N], row[EC_MU], row[EC_EA], row[EC_D] = (
        e.segments, e.mass_per_length, e.axial_stiffness, e.diameter,
    )  # fmt: skip
    row[EC_RHO], row[EC_LEVEL] = e.density, e.level
    row[EC_DEPTH] = 0.0 if e.depth is None else e.depth
    row[EC_CUR : EC_CUR + 3] = e.current
    row[EC_CN], row[EC_CT] = e.drag_normal, e.drag_tangential
    row[EC_PAY_A], row[EC_PAY_B] = e.pay_out_a, e.pay_out_b
    row[EC_DAMP], row[EC_KSEA] = e.axial_damping, e.kappa()
    row[EC_LMIN] = 1e-2 * e.length


stored = None  # its energy needs its states: cable_lines.energy


@kernel(inline=True)
def _node(W, base, k0, j):
    """Inner node j's position and velocity (j from 1) in a group's stage rows W."""
    k = k0 + 1 + 6 * (j - 1)
    out = np.empty(6)
    for c in range(6):
        out[c] = W[base + (k + c) // 13, (k + c) % 13]
    return out


@kernel(inline=True)
def _zset(K, base, k, v):
    K[base + k // 13, k % 13] = v


@kernel
def _ends(el, e, y, r, W):
    """The ends' world positions and velocities: a on its body (state y, rotation r), b a
    world point or a point on the other body (its stage row in W)."""
    a = point_motion(y, r, el[e, EC_A], el[e, EC_A + 1], el[e, EC_A + 2])
    o = int(el[e, E_OTHER])
    if o >= 0:
        yo = W[o]
        b = point_motion(yo, rotation(yo), el[e, EC_B], el[e, EC_B + 1], el[e, EC_B + 2])
    else:
        b = (el[e, EC_B], el[e, EC_B + 1], el[e, EC_B + 2], 0.0, 0.0, 0.0)
    return a, b


@kernel
def _wet_weight(el, e, g, z, seg):
    """A piece of seg metres at depth z: its weight (buoyancy below the level), N."""
    mu = el[e, EC_MU]
    d = el[e, EC_D]
    if z > el[e, EC_LEVEL]:
        mu -= el[e, EC_RHO] * math.pi * d * d / 4.0
    return g * mu * seg


@kernel
def _tension(el, e, X, V, k, seg):
    """Segment k's (from node k − 1 to k) tension and unit vector."""
    dx = X[k, 0] - X[k - 1, 0]
    dy = X[k, 1] - X[k - 1, 1]
    dz = X[k, 2] - X[k - 1, 2]
    ell = math.sqrt(dx * dx + dy * dy + dz * dz)
    if ell <= seg or ell == 0.0:
        return 0.0, 0.0, 0.0, 0.0
    ux, uy, uz = dx / ell, dy / ell, dz / ell
    rate = (
        (V[k, 0] - V[k - 1, 0]) * ux + (V[k, 1] - V[k - 1, 1]) * uy + (V[k, 2] - V[k - 1, 2]) * uz
    )
    t = el[e, EC_EA] * (ell / seg - 1.0) + el[e, EC_DAMP] * rate / seg
    return max(t, 0.0), ux, uy, uz


@kernel
def _line(el, e, g, y, r, W, base):
    """Every node's position and velocity (n + 1, 3 each, the ends' from their bodies), its
    unstretched length L and its segments' tension and direction (n + 1, 4: row k for
    segment k, row 0 unused)."""
    n = int(el[e, EC_N])
    k0 = int(el[e, E_STATES])
    a, b = _ends(el, e, y, r, W)
    X = np.empty((n + 1, 3))
    V = np.empty((n + 1, 3))
    for c in range(3):
        X[0, c] = a[c]
        V[0, c] = a[3 + c]
        X[n, c] = b[c]
        V[n, c] = b[3 + c]
    for j in range(1, n):
        k = base * 13 + k0 + 1 + 6 * (j - 1)  # flat index into W's rows
        for c in range(3):
            X[j, c] = W[(k + c) // 13, (k + c) % 13]
            V[j, c] = W[(k + 3 + c) // 13, (k + 3 + c) % 13]
    L = W[base + k0 // 13, k0 % 13]
    seg = L / n
    T = np.zeros((n + 1, 4))
    for k in range(1, n + 1):
        T[k] = _tension(el, e, X, V, k, seg)
    return X, V, T, L, seg


@kernel
def _rates(el, e, g, X, V, T, L, seg, base, K):
    """The inner nodes' accelerations and the length's rate into K."""
    n = int(el[e, EC_N])
    k0 = int(el[e, E_STATES])
    pay = el[e, EC_PAY_A] + el[e, EC_PAY_B]
    _zset(K, base, k0, 0.0 if (L <= el[e, EC_LMIN] and pay < 0.0) else pay)
    m = el[e, EC_MU] * seg
    rho = el[e, EC_RHO]
    d = el[e, EC_D]
    level = el[e, EC_LEVEL]
    depth = el[e, EC_DEPTH]
    bed = level + depth
    ks = el[e, EC_KSEA] * seg
    cs = 2.0 * math.sqrt(ks * m)
    qn = 0.5 * rho * d * seg * el[e, EC_CN]
    qt = 0.5 * rho * math.pi * d * seg * el[e, EC_CT]
    for j in range(1, n):
        fx = T[j + 1, 0] * T[j + 1, 1] - T[j, 0] * T[j, 1]
        fy = T[j + 1, 0] * T[j + 1, 2] - T[j, 0] * T[j, 2]
        fz = T[j + 1, 0] * T[j + 1, 3] - T[j, 0] * T[j, 3] + _wet_weight(el, e, g, X[j, 2], seg)
        if X[j, 2] > level and (qn > 0.0 or qt > 0.0):  # Morison's drag on u = v − current
            tx = X[j + 1, 0] - X[j - 1, 0]
            ty = X[j + 1, 1] - X[j - 1, 1]
            tz = X[j + 1, 2] - X[j - 1, 2]
            tl = math.sqrt(tx * tx + ty * ty + tz * tz)
            if tl > 0.0:
                tx, ty, tz = tx / tl, ty / tl, tz / tl
            ux = V[j, 0] - el[e, EC_CUR]
            uy = V[j, 1] - el[e, EC_CUR + 1]
            uz = V[j, 2] - el[e, EC_CUR + 2]
            ut = ux * tx + uy * ty + uz * tz
            nx, ny, nz = ux - ut * tx, uy - ut * ty, uz - ut * tz
            un = math.sqrt(nx * nx + ny * ny + nz * nz)
            fx -= qn * un * nx + qt * abs(ut) * ut * tx
            fy -= qn * un * ny + qt * abs(ut) * ut * ty
            fz -= qn * un * nz + qt * abs(ut) * ut * tz
        if depth > 0.0 and X[j, 2] > bed:  # the seabed pushes up, never pulls down
            fz -= max(ks * (X[j, 2] - bed) + cs * V[j, 2], 0.0)
        k = k0 + 1 + 6 * (j - 1)
        for c in range(3):
            _zset(K, base, k + c, V[j, c])
        _zset(K, base, k + 3, fx / m)
        _zset(K, base, k + 4, fy / m)
        _zset(K, base, k + 5, fz / m)


@kernel
def act_states(p, el, e, aux, i, y, r, W, base, K):
    """Its force and moment on body i (global, about the CG), its point and its other end;
    the nodes read from the group's stage rows W after `base` body rows, their rates
    written into K's (when K has rows)."""
    g = p[i, P_GRAVITY]
    X, V, T, L, seg = _line(el, e, g, y, r, W, base)
    if K.shape[0] > 0:
        _rates(el, e, g, X, V, T, L, seg, base, K)
    half = _wet_weight(el, e, g, X[0, 2], 0.5 * seg)
    fx = T[1, 0] * T[1, 1]
    fy = T[1, 0] * T[1, 2]
    fz = T[1, 0] * T[1, 3] + half
    m = moment(p, i, r, el[e, EC_A], el[e, EC_A + 1], el[e, EC_A + 2], fx, fy, fz)
    n = int(el[e, EC_N])
    return fx, fy, fz, m[0], m[1], m[2], X[0, 0], X[0, 1], X[0, 2], X[n, 0], X[n, 1], X[n, 2]


@kernel
def act_other(p, el, e, aux, o, yo, W, base):
    """Its force and moment on the other body (global row o, state yo, its stage row in W
    too), about that body's CG: the last segment's tension toward the line and the half
    segment's weight."""
    n = int(el[e, EC_N])
    k0 = int(el[e, E_STATES])
    ro = rotation(yo)
    b = point_motion(yo, ro, el[e, EC_B], el[e, EC_B + 1], el[e, EC_B + 2])
    s = _node(W, base, k0, n - 1) if n > 1 else np.empty(6)
    if n == 1:  # no inner node: the segment runs to the body point a
        i = int(el[e, 1])
        a = point_motion(W[i], rotation(W[i]), el[e, EC_A], el[e, EC_A + 1], el[e, EC_A + 2])
        for c in range(6):
            s[c] = a[c]
    L = W[base + k0 // 13, k0 % 13]
    seg = L / n
    X = np.empty((2, 3))
    V = np.empty((2, 3))
    for c in range(3):
        X[0, c] = s[c]
        V[0, c] = s[3 + c]
        X[1, c] = b[c]
        V[1, c] = b[3 + c]
    t, ux, uy, uz = _tension(el, e, X, V, np.int64(1), seg)  # plain: one compiled _tension
    fx = -t * ux
    fy = -t * uy
    fz = -t * uz + _wet_weight(el, e, p[o, P_GRAVITY], b[2], 0.5 * seg)
    m = moment(p, o, ro, el[e, EC_B], el[e, EC_B + 1], el[e, EC_B + 2], fx, fy, fz)
    return fx, fy, fz, m[0], m[1], m[2]
