"""`Ground`: the plane z = height touched by the body's contact shape (a sphere's lowest
point, or a box's eight corners).

Per touching point N = max(0, k δ + c δ̇) up, and regularised Coulomb friction
−μ N v_t / √(|v_t|² + ε²); k defaults to m · 2·10⁴ N/m per kg (0.49 mm under its own weight
at g = 9.81, natural frequency 141 rad/s whatever the mass) and c is chosen so that a bounce
has the given restitution e exactly. The slip speed is ε = max(`slip`, μ N h n κ /
FRICTION_STEP_RATE) (`friction_rate`): below it friction is viscous, and this keeps that
viscous part inside the explicit step's stability region for every shape (n touching
points, κ the largest 1/m_eff of one). It stores ½ k δ² for each touching point δ below the
plane (the contact springs; the dashpot and friction only take energy away).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..params import Bodies
from ..quaternion import Array
from .geometry import moment, point_motion
from .jit import kernel
from .poses import Poses

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "e3a53fd73dd0e368"

NAME = "ground"
CODE = 4.0  # its E_KIND
# its row (E_DATA + …): height, k, c, μ, slip speed, shape (0 sphere, 1 box), centre (3),
# r or half sizes (3), friction rate (1/kg: the slip speed is at least μ N h × it)
EG_HEIGHT, EG_K, EG_C, EG_MU, EG_SLIP, EG_SHAPE, EG_CENTRE, EG_EXTENT = 3, 4, 5, 6, 7, 8, 9, 12
EG_RATE = 15
AUX_COLUMNS: tuple[int, ...] = ()
Vec3 = tuple[float, float, float]

#: Default ground stiffness per kilogram of the body, N/m/kg: under its own weight a body
#: sinks g / 2e4 = 0.49 mm into the ground, and the contact rings at √2e4 = 141 rad/s (a
#: 44 ms period, ~44 RK4 steps of the default 1 ms) whatever the mass.
GROUND_STIFFNESS_PER_KG = 2.0e4
#: Default slip speed of the regularised friction, m/s: below it friction is viscous.
GROUND_SLIP = 1e-3
#: The largest h λ of the friction's viscous part (λ its decay rate of the contact points'
#: sliding): RK4's real stability limit is 2.785 and explicit Euler's 2; at 1.75 both are
#: stable and RK4 never overshoots (its amplification stays in (0.27, 1); Euler's, −0.75,
#: flips sign as it decays). A solid sphere's contact point has κ = 3.5/m, so its slip
#: speed is at least 2 μ N h / m, as before.
FRICTION_STEP_RATE = 1.75


@dataclass(frozen=True)
class ContactShape:
    """What touches the ground: a sphere (centre, radius) or a box (centre, half sizes),
    body axes from the reference point."""

    kind: Literal["sphere", "box"]
    centre: Vec3
    extent: Vec3  # the sphere's radius in [0]; the box's half sizes


@dataclass(frozen=True)
class Ground:
    body: int
    shape: ContactShape
    height: float = 0.0
    restitution: float = 0.5
    friction: float = 0.5
    stiffness: float | None = None  # N/m per touching point; None: GROUND_STIFFNESS_PER_KG · m
    slip: float = GROUND_SLIP


ELEMENT = Ground  # the dataclass it is given as


def damping_ratio(restitution: float) -> float:
    """ζ of a linear spring-dashpot whose force may push but never pull (N ≥ 0) that gives
    this coefficient of restitution. Contact ends when k δ + c δ̇ = 0, before δ = 0, so the
    textbook ζ(e) of the unclamped oscillator would bounce higher; this inverts the clamped
    model exactly (bisection on its closed form)."""
    if restitution >= 1.0:
        return 0.0

    def bounce(zeta: float) -> float:
        wd = math.sqrt(1.0 - zeta * zeta)
        theta = math.pi - math.atan2(2.0 * zeta * wd, 1.0 - 2.0 * zeta * zeta)
        t = theta / wd
        return -math.exp(-zeta * t) * (math.cos(theta) - zeta * math.sin(theta) / wd)

    lo, hi = 0.0, 0.999
    if restitution <= bounce(hi):
        return hi
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if bounce(mid) > restitution:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _mobility(bodies: Bodies, i: int, point: Array) -> float:
    """κ = 1/m_eff, the largest over directions t of tᵀ (E/m + S(ℓ) I_g⁻¹ S(ℓ)ᵀ) t: the
    acceleration of body point `point` (body axes, from the reference point) per newton
    pushing it along t; ℓ is the point seen from the CG."""
    lx, ly, lz = point - bodies.r_cg_body[i]
    s = np.array([[0.0, -lz, ly], [lz, 0.0, -lx], [-ly, lx, 0.0]])
    w = s @ np.linalg.inv(bodies.inertia_cg[i]) @ s.T
    return 1.0 / float(bodies.mass[i]) + float(np.linalg.eigvalsh(0.5 * (w + w.T))[-1])


def friction_rate(bodies: Bodies, i: int, shape: ContactShape) -> float:
    """n κ / FRICTION_STEP_RATE, 1/kg: a ground contact's slip speed is at least μ N h times
    this. The sliding of the touching points decays at λ ≤ Σ μ N κ / ε over at most n of them
    (one for a sphere, a face's four for a box), so h λ ≤ FRICTION_STEP_RATE. κ is the largest
    1/m_eff over a box's corners, or over 26 directions of a sphere's surface."""
    centre = np.asarray(shape.centre, dtype=float)
    if shape.kind == "sphere":
        grid = np.array([d for d in np.ndindex(3, 3, 3) if d != (1, 1, 1)], dtype=float) - 1.0
        points = centre + shape.extent[0] * grid / np.linalg.norm(grid, axis=1, keepdims=True)
        touching = 1
    else:
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        points = centre + signs * np.asarray(shape.extent, dtype=float)
        touching = 4
    kappa = max(_mobility(bodies, i, c) for c in points)
    return touching * kappa / FRICTION_STEP_RATE


def pack(e: Ground, row: Array, bodies: Bodies, aux: list[float]) -> None:
    """Its numbers into its element row."""
    m = float(bodies.mass[e.body])
    k = GROUND_STIFFNESS_PER_KG * m if e.stiffness is None else e.stiffness
    row[EG_HEIGHT], row[EG_K], row[EG_MU], row[EG_SLIP] = e.height, k, e.friction, e.slip
    row[EG_C] = 2.0 * damping_ratio(e.restitution) * math.sqrt(k * m)
    row[EG_SHAPE] = 0.0 if e.shape.kind == "sphere" else 1.0
    row[EG_CENTRE : EG_CENTRE + 3] = e.shape.centre
    row[EG_EXTENT : EG_EXTENT + 3] = e.shape.extent
    row[EG_RATE] = friction_rate(bodies, e.body, e.shape)


def stored(e: Ground, row: Array, poses: Poses) -> float:
    """½ k δ² summed over the touching points, J."""
    i = e.body
    centre = np.asarray(e.shape.centre, dtype=float)
    if e.shape.kind == "sphere":
        # the lowest point: the centre plus the radius straight down, as the kernel
        lowest = poses.world(i, centre)[2] + e.shape.extent[0]
        depths = np.array([lowest - e.height])
    else:
        half = np.asarray(e.shape.extent, dtype=float)
        signs = np.array([[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1)
                          for sx in (-1, 1)], dtype=float)  # fmt: skip
        corners = poses.pos(i) + (centre + signs * half) @ poses.rot[i].T
        depths = corners[:, 2] - e.height
    return 0.5 * float(row[EG_K]) * float(np.sum(np.maximum(depths, 0.0) ** 2))


@kernel
def _contact(p, el, e, i, y, r, cx, cy, cz, h):
    """One contact point (body axes, from the reference point) against the ground plane:
    spring-dashpot normal force N ≥ 0 and regularised Coulomb friction. Returns the force
    (3), its moment about the CG (3), N and N · the point's world position (3)."""
    px, py, pz, vx, vy, vz = point_motion(y, r, cx, cy, cz)
    depth = pz - el[e, EG_HEIGHT]  # NED: below the plane is z > height
    if depth <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    normal = el[e, EG_K] * depth + el[e, EG_C] * vz
    if normal <= 0.0:  # the dashpot may slow a parting body, never pull it down
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    mu = el[e, EG_MU]
    # below the slip speed friction is viscous; its floor μ N h × the row's rate keeps that
    # part inside the step's stability region (elements.friction_rate)
    slip = max(el[e, EG_SLIP], mu * normal * h * el[e, EG_RATE])
    scale = mu * normal / math.sqrt(vx * vx + vy * vy + slip * slip)
    fx = -scale * vx
    fy = -scale * vy
    fz = -normal
    mx, my, mz = moment(p, i, r, cx, cy, cz, fx, fy, fz)
    return fx, fy, fz, mx, my, mz, normal, normal * px, normal * py, normal * pz


@kernel
def force(p, el, e, i, y, r, h):
    """The ground's total force and moment on body i (global, about the CG), and its centre
    of pressure (N-weighted mean of the touching points; the point under the body when none
    touches) for the record."""
    ox = el[e, EG_CENTRE]
    oy = el[e, EG_CENTRE + 1]
    oz = el[e, EG_CENTRE + 2]
    if el[e, EG_SHAPE] == 0.0:  # a sphere touches with its lowest point, Rᵀ (0, 0, r) below
        radius = el[e, EG_EXTENT]
        c = _contact(
            p, el, e, i, y, r, ox + radius * r[6], oy + radius * r[7], oz + radius * r[8], h
        )
        fx, fy, fz, mx, my, mz, n, sx, sy, sz = c
    else:  # a box (the mesh's bounding box) touches with its corners
        fx = fy = fz = mx = my = mz = n = sx = sy = sz = 0.0
        hx = el[e, EG_EXTENT]
        hy = el[e, EG_EXTENT + 1]
        hz = el[e, EG_EXTENT + 2]
        for corner in range(8):
            cx = ox + (hx if corner & 1 else -hx)
            cy = oy + (hy if corner & 2 else -hy)
            cz = oz + (hz if corner & 4 else -hz)
            c = _contact(p, el, e, i, y, r, cx, cy, cz, h)
            fx += c[0]
            fy += c[1]
            fz += c[2]
            mx += c[3]
            my += c[4]
            mz += c[5]
            n += c[6]
            sx += c[7]
            sy += c[8]
            sz += c[9]
    if n > 0.0:
        return fx, fy, fz, mx, my, mz, sx / n, sy / n, sz / n
    return fx, fy, fz, mx, my, mz, y[0], y[1], el[e, EG_HEIGHT]


@kernel(inline=True)
def act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """Its force and moment on body i (global, about the CG), at the centre of pressure, and
    that point on the plane."""
    c = force(p, el, e, i, y, r, h)
    return c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[6], c[7], el[e, EG_HEIGHT]
