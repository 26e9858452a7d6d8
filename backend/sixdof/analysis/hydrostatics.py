"""Hydrostatics of a floating body in still water: its equilibrium draft, centre of
buoyancy, waterplane, metacentric heights, linear natural periods and righting levers
(DESIGN.md section 8; issue 28; docs/physics.md "Hydrostatic numbers").

The hull is the body's drawn shape, the closed triangle mesh the buoyancy element clips
(`scenario.elements.hull_triangles`), so the numbers here are those of the simulated body,
facets and all. Everything is exact for that polyhedron: the submerged volume and its centre
from signed tetrahedra of the clipped wetted surface (a point on the waterplane as apex, so
the cap adds nothing), the waterplane's area and moments from the cut's boundary by Green's
theorem, and the draft from ρ ∇ = m, solved by safeguarded Newton (dV/dz = −A_wp) to
rounding.

Conventions: NED, body axes x forward, y starboard, z down; heel φ and trim θ are the roll
and pitch Euler angles (z-y-x) of the `Heel` and `Trim` outputs. K is the hull's lowest
point; KB, KG are heights above it; "upright" means no heel, with the trim free (the
body settles at the trim where its centre of buoyancy is below its CG, which is zero for a
hull symmetric fore and aft about its CG).

    BM_T = I_T / ∇,  BM_L = I_L / ∇    (waterplane second moments about the centre of flotation)
    GM = KB + BM − KG
    T_heave = 2π √((m + A₃₃) / (ρ g A_wp)),  T_roll = 2π √((I₄₄ + A₄₄) / (ρ g ∇ GM_T)),
    T_pitch = 2π √((I₅₅ + A₅₅) / (ρ g ∇ GM_L))   (none when the GM is not positive)
    GZ(φ): the horizontal lever from the CG to the centre of buoyancy at heel φ, the draft
    (and trim) re-solved at each heel so the displacement stays m; a steady heeling moment
    M settles where ρ g ∇ GZ(φ) = M.

I₄₄, I₅₅ are about the CG; A₄₄, A₅₅ (an added_mass element's diagonal) are about the
reference point, so the periods assume the two are close.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dynamics.hull_cut import Cut, cut

if TYPE_CHECKING:
    from ..scenario import Scenario

Array = np.ndarray

#: Newton/bisection iterations at most for one draft (it takes about 5 to 8).
_MAX_ITER = 200


def mesh_volume(triangles: Array) -> float:
    """The enclosed volume of a closed outward mesh (divergence theorem), m³."""
    t = np.asarray(triangles, dtype=float)
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum()) / 6.0


def float_level(triangles: Array, volume: float) -> tuple[float, Cut]:
    """The plane z = level below which the mesh holds `volume` (Newton on dV/dz = −A_wp,
    kept inside a shrinking bracket; bisection where Newton would leave it), and its cut.
    ValueError if the whole mesh holds less (the body sinks) or `volume` is not positive."""
    tri = np.asarray(triangles, dtype=float)
    zs = tri[:, :, 2]
    lo, hi = float(zs.min()), float(zs.max())  # V(lo) = all of it, V(hi) = 0
    total = mesh_volume(tri)
    if not volume > 0.0:
        raise ValueError(f"no displacement to float: volume {volume:g} m³")
    if volume >= total:
        raise ValueError(f"sinks: it displaces {volume:g} m³ but its hull holds {total:g} m³")
    z = hi - (hi - lo) * volume / total
    best: tuple[float, float, Cut] | None = None
    for _ in range(_MAX_ITER):
        c = cut(tri, z)
        f = c.volume - volume
        if best is None or abs(f) < best[0]:
            best = (abs(f), z, c)
        if f == 0.0 or abs(f) <= 2e-16 * volume:
            break
        if f > 0.0:  # too much under water: the plane goes down (z up)
            lo = z
        else:
            hi = z
        if hi - lo <= 4e-16 * max(abs(lo), abs(hi), 1e-300):
            break
        step = z + f / c.area if c.area > 0.0 else math.nan
        z = step if lo < step < hi else 0.5 * (lo + hi)
    assert best is not None
    return best[1], best[2]


def rotation(heel: float, trim: float) -> Array:
    """Body → world rotation of Euler angles z-y-x with yaw 0: R_y(trim) R_x(heel)."""
    cf, sf, ct, st = math.cos(heel), math.sin(heel), math.cos(trim), math.sin(trim)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cf, -sf], [0.0, sf, cf]])
    ry = np.array([[ct, 0.0, st], [0.0, 1.0, 0.0], [-st, 0.0, ct]])
    return ry @ rx


@dataclass(frozen=True)
class Floating:
    """The body at rest at a heel: trim, the plane's level in CG-centred world axes (the
    CG at the origin), the submerged part's cut and the lowest point's depth below the
    plane."""

    heel: float
    trim: float
    level: float
    cut: Cut
    draft: float


def float_at(
    hull_cg: Array, volume: float, heel: float, trim: float | None = None, guess: float = 0.0
) -> Floating:
    """The hull (body axes, from the CG) at `heel`, floating with `volume` under water, the
    trim given or (None) free: the trim where the centre of buoyancy is straight below or
    above the CG (secant from `guess`)."""
    tri = np.asarray(hull_cg, dtype=float)
    length = float(np.ptp(tri.reshape(-1, 3)[:, 0])) or 1.0

    def at(theta: float) -> tuple[float, Cut]:
        world = tri @ rotation(heel, theta).T
        return float_level(world, volume)

    if trim is not None:
        level, c = at(trim)
        return Floating(heel, trim, level, c, _depth(tri, heel, trim, level))
    t0, (l0, c0) = guess, at(guess)
    f0 = float(c0.centre[0])
    if abs(f0) <= 1e-13 * length:
        return Floating(heel, t0, l0, c0, _depth(tri, heel, t0, l0))
    # the pitch lever changes by about −GM_L per radian; start with a small step
    t1 = t0 - math.copysign(1e-3, f0) if f0 else t0 + 1e-3
    l1, c1 = at(t1)
    f1 = float(c1.centre[0])
    for _ in range(60):
        if abs(f1) <= 1e-13 * length or f1 == f0:
            break
        t2 = t1 - f1 * (t1 - t0) / (f1 - f0)
        t2 = max(min(t2, t1 + 0.2), t1 - 0.2)  # no jumps beyond ~11°
        t0, f0 = t1, f1
        t1 = t2
        l1, c1 = at(t1)
        f1 = float(c1.centre[0])
    return Floating(heel, t1, l1, c1, _depth(tri, heel, t1, l1))


def _depth(tri: Array, heel: float, trim: float, level: float) -> float:
    return float((tri.reshape(-1, 3) @ rotation(heel, trim).T)[:, 2].max()) - level


@dataclass(frozen=True)
class Hydrostatics:
    """The upright equilibrium of one floating body (module docstring)."""

    body: str
    draft: float  # m, depth of the hull's lowest point
    volume: float  # ∇, m³
    KB: float  # m, centre of buoyancy above the lowest point
    KG: float  # m, CG above the lowest point
    BM_T: float  # m
    BM_L: float  # m
    GM_T: float  # m
    GM_L: float  # m
    A_wp: float  # m²
    trim: float  # rad, the free trim it floats at (0 for a hull balanced fore and aft)
    heave: float | None  # s
    roll: float | None  # s, None when GM_T ≤ 0 (unstable)
    pitch: float | None  # s, None when GM_L ≤ 0

    def message(self) -> dict[str, Any]:
        """The hello's entry: body, draft, volume, KB, KG, BM_T, BM_L, GM_T, GM_L, A_wp and
        periods {heave, roll, pitch} (null when unstable)."""
        return {
            "body": self.body,
            "draft": self.draft,
            "volume": self.volume,
            "KB": self.KB,
            "KG": self.KG,
            "BM_T": self.BM_T,
            "BM_L": self.BM_L,
            "GM_T": self.GM_T,
            "GM_L": self.GM_L,
            "A_wp": self.A_wp,
            "periods": {"heave": self.heave, "roll": self.roll, "pitch": self.pitch},
        }


def _period(inertia: float, stiffness: float) -> float | None:
    if not (stiffness > 0.0 and inertia > 0.0 and math.isfinite(stiffness)):
        return None
    return 2.0 * math.pi * math.sqrt(inertia / stiffness)


def upright(
    hull: Array,
    mass: float,
    cg: Array,
    inertia_cg: Array,
    *,
    density: float = 1025.0,
    gravity: float = 9.81,
    added: Array | None = None,
    name: str = "",
    trim: float | None = None,
) -> Hydrostatics:
    """The upright equilibrium (heel 0, trim free unless given) of a hull (T, 3, 3), body
    axes from the reference point, with its CG `cg` (body axes), inertia about the CG
    (3 × 3) and an added-mass diagonal `added` (6) if any. ValueError if it sinks."""
    tri = np.asarray(hull, dtype=float) - np.asarray(cg, dtype=float)
    volume = mass / density
    fl = float_at(tri, volume, 0.0, trim)
    c = fl.cut
    keel = fl.level + fl.draft  # the lowest point's z (CG at the origin)
    kb, kg = keel - float(c.centre[2]), keel
    bm_t, bm_l = c.i_xx / c.volume, c.i_yy / c.volume
    gm_t, gm_l = kb + bm_t - kg, kb + bm_l - kg
    a = np.zeros(6) if added is None else np.asarray(added, dtype=float)
    inertia = np.asarray(inertia_cg, dtype=float)
    weight = density * gravity
    return Hydrostatics(
        body=name,
        draft=fl.draft,
        volume=c.volume,
        KB=kb,
        KG=kg,
        BM_T=bm_t,
        BM_L=bm_l,
        GM_T=gm_t,
        GM_L=gm_l,
        A_wp=c.area,
        trim=fl.trim,
        heave=_period(mass + a[2], weight * c.area),
        roll=_period(inertia[0, 0] + a[3], weight * c.volume * gm_t),
        pitch=_period(inertia[1, 1] + a[4], weight * c.volume * gm_l),
    )


def righting_levers(
    hull: Array,
    mass: float,
    cg: Array,
    heels: Any,
    *,
    density: float = 1025.0,
    trim: float | None = None,
) -> Array:
    """GZ(φ), m, for each heel φ (rad): the horizontal distance (world y) from the CG to the
    centre of buoyancy, the body floating at each heel with its displacement m / ρ (draft
    re-solved, trim free unless given). Positive GZ rights the body: the buoyancy's moment
    about the CG is −ρ g ∇ GZ about x, so a steady heeling moment M settles where
    ρ g ∇ GZ(φ) = M."""
    tri = np.asarray(hull, dtype=float) - np.asarray(cg, dtype=float)
    volume = mass / density
    out = []
    guess = 0.0
    for phi in np.atleast_1d(np.asarray(heels, dtype=float)):
        fl = float_at(tri, volume, float(phi), trim, guess)
        guess = fl.trim
        out.append(float(fl.cut.centre[1]))
    return np.asarray(out)


def heel_under(
    hull: Array,
    mass: float,
    cg: Array,
    moment: float,
    *,
    density: float = 1025.0,
    gravity: float = 9.81,
    trim: float | None = None,
    below: float = 0.0,
    above: float = 1.2,
) -> float:
    """The steady heel φ (rad) in [below, above] where ρ g ∇ GZ(φ) equals the heeling
    `moment` (N·m about x), by bisection on the GZ curve (it must cross in the range)."""
    target = moment / (gravity * mass)  # GZ = M / (ρ g ∇) = M / (m g)

    def f(phi: float) -> float:
        return float(righting_levers(hull, mass, cg, [phi], density=density, trim=trim)[0])

    lo, hi = below, above
    flo = f(lo) - target
    if (f(hi) - target) * flo > 0.0:
        raise ValueError("the GZ curve does not reach the heeling lever in the range")
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        fm = f(mid) - target
        if (fm > 0.0) == (flo > 0.0):
            lo, flo = mid, fm
        else:
            hi = mid
        if hi - lo <= 1e-15:
            break
    return 0.5 * (lo + hi)


def scenario_hydrostatics(scenario: Scenario) -> list[Hydrostatics]:
    """The upright equilibrium of every body of `scenario` with a buoyancy element, in the
    scenario's water (still: the waves and current do not enter), in body order; a body
    that would sink (or has no hull volume) is left out. Each body's numbers are cached by
    what they depend on (its shape, mass, CG, inertia, gravity, added mass and the water's
    density), so a change elsewhere (an input, another body, the integrator) costs nothing."""
    from ..scenario.elements import AddedMassElement, BuoyancyElement

    floating = {e.body for e in scenario.elements if isinstance(e, BuoyancyElement)}
    added: dict[str, tuple[float, ...]] = {}
    for e in scenario.elements:
        if isinstance(e, AddedMassElement):
            diag = tuple(e.values()[k][k] for k in range(6))
            old = added.get(e.body, (0.0,) * 6)
            added[e.body] = tuple(a + b for a, b in zip(old, diag, strict=True))
    density = scenario.water.density if scenario.water is not None else 1025.0
    out = []
    for body in scenario.bodies:
        if body.Name not in floating:
            continue
        shape = (body.Mesh, body.MeshScale, body.Size, body.CGOffset, body.MeshOrigin)
        mass = (body.Mass, body.InertiaRadi, body.Inertia, body.Gravity)
        key = (*shape, *mass, density, added.get(body.Name))
        found = _body_upright(key)
        if found is not None:
            out.append(replace(found, body=body.Name))
    return out


@lru_cache(maxsize=256)
def _body_upright(key: tuple[Any, ...]) -> Hydrostatics | None:
    from ..scenario import BodySpec
    from ..scenario.elements import hull_triangles

    mesh, mesh_scale, size, cg, origin, mass, radii, inertia, gravity, density, added = key
    body = BodySpec(
        Mesh=mesh,
        MeshScale=mesh_scale,
        Size=size,
        CGOffset=cg,
        MeshOrigin=origin,
        Mass=mass,
        InertiaRadi=radii,
        Inertia=inertia,
        Gravity=gravity,
    )
    params = body.params()
    try:
        return upright(
            hull_triangles(body),
            params.mass,
            np.asarray(cg, dtype=float),
            params.inertia_cg,
            density=density,
            gravity=gravity,
            added=None if added is None else np.asarray(added, dtype=float),
        )
    except (ValueError, FloatingPointError, ZeroDivisionError):
        return None


__all__ = [
    "Cut",
    "Floating",
    "Hydrostatics",
    "cut",
    "float_at",
    "float_level",
    "heel_under",
    "mesh_volume",
    "righting_levers",
    "rotation",
    "scenario_hydrostatics",
    "upright",
]
