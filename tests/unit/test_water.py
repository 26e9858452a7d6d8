"""Water, buoyancy, added mass and current against closed forms (issue 28; docs/physics.md
"Water").

A box's draft m / (ρ L B), its heave period 2π √(m / (ρ g A_wp)) and roll period
2π √(I₄₄ / (ρ g ∇ GM)); a faceted sphere's draft against an independent volume of the
mesh below the plane; a submerged body's buoyancy ρ g V; a damped body carried at the
current's speed; a torque-free body with a full added-mass matrix keeping its Kirchhoff
impulse and energy; the dispersion relation. The figures measured when these were written
are in the comments and in docs/physics.md.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import AddedMass, Buoyancy
from sixdof.dynamics.hydro import hydro_outputs
from sixdof.dynamics.kinds.buoyancy import EB_NNODES
from sixdof.dynamics.quaternion import to_rotmat
from sixdof.dynamics.water import Water, Wave, wave_number
from sixdof.scenario import Scenario, scenario_from_json
from sixdof.scenario.elements import hull_triangles

G = 9.81
RHO = 1025.0


def scenario(body: dict[str, Any], elements: list[dict[str, Any]], **extra: Any) -> Scenario:
    return Scenario.model_validate(
        {"bodies": [{"Name": "B", **body}], "elements": elements, **extra}
    )


def packed(sc: Scenario) -> K.PackedBodies:
    return K.pack(sc.batch(), sc.system())


def heave_accel(pk: K.PackedBodies, z: float, quat=(1.0, 0.0, 0.0, 0.0)) -> float:  # type: ignore[no-untyped-def]
    x = make_state((0.0, 0.0, z), quat, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))[None].copy()
    return float(K.derivative(pk, x, np.zeros((1, 6)))[0, 9])


def equilibrium(pk: K.PackedBodies, lo: float, hi: float) -> float:
    """The Pos z where the body, upright, neither sinks nor rises (bisection)."""
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if heave_accel(pk, mid) > 0.0:  # still sinking: the equilibrium is deeper
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def run(
    pk: K.PackedBodies, x0: np.ndarray, h: float, t_end: float
) -> tuple[np.ndarray, np.ndarray]:
    x = np.array(np.atleast_2d(x0), dtype=float, order="C")
    first = x.copy()
    n = round(t_end / h)
    out = K.integrate_fixed(pk, x, np.zeros(6), np.full(n, h), np.ones(n, dtype=np.int64))
    return h * np.arange(n + 1), np.concatenate([first[None], out])[:, 0]


def period(times: np.ndarray, signal: np.ndarray) -> float:
    """Mean period from the + to − zero crossings (linear interpolation)."""
    k = np.flatnonzero((signal[:-1] > 0.0) & (signal[1:] <= 0.0))
    c = times[k] - signal[k] * (times[k + 1] - times[k]) / (signal[k + 1] - signal[k])
    return float(np.mean(np.diff(c)))


BOX = {"Mesh": "box.stl", "Size": [2.0, 1.0, 1.0]}
BOX_MASS = 0.4 * RHO * 2.0  # draft 0.4 m


# --------------------------------------------------------------------------- hydrostatics


@pytest.mark.closed_form("buoyancy")
def test_box_floats_at_its_draft() -> None:
    sc = scenario({**BOX, "Mass": BOX_MASS, "InertiaRadi": [0.3, 0.4, 0.5]},
                  [{"kind": "buoyancy", "body": "B"}])  # fmt: skip
    z = equilibrium(packed(sc), -0.5, 0.5)
    draft = 0.5 + z  # the keel is 0.5 m below the reference point
    assert abs(draft - BOX_MASS / (RHO * 2.0 * 1.0)) < 1e-9  # measured ~1e-16


def submerged(tri: np.ndarray, level: float) -> tuple[float, np.ndarray]:
    """Volume and centre of a closed outward mesh below z = level (NED), apart from the
    kernel: tetrahedra from a point on the plane to the clipped wetted triangles (the cap
    adds nothing: its triangles lie in the plane through that point)."""
    o = np.array([0.0, 0.0, level])
    vol, moment = 0.0, np.zeros(3)
    for t in tri:
        d = t[:, 2] - level
        pts = []
        for k in range(3):
            a, b = t[k], t[(k + 1) % 3]
            da, db = d[k], d[(k + 1) % 3]
            if da > 0:
                pts.append(a)
            if (da > 0) != (db > 0):
                pts.append(a + da / (da - db) * (b - a))
        for j in range(1, len(pts) - 1):
            a, b, c = pts[0], pts[j], pts[j + 1]
            v = float(np.dot(a - o, np.cross(b - o, c - o))) / 6.0
            vol += v
            moment += v * (o + a + b + c) / 4.0
    return vol, moment / vol


@pytest.mark.parametrize("mesh", ["box.stl", "cylinder.glb"])
def test_partly_submerged_volume_and_centre_at_any_attitude(mesh: str) -> None:
    """The kernel's buoyancy equals ρ g V_sub through the centre of buoyancy, both computed
    apart, for a box and a cylinder tilted and half in the water."""
    body = {"Mesh": mesh, "Size": [1.2, 0.8, 1.0], "Mass": 1.0, "CGOffset": [0.05, 0.0, 0.1]}
    sc = scenario(body, [{"kind": "buoyancy", "body": "B"}], water={"level": 0.3})
    pk = packed(sc)
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = np.array([0.4, -0.2, 0.3 + rng.uniform(-0.2, 0.2)])
        x = make_state(pos, q, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))[None].copy()
        tri = pos + hull_triangles(sc.bodies[0]) @ to_rotmat(q).T
        volume, centre = submerged(tri, 0.3)
        rec = K.element_records(pk, x, np.zeros((1, 6)))[0]
        assert rec[5] == pytest.approx(-RHO * G * volume, rel=1e-9)
        assert np.abs(rec[3:5]).max() < 1e-9 * RHO * G * volume
        # the record's point is the centre of buoyancy itself (hydro.place_buoyancy), depth too
        assert np.allclose(rec[0:3], centre, atol=1e-9)


@pytest.mark.parametrize("mesh", ["box.stl", "cylinder.glb", "ship.glb", "fhSphere.mesh"])
def test_compiled_submerged_part_equals_the_clipping_apart(mesh: str) -> None:
    """hull_submerged.submerged (compiled, every tick of a floating room: StoredEnergy and the
    buoyancy's drawn point) equals this file's clipping and hull_cut.cut, at random attitudes
    from dry to under water, wound either way."""
    from sixdof.dynamics.hull_cut import cut
    from sixdof.dynamics.hull_submerged import submerged as compiled

    body = {"Mesh": mesh, "Size": [1.3, 0.9, 1.1], "MeshOrigin": [0.1, -0.2, 0.05]}
    tri = hull_triangles(scenario(body, [{"kind": "buoyancy", "body": "B"}]).bodies[0])
    rng = np.random.default_rng(5)
    wet = 0
    for level in np.linspace(-1.0, 1.0, 9):
        q = rng.normal(size=4)
        rot = to_rotmat(q / np.linalg.norm(q)).reshape(3, 3)
        pos = rng.uniform(-0.3, 0.3, size=3)
        world = pos + tri @ rot.T
        for wound in (tri, np.ascontiguousarray(tri[:, ::-1])):
            volume, *centre = compiled(wound, rot, pos, float(level))
            whole = cut(world, float(level))
            assert volume == pytest.approx(whole.volume, rel=1e-12, abs=1e-15)
            if whole.volume > 1e-9:
                wet += 1
                apart, at = submerged(world, float(level))
                assert volume == pytest.approx(apart, rel=1e-12)
                assert np.allclose(centre, at, rtol=0.0, atol=1e-12)
                assert np.allclose(centre, whole.centre, rtol=0.0, atol=1e-12)
    assert wet >= 8  # partly and wholly under water, not only dry


@pytest.mark.parametrize("mesh", ["box.stl", "cylinder.glb", "ship.glb", "fhSphere.mesh"])
def test_still_water_tree_equals_clipping_every_triangle(mesh: str) -> None:
    """Still water goes through the hull's tree (dynamics.hull_tree: nodes under water add
    their linear sums, only waterline leaves are clipped); a wave of zero amplitude takes the
    other path, every triangle clipped at its vertices' pressures. Both equal the numpy
    clipping (water.hull_load) at any attitude and depth, from dry to under water."""
    from sixdof.dynamics.water import hull_load

    body = {"Mesh": mesh, "Size": [1.3, 0.9, 1.1], "Mass": 1.0, "CGOffset": [0.05, -0.1, 0.2],
            "MeshOrigin": [0.1, -0.2, 0.05]}  # fmt: skip
    still = scenario(body, [{"kind": "buoyancy", "body": "B"}], water={"level": 0.2})
    flat = scenario(body, [{"kind": "buoyancy", "body": "B"}],
                    water={"level": 0.2, "waves": [{"amplitude": 0.0, "period": 5.0}]})  # fmt: skip
    tree, plain = packed(still), packed(flat)
    assert int(tree.system.rows[0][EB_NNODES]) > 0 and int(plain.system.rows[0][EB_NNODES]) == 0
    tri = hull_triangles(still.bodies[0])
    rng = np.random.default_rng(11)
    checked = 0
    for z in np.linspace(-0.8, 1.2, 11):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = np.array([0.3, -0.4, z])
        x = make_state(pos, q, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))[None].copy()
        r = to_rotmat(q)
        world = pos + tri @ r.T
        cg = pos + r @ np.array([0.05, -0.1, 0.2])
        force, moment, _ = hull_load(world, RHO * G * (world[..., 2] - 0.2), cg)
        scale = RHO * G * 1.3 * 0.9 * 1.1 * (1.0 + 1.1)  # ρ g V and ρ g V × reach
        for pk in (tree, plain):
            rec = K.element_records(pk, x, np.zeros((1, 6)))[0]
            assert np.allclose(rec[3:6], force, rtol=0.0, atol=1e-12 * scale), (mesh, z)
            # still water pushes through the centre of buoyancy: M = (point − CG) × F
            turning = np.cross(rec[0:3] - cg, rec[3:6])
            assert np.allclose(turning, moment, rtol=0.0, atol=1e-11 * scale), (mesh, z)
        checked += bool(np.abs(force).max() > 0.0)
    assert checked >= 6  # most depths cut the hull or sink it


def submerged_volume(tri: np.ndarray, level: float) -> float:
    """Volume of a closed outward mesh below z = level (NED), independently of the kernel:
    tetrahedra from a point on the plane to the clipped wetted triangles (the cap adds
    nothing: its triangles lie in the plane through that point)."""
    o = np.array([0.0, 0.0, level])
    vol = 0.0
    for t in tri:
        d = t[:, 2] - level
        wet = d > 0
        polys: list[list[np.ndarray]] = []
        if wet.all():
            polys = [[t[0], t[1], t[2]]]
        elif wet.any():
            pts = []
            for k in range(3):
                a, b = t[k], t[(k + 1) % 3]
                da, db = d[k], d[(k + 1) % 3]
                if da > 0:
                    pts.append(a)
                if (da > 0) != (db > 0):
                    pts.append(a + da / (da - db) * (b - a))
            polys = [[pts[0], pts[j], pts[j + 1]] for j in range(1, len(pts) - 1)]
        for a, b, c in polys:
            vol += float(np.dot(a - o, np.cross(b - o, c - o))) / 6.0
    return vol


def test_sphere_floats_at_its_draft() -> None:
    mass = 200.0
    body = {"Mesh": "fhSphere.mesh", "Size": [1.0, 1.0, 1.0], "Mass": mass}
    sc = scenario(body, [{"kind": "buoyancy", "body": "B"}])
    z = equilibrium(packed(sc), -0.5, 0.5)
    tri = hull_triangles(sc.bodies[0]) + np.array([0.0, 0.0, z])
    # Archimedes on the faceted sphere: ρ V_sub = m, V_sub of the mesh computed apart
    assert abs(RHO * submerged_volume(tri, 0.0) / mass - 1.0) < 1e-9  # measured ~1e-15
    # and the draft of the true sphere of the same diameter, within the facets' error
    r = 0.5
    h = 0.5 + z  # the keel is 0.5 m below the centre
    cap = math.pi * h * h * (3 * r - h) / 3.0
    assert abs(RHO * cap / mass - 1.0) < 0.02  # 960 facets: ~1.6 % less volume than a sphere


@pytest.mark.parametrize("mesh", ["fhSphere.mesh", "box.stl", "cylinder.glb", "ship.glb"])
def test_submerged_buoyancy_is_rho_g_volume(mesh: str) -> None:
    body = {"Mesh": mesh, "Size": [1.3, 0.9, 1.1], "Mass": 1.0, "MeshOrigin": [0.1, -0.2, 0.05]}
    sc = scenario(body, [{"kind": "buoyancy", "body": "B"}], water={"density": 1000.0})
    tri = hull_triangles(sc.bodies[0])
    volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6
    pk = packed(sc)
    q = np.array([0.9, 0.3, -0.2, 0.25])
    q /= np.linalg.norm(q)
    x = make_state((0.0, 0.0, 10.0), q, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))[None].copy()
    rec = K.element_records(pk, x, np.zeros((1, 6)))[0]
    # F = −ρ g V ẑ at the centre of volume: the moment is (c − CG) × F
    assert np.allclose(rec[3:6], [0.0, 0.0, -1000.0 * G * volume], rtol=1e-12, atol=1e-9)
    cv = np.einsum("i,ij->j", np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])),
                   tri.sum(axis=1)) / (24.0 * volume)  # fmt: skip
    centre = x[0, 0:3] + to_rotmat(q) @ cv
    assert np.allclose(rec[0:2], centre[0:2], atol=1e-9)


# --------------------------------------------------------------------------- periods


def test_box_heave_period() -> None:
    sc = scenario({**BOX, "Mass": BOX_MASS, "InertiaRadi": [0.3, 0.4, 0.5]},
                  [{"kind": "buoyancy", "body": "B"}])  # fmt: skip
    pk = packed(sc)
    z0 = BOX_MASS / (RHO * 2.0) - 0.5
    x0 = make_state((0.0, 0.0, z0 + 0.05), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))
    times, xs = run(pk, x0, 1e-3, 10.0)
    expected = 2 * math.pi * math.sqrt(BOX_MASS / (RHO * G * 2.0))
    assert abs(period(times, xs[:, 2] - z0) / expected - 1.0) < 1e-4  # measured ~1e-7


@pytest.mark.closed_form("added_mass")
def test_box_heave_period_with_added_mass() -> None:
    a33 = 300.0
    added = {"kind": "added_mass", "body": "B", "diagonal": [0, 0, a33, 0, 0, 0]}
    sc = scenario({**BOX, "Mass": BOX_MASS, "InertiaRadi": [0.3, 0.4, 0.5]},
                  [{"kind": "buoyancy", "body": "B"}, added])  # fmt: skip
    pk = packed(sc)
    z0 = BOX_MASS / (RHO * 2.0) - 0.5
    x0 = make_state((0.0, 0.0, z0 + 0.05), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))
    times, xs = run(pk, x0, 1e-3, 10.0)
    expected = 2 * math.pi * math.sqrt((BOX_MASS + a33) / (RHO * G * 2.0))
    assert abs(period(times, xs[:, 2] - z0) / expected - 1.0) < 1e-4


def box_roll(kg: float, radius: float) -> tuple[float, float]:
    """(measured, closed-form) roll period of the 2 × 1 × 1 box at draft 0.4 m with its CG
    `kg` above the keel and roll radius of gyration `radius`."""
    draft = 0.4
    body = {**BOX, "Mass": BOX_MASS, "InertiaRadi": [radius, 0.5, 0.5],
            "MeshOrigin": [0.0, 0.0, kg - 0.5]}  # fmt: skip
    sc = scenario(body, [{"kind": "buoyancy", "body": "B"}])
    pk = packed(sc)
    z0 = draft - kg  # the CG (the reference point) is kg above the keel
    phi0 = 0.01
    q = (math.cos(phi0 / 2), math.sin(phi0 / 2), 0.0, 0.0)
    times, xs = run(pk, make_state((0.0, 0.0, z0), q, (0, 0, 0), (0, 0, 0)), 2e-3, 30.0)
    roll = 2.0 * np.arctan2(xs[:, 4], xs[:, 3])
    volume = 2.0 * 1.0 * draft
    gm = draft / 2 + 1.0 / (12.0 * draft) - kg
    expected = 2 * math.pi * math.sqrt(BOX_MASS * radius**2 / (RHO * G * volume * gm))
    return period(times, roll), expected


@pytest.mark.parametrize(("kg", "radius"), [(0.2, 0.35), (0.35, 0.35), (0.2, 0.5)])
def test_box_roll_period(kg: float, radius: float) -> None:
    measured, expected = box_roll(kg, radius)
    assert abs(measured / expected - 1.0) < 0.01


# --------------------------------------------------------------------------- current


def test_damped_body_drifts_with_the_current() -> None:
    current = (0.8, -0.3, 0.0)
    sc = scenario({"Mass": 10.0, "Gravity": 0.0, "Quater": [0.9, 0.1, 0.3, 0.2]},
                  [{"kind": "damper", "body": "B", "linear": [20, 20, 20, 1, 1, 1],
                    "quadratic": [5, 5, 5, 0, 0, 0]}],
                  water={"current": list(current)})  # fmt: skip
    pk = packed(sc)
    _times, xs = run(pk, sc.initial_states()[0], 1e-2, 30.0)
    vel = to_rotmat(xs[-1, 3:7] / np.linalg.norm(xs[-1, 3:7])) @ xs[-1, 7:10]
    assert np.allclose(vel, current, atol=1e-8)


# --------------------------------------------------------------------------- added mass


def test_added_mass_keeps_kirchhoff_impulse_and_energy() -> None:
    rng = np.random.default_rng(28)
    a = rng.normal(size=(6, 6))
    ma = a @ a.T + 2.0 * np.eye(6)
    bp = BodyParams.from_radii(3.0, (0.5, 0.6, 0.7), gravity=0.0)
    pk = K.pack(Bodies.of([bp]), [AddedMass(0, tuple(map(tuple, ma)))])
    mass = bp.mass_matrix + ma
    x0 = make_state((0.0, 0.0, 0.0), (1, 0, 0, 0), (0.5, -0.2, 0.3), (0.7, 0.4, -0.9))
    _times, xs = run(pk, x0, 1e-3, 5.0)

    def impulse(x: np.ndarray) -> np.ndarray:
        r = to_rotmat(x[3:7] / np.linalg.norm(x[3:7]))
        return r @ (mass @ x[7:13])[0:3]

    def energy(x: np.ndarray) -> float:
        return 0.5 * float(x[7:13] @ mass @ x[7:13])

    p0, e0 = impulse(xs[0]), energy(xs[0])
    drift = max(np.linalg.norm(impulse(x) - p0) for x in xs[::100])
    assert drift < 1e-8 * np.linalg.norm(p0)
    assert max(abs(energy(x) - e0) for x in xs[::100]) < 1e-8 * e0


# --------------------------------------------------------------------------- waves


def test_dispersion() -> None:
    omega = 2 * math.pi / 8.0
    assert wave_number(omega, G, None) == pytest.approx(omega**2 / G, rel=1e-15)
    for depth in (1.0, 10.0, 100.0):
        k = wave_number(omega, G, depth)
        assert omega**2 == pytest.approx(G * k * math.tanh(k * depth), rel=1e-13)
    assert wave_number(omega, G, 1e4) == pytest.approx(omega**2 / G, rel=1e-12)


def test_small_box_follows_long_waves() -> None:
    """A small box in a long wave heaves with the wave's amplitude (RAO → 1): natural period
    1 s in a 12 s wave, heave damped at ζ ≈ 0.5 so that the start's transient dies out."""
    amplitude, wave_period = 0.1, 12.0
    body = {"Mesh": "box.stl", "Size": [0.5, 0.5, 0.5], "Mass": 0.25 * 0.25 * RHO * 0.5,
            "InertiaRadi": [0.2, 0.2, 0.2]}  # fmt: skip
    water = {"waves": [{"amplitude": amplitude, "period": wave_period, "direction": 0}]}
    sc = scenario(body, [{"kind": "buoyancy", "body": "B"},
                         {"kind": "damper", "body": "B", "linear": [0, 0, 280, 5, 5, 5]}],
                  water=water)  # fmt: skip
    pk = packed(sc)
    z0 = 0.125 - 0.25
    times, xs = run(pk, make_state((0, 0, z0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0)), 5e-3, 60.0)
    late = times > 36.0
    heave = -(xs[late, 2] - z0)
    assert abs(0.5 * (heave.max() - heave.min()) / amplitude - 1.0) < 0.04  # measured 0.3 %


def refused(water: Any = None, elements: Any = ()) -> str:
    text = json.dumps({"bodies": [{"Name": "B"}], "elements": list(elements),
                       **({} if water is None else {"water": water})})  # fmt: skip
    with pytest.raises(ValueError) as info:
        scenario_from_json(text)
    return str(info.value)


def test_water_is_checked() -> None:
    assert "density" in refused({"density": -1.0}) and "[1, 20000]" in refused({"density": 0})
    assert "period" in refused({"waves": [{"amplitude": 1.0, "period": 0.0}]})
    assert "current" in refused({"current": [0, 0, 1e3]})
    assert "depth" in refused({"depth": 0.0})
    assert "diagonal" in refused(elements=[{"kind": "added_mass", "body": "B"}])
    asym = [[1.0 if (a, b) == (0, 4) else 0.0 for b in range(6)] for a in range(6)]
    assert "symmetric" in refused(elements=[{"kind": "added_mass", "body": "B", "matrix": asym}])


def test_water_travels_in_the_scenario_json() -> None:
    sc = scenario(BOX, [{"kind": "buoyancy", "body": "B"}],
                  water={"level": 1.5, "waves": [{"amplitude": 0.2, "period": 5}]})  # fmt: skip
    again = Scenario.model_validate_json(sc.model_dump_json())
    assert again.water is not None and again.water.level == 1.5
    assert Water(level=1.5, waves=(Wave(0.2, 5.0, 0.0),)) == again.water.dynamics()
    assert isinstance(sc.system().elements[0], Buoyancy)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- outputs


def test_hydro_outputs() -> None:
    """Draft, Heel, Trim and the wave elevation at the CG (dynamics.water.hydro_outputs)."""
    sc = scenario({**BOX, "Mass": BOX_MASS, "CGOffset": [0.0, 0.0, 0.1]},
                  [{"kind": "buoyancy", "body": "B"}],
                  water={"level": 0.5, "waves": [{"amplitude": 0.2, "period": 8.0}]})  # fmt: skip
    heel = 0.1
    q = (math.cos(heel / 2), math.sin(heel / 2), 0.0, 0.0)
    x = make_state((3.0, 1.0, 0.4), q, (0, 0, 0), (0, 0, 0))[None]
    out = hydro_outputs(sc.system(), sc.batch(), x, t=1.5)
    k = (2 * math.pi / 8.0) ** 2 / G
    r = to_rotmat(np.array(q))
    cg = x[0, 0:3] + r @ np.array([0.0, 0.0, 0.1])
    assert out["WaveElevation"][0] == pytest.approx(
        0.2 * math.cos(2 * math.pi / 8 * 1.5 - k * cg[0])
    )
    assert out["Heel"][0] == pytest.approx(heel) and out["Trim"][0] == pytest.approx(0.0, abs=1e-15)
    # the lowest corner of the keel (the hull sits at CGOffset: 0.5 + 0.1 m below o)
    corners = np.array([[sx, sy, 0.6] for sx in (-1.0, 1.0) for sy in (-0.5, 0.5)])
    world = x[0, 0:3] + corners @ r.T
    eta = 0.2 * np.cos(2 * math.pi / 8 * 1.5 - k * world[:, 0])
    assert out["Draft"][0] == pytest.approx(float(np.max(world[:, 2] - (0.5 - eta))), abs=1e-12)


def test_a_body_with_two_hulls_draws_the_deeper() -> None:
    """Two buoyancy elements on one body (a catamaran's hulls, through the Python API): its
    Draft is the deeper hull's, whichever comes first (the later one used to win)."""
    from sixdof.dynamics.elements import pack_system

    sc = scenario({**BOX, "Mass": BOX_MASS}, [{"kind": "buoyancy", "body": "B"}])
    box = hull_triangles(sc.bodies[0])  # the keel 0.5 m below the reference point
    shallow = box + np.array([0.0, 2.0, -0.2])  # its keel 0.3 m below
    x = make_state((0.0, 0.0, 0.1), (1.0, 0.0, 0.0, 0.0), (0, 0, 0), (0, 0, 0))[None]
    for hulls in ((box, shallow), (shallow, box)):
        system = pack_system(sc.batch(), [Buoyancy(0, h, Water()) for h in hulls])
        assert hydro_outputs(system, sc.batch(), x)["Draft"][0] == pytest.approx(0.6, abs=1e-12)


def test_a_live_room_floats_the_box_at_its_draft_in_its_frames() -> None:
    """The barge through LiveSimulation (the engine's path): frames carry Draft, Heel, Trim
    and WaveElevation; the box, started at its draft, stays there."""
    from sixdof.simulation import LiveSimulation

    z0 = BOX_MASS / (RHO * 2.0) - 0.5
    data = {"bodies": [{"Name": "B", **BOX, "Mass": BOX_MASS, "InertiaRadi": [0.3, 0.4, 0.5],
                        "Pos": [0.0, 0.0, z0]}],
            "elements": [{"kind": "buoyancy", "body": "B"}], "water": {"level": 0.0}}  # fmt: skip
    sim = LiveSimulation(Scenario.model_validate(data), running=False)
    sim.step(200)
    body = sim.frame()["bodies"][0]
    assert body["Draft"] == pytest.approx(0.4, abs=1e-9)
    # the tree sums round differently on each side: a heel of ~1e-17 rad, not exactly 0
    assert body["Heel"] == pytest.approx(0.0, abs=1e-12)
    assert body["Trim"] == pytest.approx(0.0, abs=1e-12) and body["WaveElevation"] == 0.0
    assert sim.scenario.water is not None  # the scenario the page gets keeps its water


def test_the_engine_gives_each_room_its_own_water() -> None:
    """Two rooms in one engine batch (their elements concatenated): each frame's Draft and
    WaveElevation come from its own room's water and time."""
    from support.fakes import FakeClock

    from sixdof.simulation import LiveSimulation
    from sixdof.simulation.engine import Engine

    z0 = BOX_MASS / (RHO * 2.0) - 0.5
    body = {"Name": "B", **BOX, "Mass": BOX_MASS, "InertiaRadi": [0.3, 0.4, 0.5],
            "Pos": [0.0, 0.0, z0]}  # fmt: skip
    free = {"bodies": [{"Name": "F", "Gravity": 0.0}]}
    still = {"bodies": [body], "elements": [{"kind": "buoyancy", "body": "B"}]}
    wavy = {**still, "water": {"level": 0.1, "waves": [{"amplitude": 0.05, "period": 7.0}]}}
    clock = FakeClock()
    sims = [LiveSimulation(Scenario.model_validate(s), clock=clock) for s in (free, still, wavy)]
    engine = Engine(clock=clock, sims=sims)
    for _ in range(6):
        clock.t += 1 / 60
        engine.advance(clock.t)
    frames = [s.frame()["bodies"][0] for s in sims]
    assert frames[0]["Draft"] == 0.0 and frames[0]["WaveElevation"] == 0.0
    assert frames[1]["Draft"] == pytest.approx(0.4, abs=1e-9)
    t = sims[2].t
    assert t > 0.05
    x = frames[2]["Pos"][0]
    k = (2 * math.pi / 7.0) ** 2 / G
    assert frames[2]["WaveElevation"] == pytest.approx(0.05 * math.cos(2 * math.pi / 7 * t - k * x))


def test_xml_carries_the_water_buoyancy_and_added_mass() -> None:
    """The FhSim XML form (Environment/Water, Element/Buoyancy, Element/AddedMass) reads back
    the same scenario; tests/unit/test_fhsim_xml_water.py has the rest."""
    from sixdof.scenario import scenario_from_xml
    from sixdof.scenario.fhsim_xml_write import scenario_to_xml

    added = {"kind": "added_mass", "body": "B", "diagonal": [1, 2, 3, 4, 5, 6]}
    for floating in (
        scenario(BOX, [{"kind": "buoyancy", "body": "B"}, added]),
        scenario(BOX, [{"kind": "buoyancy", "body": "B"}], water={"level": 1.0}),
    ):
        assert scenario_from_xml(scenario_to_xml(floating)) == floating


def test_box_heeled_by_a_steady_moment_settles_at_the_wall_sided_angle() -> None:
    """ρ g ∇ sin φ (GM + ½ BM tan² φ) = M for a wall-sided box (deck and bilge clear)."""
    from scipy.optimize import fsolve

    kg, draft = 0.2, 0.4
    body = {**BOX, "Mass": BOX_MASS, "InertiaRadi": [0.35, 0.5, 0.5],
            "MeshOrigin": [0.0, 0.0, kg - 0.5]}  # fmt: skip
    pk = packed(scenario(body, [{"kind": "buoyancy", "body": "B"}]))
    volume = 2.0 * 1.0 * draft
    bm = 1.0 / (12.0 * draft)
    gm = draft / 2 + bm - kg
    for phi in (0.1, 0.3, 0.5):
        moment = RHO * G * volume * math.sin(phi) * (gm + 0.5 * bm * math.tan(phi) ** 2)
        u = np.array([[0.0, 0.0, 0.0, moment, 0.0, 0.0]])

        def residual(v: np.ndarray, u: np.ndarray = u) -> list[float]:
            q = (math.cos(v[1] / 2), math.sin(v[1] / 2), 0.0, 0.0)
            x = make_state((0.0, 0.0, v[0]), q, (0, 0, 0), (0, 0, 0))[None].copy()
            d = K.derivative(pk, x, u)[0]
            return [float(d[9]), float(d[10])]

        _z, found = fsolve(residual, [draft - kg, 0.8 * phi], xtol=1e-13)
        assert found == pytest.approx(phi, rel=1e-9)  # the issue asks 0.3 %
