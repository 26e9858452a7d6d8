"""Elements: what holds, springs, damps, stops or drives a body (DESIGN.md section 8).

In FhSim these are other SimObjects wired to a body's Force and Moment ports; here they are
values listed beside the bodies and evaluated inside the compiled derivative at every
integrator stage, from that stage's own state (system_compiled.py). Points on a body are in
body axes from its reference point o (`Pos`); world points and heights are NED (z down).

- `Pivot`: body point a held at world point `at` (a spherical joint). Exact: the body turns
  about a by I_a ω̇ + c ω × I_a ω = Rᵀ M_n + (r_g − a) × F_b, with I_a = I_g + m (|d|² E −
  d dᵀ), d = r_g − a; p and v follow from the constraint.
- `Spring`: F = (k (L − L₀) + c L̇) n̂ on the body point a, pulling it toward the other end
  (a world point or another body's point, which gets −F); with L₀ = 0 the vector form
  F = k d + c ḋ (d from a to the other end).
- `Damper`: Fossen's D(ν) ν = (D_l + D_q |ν|) ν, diagonal, body axes, opposing ν = (v, ω)
  at the reference point (surge, sway, heave, roll, pitch, yaw).
- `Ground`: the plane z = height touched by the body's contact shape (a sphere's lowest
  point, or a box's eight corners): per touching point N = max(0, k δ + c δ̇) up, and
  regularised Coulomb friction −μ N v_t / √(|v_t|² + ε²); k defaults to m · 2·10⁴ N/m per
  kg (0.49 mm under its own weight at g = 9.81, natural frequency 141 rad/s whatever the
  mass) and c is chosen so that a bounce has the given restitution e exactly. The slip
  speed is ε = max(`slip`, μ N h n κ / FRICTION_STEP_RATE) (`friction_rate`): below it
  friction is viscous, and this keeps that viscous part inside the explicit step's
  stability region for every shape (n touching points, κ the largest 1/m_eff of one).
- `Buoyancy`: the pressure of the water (hydrostatic ρ g depth plus the Froude–Krylov
  pressure of linear waves, water.py) integrated over the wetted part of the body's hull, a
  closed triangle mesh (body axes from the reference point, outward), clipped at the
  instantaneous surface at every stage: F = −∮ p n dA, M = −∮ p (r − r_CG) × n dA.
- `AddedMass`: M_A (6×6, body axes, about the reference point) joins M_RB in the packed
  mass-matrix inverse (kernel.pack), and its Coriolis–centripetal force −C_A(ν) ν =
  (p₁ × ω, p₁ × v + p₂ × ω), (p₁, p₂) = M_A ν, acts at the reference point in `full`.
- `TimedLoad`: a force and moment (global or body frame, at a point or the CG) times a
  signal s(t): 1, a step at t₀, A sin(2π f (t − t₀) + φ) from t₀, or a table.

`pack_system` turns a list of them into the arrays the kernels read (layout's E_* rows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from . import hull_tree
from .layout import (
    E_BODY,
    E_KIND,
    E_OTHER,
    EA_MATRIX,
    EB_CORNERS,
    EB_CREST,
    EB_DEPTH,
    EB_LEVEL,
    EB_NNODES,
    EB_NTRI,
    EB_NVERT,
    EB_NWAVES,
    EB_REACH,
    EB_RHO,
    EB_TREE,
    EB_TRI,
    EB_VERT,
    EB_WAVES,
    ED_CURRENT,
    ED_LIN,
    ED_QUAD,
    EG_C,
    EG_CENTRE,
    EG_EXTENT,
    EG_HEIGHT,
    EG_K,
    EG_MU,
    EG_RATE,
    EG_SHAPE,
    EG_SLIP,
    EL_AMP,
    EL_F,
    EL_FRAME,
    EL_FREQ,
    EL_HAS_POINT,
    EL_M,
    EL_PHASE,
    EL_POINT,
    EL_SIGNAL,
    EL_T0,
    EL_TABLE,
    EL_TABLE_N,
    ELEMENT_SIZE,
    EP_A,
    EP_AT,
    EP_IA,
    EP_IA_INV,
    ES_A,
    ES_B,
    ES_C,
    ES_K,
    ES_LEN,
    K_ADDED_MASS,
    K_BUOYANCY,
    K_DAMPER,
    K_GROUND,
    K_LOAD,
    K_PIVOT,
    K_SPRING,
    S_CONSTANT,
    S_SINE,
    S_STEP,
    S_TABLE,
)
from .params import Bodies
from .quaternion import Array, IntArray
from .water import Water, wave_table

Vec3 = tuple[float, float, float]
Signal = Literal["constant", "step", "sine", "table"]

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
class Pivot:
    body: int
    point: Vec3  # a, body axes from the reference point
    at: Vec3  # the world point it is held at, NED


@dataclass(frozen=True)
class Spring:
    body: int
    point: Vec3
    to: Vec3  # a world point, or the other body's point (body axes, from its reference point)
    stiffness: float
    damping: float = 0.0
    rest_length: float = 0.0
    other: int | None = None


@dataclass(frozen=True)
class Damper:
    body: int
    linear: tuple[float, ...] = (0.0,) * 6
    quadratic: tuple[float, ...] = (0.0,) * 6
    current: Vec3 = (0.0, 0.0, 0.0)  # the water's, NED: D acts on ν_r = ν − (Rᵀ current, 0)


@dataclass(frozen=True, eq=False)
class Buoyancy:
    body: int
    triangles: Array  # (T, 3, 3) body axes from the reference point, closed, outward normals
    water: Water = field(default_factory=Water)


@dataclass(frozen=True)
class AddedMass:
    body: int
    matrix: tuple[tuple[float, ...], ...]  # 6×6, body axes, about the reference point


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


Element = Pivot | Spring | Damper | Ground | TimedLoad | Buoyancy | AddedMass


def outward(triangles: Array) -> Array:
    """The triangles (T, 3, 3) of a closed mesh wound so that their normals point out (the
    enclosed volume Σ a · (b × c) / 6 positive); ValueError for an empty or flat one."""
    tri = np.asarray(triangles, dtype=float).reshape(-1, 3, 3)
    volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6
    if not len(tri) or volume == 0.0 or not math.isfinite(volume):
        raise ValueError("a hull must be a closed triangle mesh enclosing a volume")
    return tri if volume > 0 else tri[:, ::-1, :].copy()


def added_mass_matrix(elements: Sequence[Element], n: int) -> Array | None:
    """(n, 6, 6) Σ M_A per body, or None when no element adds mass."""
    found = [e for e in elements if isinstance(e, AddedMass)]
    if not found:
        return None
    out = np.zeros((n, 6, 6))
    for e in found:
        out[e.body] += np.asarray(e.matrix, dtype=float)
    return out


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


def pivot_inertia(bodies: Bodies, i: int, point: Sequence[float]) -> Array:
    """I_a, the inertia about body point a (body axes): I_g + m (|d|² E − d dᵀ), d = r_g − a."""
    d = bodies.r_cg_body[i] - np.asarray(point, dtype=float)
    return bodies.inertia_cg[i] + bodies.mass[i] * (float(d @ d) * np.eye(3) - np.outer(d, d))


@dataclass(frozen=True, eq=False)
class System:
    """Elements packed for the kernels, with the groups of bodies that step together.

    groups (G, 2): first body row and count of each group (a body alone, or an interval of
    rows holding every body a two-body spring joins); rows (M, ELEMENT_SIZE): the elements,
    group after group, with body indices local to the group; bounds (G + 1,): the rows of
    group g are rows[bounds[g]:bounds[g + 1]]; aux: signal tables; order (M,): row of the
    k-th element as given.
    """

    groups: IntArray
    rows: Array
    bounds: IntArray
    aux: Array
    order: IntArray
    elements: tuple[Element, ...]

    @property
    def n_bodies(self) -> int:
        return int(self.groups[:, 1].sum()) if len(self.groups) else 0


def _intervals(n: int, elements: Sequence[Element]) -> list[tuple[int, int]]:
    """Contiguous groups [first, last] so that every two-body spring lies inside one."""
    reach = list(range(n))  # reach[i]: the last row that must step with row i
    for e in elements:
        if isinstance(e, Spring) and e.other is not None:
            a, b = sorted((e.body, e.other))
            reach[a] = max(reach[a], b)
    groups, start, end = [], 0, -1
    for i in range(n):
        if i > end and i > 0:
            groups.append((start, end))
            start = i
        end = max(end, reach[i])
    groups.append((start, end))
    return groups


def _row(e: Element, local: int, other: int, bodies: Bodies, aux: list[float]) -> Array:
    row = np.zeros(ELEMENT_SIZE)
    row[E_BODY] = local
    row[E_OTHER] = other
    i = e.body
    if isinstance(e, Pivot):
        row[E_KIND] = K_PIVOT
        inertia = pivot_inertia(bodies, i, e.point)
        row[EP_A : EP_A + 3] = e.point
        row[EP_AT : EP_AT + 3] = e.at
        row[EP_IA : EP_IA + 9] = inertia.ravel()
        row[EP_IA_INV : EP_IA_INV + 9] = np.linalg.inv(inertia).ravel()
    elif isinstance(e, Spring):
        row[E_KIND] = K_SPRING
        row[ES_A : ES_A + 3] = e.point
        row[ES_B : ES_B + 3] = e.to
        row[ES_K], row[ES_C], row[ES_LEN] = e.stiffness, e.damping, e.rest_length
    elif isinstance(e, Damper):
        row[E_KIND] = K_DAMPER
        row[ED_LIN : ED_LIN + 6] = e.linear
        row[ED_QUAD : ED_QUAD + 6] = e.quadratic
        row[ED_CURRENT : ED_CURRENT + 3] = e.current
    elif isinstance(e, Buoyancy):
        row[E_KIND] = K_BUOYANCY
        tri = outward(e.triangles)
        waves = wave_table(e.water, float(bodies.gravity[i]))
        row[EB_RHO], row[EB_LEVEL] = e.water.density, e.water.level
        row[EB_DEPTH] = 0.0 if e.water.depth is None else e.water.depth
        # each vertex once (its pressure is evaluated once a stage), the triangles as indices
        vertices, index = np.unique(tri.reshape(-1, 3), axis=0, return_inverse=True)
        row[EB_VERT], row[EB_NVERT] = len(aux), len(vertices)
        aux.extend(vertices.ravel().tolist())
        row[EB_TRI], row[EB_NTRI] = len(aux), len(tri)
        aux.extend(np.asarray(index, dtype=float).ravel().tolist())
        row[EB_WAVES], row[EB_NWAVES] = len(aux), len(waves)
        aux.extend(waves.ravel().tolist())
        row[EB_REACH] = float(np.linalg.norm(tri.reshape(-1, 3), axis=1).max())
        row[EB_CREST] = float(np.abs(waves[:, 0]).sum())
        if len(waves) == 0:  # still water: the pressure is linear, the tree's sums apply
            nodes, ordered = hull_tree.build(tri)
            row[EB_TREE], row[EB_NNODES] = len(aux), len(nodes)
            aux.extend(nodes.ravel().tolist())
            row[EB_CORNERS] = len(aux)
            aux.extend(ordered.ravel().tolist())
    elif isinstance(e, AddedMass):
        row[E_KIND] = K_ADDED_MASS
        row[EA_MATRIX] = len(aux)
        aux.extend(np.asarray(e.matrix, dtype=float).ravel().tolist())
    elif isinstance(e, Ground):
        row[E_KIND] = K_GROUND
        m = float(bodies.mass[i])
        k = GROUND_STIFFNESS_PER_KG * m if e.stiffness is None else e.stiffness
        row[EG_HEIGHT], row[EG_K], row[EG_MU], row[EG_SLIP] = e.height, k, e.friction, e.slip
        row[EG_C] = 2.0 * damping_ratio(e.restitution) * math.sqrt(k * m)
        row[EG_SHAPE] = 0.0 if e.shape.kind == "sphere" else 1.0
        row[EG_CENTRE : EG_CENTRE + 3] = e.shape.centre
        row[EG_EXTENT : EG_EXTENT + 3] = e.shape.extent
        row[EG_RATE] = friction_rate(bodies, i, e.shape)
    else:
        row[E_KIND] = K_LOAD
        row[EL_FRAME] = 1.0 if e.frame == "body" else 0.0
        row[EL_HAS_POINT] = 0.0 if e.point is None else 1.0
        row[EL_POINT : EL_POINT + 3] = (0.0, 0.0, 0.0) if e.point is None else e.point
        row[EL_F : EL_F + 3] = e.force
        row[EL_M : EL_M + 3] = e.moment
        codes = {"constant": S_CONSTANT, "step": S_STEP, "sine": S_SINE, "table": S_TABLE}
        row[EL_SIGNAL] = codes[e.signal]
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
    return row


def pack_system(bodies: Bodies, elements: Sequence[Element]) -> System:
    """The kernels' arrays for these elements acting on `bodies` (indices into it)."""
    n = len(bodies)
    for e in elements:
        if not 0 <= e.body < n or (
            isinstance(e, Spring) and e.other is not None and not 0 <= e.other < n
        ):
            raise ValueError(f"element {e!r}: body index out of range for {n} bodies")
    intervals = _intervals(n, elements)
    group_of = np.empty(n, dtype=np.int64)
    for g, (a, b) in enumerate(intervals):
        group_of[a : b + 1] = g
    ranked = sorted(range(len(elements)), key=lambda k: group_of[elements[k].body])
    aux: list[float] = []
    rows = np.zeros((len(elements), ELEMENT_SIZE))
    order = np.empty(len(elements), dtype=np.int64)
    for r, k in enumerate(ranked):
        e = elements[k]
        first = intervals[group_of[e.body]][0]
        other = e.other - first if isinstance(e, Spring) and e.other is not None else -1
        rows[r] = _row(e, e.body - first, other, bodies, aux)
        order[k] = r
    counts = np.bincount(group_of[[elements[k].body for k in ranked]], minlength=len(intervals))
    bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    groups = np.array([(a, b - a + 1) for a, b in intervals], dtype=np.int64).reshape(-1, 2)
    return System(groups, rows, bounds, np.asarray(aux, dtype=float), order, tuple(elements))


def alone(n: int) -> System:
    """n bodies, each its own group, no elements."""
    groups = np.stack([np.arange(n), np.ones(n, dtype=np.int64)], axis=1).astype(np.int64)
    return System(
        groups.reshape(-1, 2),
        np.zeros((0, ELEMENT_SIZE)),
        np.zeros(n + 1, dtype=np.int64),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
        (),
    )


def _shifted(e: Element, by: int) -> Element:
    """Element e with its body indices moved by `by` (its system's first body in a batch)."""
    if by == 0:
        return e
    if isinstance(e, Spring) and e.other is not None:
        return replace(e, body=e.body + by, other=e.other + by)
    return replace(e, body=e.body + by)


def concat_systems(systems: Sequence[System]) -> System:
    """One system of several, bodies and elements in order (e.g. every room of a server); the
    elements' body indices are the concatenated batch's."""
    groups, rows, bounds, aux, order = [], [], [np.zeros(1, dtype=np.int64)], [], []
    body0 = row0 = aux0 = 0
    firsts = []
    for s in systems:
        firsts.append(body0)
        g = s.groups.copy()
        g[:, 0] += body0
        groups.append(g)
        r = s.rows.copy()
        tables = r[:, E_KIND] == K_LOAD
        r[tables, EL_TABLE] += aux0
        hulls = r[:, E_KIND] == K_BUOYANCY
        r[hulls, EB_TRI] += aux0
        r[hulls, EB_VERT] += aux0
        r[hulls, EB_WAVES] += aux0
        r[hulls, EB_TREE] += aux0
        r[hulls, EB_CORNERS] += aux0
        r[r[:, E_KIND] == K_ADDED_MASS, EA_MATRIX] += aux0
        rows.append(r)
        bounds.append(s.bounds[1:] + row0)
        aux.append(s.aux)
        order.append(s.order + row0)
        body0 += s.n_bodies
        row0 += len(s.rows)
        aux0 += len(s.aux)
    pairs = zip(systems, firsts, strict=True)
    shifted = tuple(_shifted(e, first) for s, first in pairs for e in s.elements)
    return System(
        np.concatenate(groups).astype(np.int64).reshape(-1, 2),
        np.concatenate(rows).reshape(-1, ELEMENT_SIZE),
        np.concatenate(bounds).astype(np.int64),
        np.concatenate(aux) if aux else np.zeros(0),
        np.concatenate(order).astype(np.int64) if order else np.zeros(0, dtype=np.int64),
        shifted,
    )


__all__ = [
    "FRICTION_STEP_RATE",
    "GROUND_SLIP",
    "GROUND_STIFFNESS_PER_KG",
    "AddedMass",
    "Buoyancy",
    "ContactShape",
    "Damper",
    "Element",
    "Ground",
    "Pivot",
    "Spring",
    "System",
    "TimedLoad",
    "added_mass_matrix",
    "alone",
    "concat_systems",
    "damping_ratio",
    "friction_rate",
    "outward",
    "pack_system",
    "pivot_inertia",
]
