"""Hydrostatics (sixdof.analysis.hydrostatics) against closed forms: a box's draft
m / (ρ L B), KB = T/2, BM = B²/(12 T), waterplane and wall-sided GZ = sin φ (GM + ½ BM tan² φ);
a vertical cylinder's BM = π R⁴ / (4 ∇) (exactly that of its 40-sided polygon); the
waterplane's moments as the derivatives of the volume's; the hello's entries (docs/physics.md
"Hydrostatic numbers"). Figures measured when these were written are in the comments.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from sixdof.analysis.hydrostatics import (
    cut,
    float_level,
    heel_under,
    mesh_volume,
    righting_levers,
    rotation,
    scenario_hydrostatics,
    upright,
)
from sixdof.scenario import Scenario
from sixdof.scenario.elements import hull_triangles

RHO, G = 1025.0, 9.81
REL = 1e-9


Vec = tuple[float, float, float]


def box_scenario(
    size: Vec,
    draft: float,
    kg: float,
    *,
    cg: Vec = (0.0, 0.0, 0.0),
    radii: Vec = (0.3, 0.5, 0.5),
    extra: Sequence[dict[str, Any]] = (),
) -> Scenario:
    """One box (L, B, D) floating at `draft`, its CG `kg` above the keel on the box's axis,
    the CG at `cg` from the reference point (CGOffset)."""
    length, beam, depth = size
    mass = RHO * length * beam * draft
    body = {
        "Name": "Box",
        "Mass": mass,
        "InertiaRadi": list(radii),
        "Mesh": "box",
        "Size": list(size),
        "CGOffset": list(cg),
        "MeshOrigin": [0.0, 0.0, kg - depth / 2],  # the box's centre seen from the CG
    }
    return Scenario.model_validate(
        {
            "bodies": [body],
            "elements": [{"kind": "buoyancy", "body": "Box"}, *extra],
            "water": {"density": RHO},
        }
    )


BOXES = [((2.0, 1.0, 1.0), 0.4, 0.2), ((3.0, 1.2, 0.8), 0.3, 0.45), ((1.0, 2.5, 1.5), 0.7, 0.3)]


@pytest.mark.parametrize(("size", "draft", "kg"), BOXES)
def test_box_upright_closed_forms(
    size: tuple[float, float, float], draft: float, kg: float
) -> None:
    length, beam, _ = size
    sc = box_scenario(size, draft, kg, cg=(0.1, 0.0, -0.05))
    (h,) = scenario_hydrostatics(sc)
    volume = length * beam * draft
    bm_t, bm_l = beam**2 / (12 * draft), length**2 / (12 * draft)
    assert h.body == "Box" and h.trim == 0.0
    assert h.draft == pytest.approx(draft, rel=REL)  # measured error ≤ 2e-16 m
    assert h.volume == pytest.approx(volume, rel=REL)
    assert h.KB == pytest.approx(draft / 2, rel=REL)
    assert h.KG == pytest.approx(kg, rel=REL)
    assert h.A_wp == pytest.approx(length * beam, rel=REL)
    assert h.BM_T == pytest.approx(bm_t, rel=REL)
    assert h.BM_L == pytest.approx(bm_l, rel=REL)
    assert h.GM_T == pytest.approx(draft / 2 + bm_t - kg, rel=REL)
    assert h.GM_L == pytest.approx(draft / 2 + bm_l - kg, rel=REL)
    mass, (rx, ry, _) = sc.bodies[0].Mass, sc.bodies[0].InertiaRadi
    assert h.heave == pytest.approx(2 * math.pi * math.sqrt(mass / (RHO * G * length * beam)))
    assert h.roll == pytest.approx(
        2 * math.pi * math.sqrt(mass * rx**2 / (RHO * G * volume * h.GM_T)), rel=REL
    )
    assert h.pitch == pytest.approx(
        2 * math.pi * math.sqrt(mass * ry**2 / (RHO * G * volume * h.GM_L)), rel=REL
    )


def test_added_mass_lengthens_the_periods_and_unstable_has_none() -> None:
    a = [0.0, 0.0, 300.0, 20.0, 40.0, 0.0]
    added = {"kind": "added_mass", "body": "Box", "diagonal": a}
    sc = box_scenario((2.0, 1.0, 1.0), 0.4, 0.2, extra=[added])
    (h,) = scenario_hydrostatics(sc)
    m = sc.bodies[0].Mass
    assert h.heave == pytest.approx(2 * math.pi * math.sqrt((m + 300.0) / (RHO * G * 2.0)))
    i44 = m * 0.3**2 + 20.0
    assert h.roll == pytest.approx(2 * math.pi * math.sqrt(i44 / (RHO * G * 0.8 * h.GM_T)))
    # the CG 0.5 m above the keel: GM_T = 0.2 + 0.2083 − 0.5 < 0, no roll period
    (tender,) = scenario_hydrostatics(box_scenario((2.0, 1.0, 1.0), 0.4, 0.5))
    assert tender.GM_T < 0.0 and tender.roll is None and tender.pitch is not None
    assert tender.message()["periods"]["roll"] is None


def test_numbers_follow_the_body_and_the_water() -> None:
    """Cached by what they depend on: an input changes nothing, a new mass or density does."""
    sc = box_scenario((2.0, 1.0, 1.0), 0.4, 0.2)
    (a,) = scenario_hydrostatics(sc)
    sc.bodies[0].Force = (10.0, 0.0, 0.0)
    assert scenario_hydrostatics(sc) == [a]
    sc.bodies[0].Mass = 0.9 * sc.bodies[0].Mass
    (b,) = scenario_hydrostatics(sc)
    assert b.draft == pytest.approx(0.9 * 0.4, rel=REL)
    assert sc.water is not None
    sc.water.density = 0.9 * RHO
    (c,) = scenario_hydrostatics(sc)
    assert c.draft == pytest.approx(0.4, rel=REL)
    twins = box_scenario((2.0, 1.0, 1.0), 0.4, 0.2)
    twin = twins.bodies[0].model_copy(update={"Name": "Twin"})
    twins = Scenario.model_validate(
        {**twins.model_dump(), "bodies": [twins.bodies[0].model_dump(), twin.model_dump()],
         "elements": [{"kind": "buoyancy", "body": n} for n in ("Box", "Twin")]}
    )  # fmt: skip
    first, second = scenario_hydrostatics(twins)  # one computation, each its own name
    assert (first.body, second.body) == ("Box", "Twin") and first.draft == second.draft


def test_a_body_that_sinks_is_left_out() -> None:
    sc = box_scenario((1.0, 1.0, 1.0), 0.4, 0.2)
    sc.bodies[0].Mass = 1.5 * RHO  # heavier than the water it can displace
    assert scenario_hydrostatics(sc) == []
    with pytest.raises(ValueError, match="sinks"):
        float_level(hull_triangles(sc.bodies[0]), 1.5)


@pytest.mark.parametrize(("size", "draft", "kg"), BOXES)
def test_box_wall_sided_righting_levers(
    size: tuple[float, float, float], draft: float, kg: float
) -> None:
    """GZ = sin φ (GM + ½ BM tan² φ) until the deck edge dips or the bilge emerges."""
    _, beam, depth = size
    sc = box_scenario(size, draft, kg)
    body = sc.bodies[0]
    limit = min(math.atan(2 * (depth - draft) / beam), math.atan(2 * draft / beam))
    phis = np.linspace(-limit, limit, 10)[1:-1]  # both sides, not 0
    gz = righting_levers(hull_triangles(body), body.Mass, np.zeros(3), phis, density=RHO)
    bm = beam**2 / (12 * draft)
    gm = draft / 2 + bm - kg
    wall = np.sin(phis) * (gm + 0.5 * bm * np.tan(phis) ** 2)
    assert np.allclose(gz, wall, rtol=REL, atol=0.0)  # measured ≤ 4e-15 relative
    # beyond, the wedges are no longer triangles: the lever falls short of the formula
    far = limit + 0.15
    (gz_far,) = righting_levers(hull_triangles(body), body.Mass, np.zeros(3), [far], density=RHO)
    assert gz_far < 0.999 * math.sin(far) * (gm + 0.5 * bm * math.tan(far) ** 2)


def test_steady_heel_under_a_moment_is_where_the_lever_balances() -> None:
    sc = box_scenario((2.0, 1.0, 1.0), 0.4, 0.2)
    body = sc.bodies[0]
    tri = hull_triangles(body)
    gm, bm = 0.4 / 2 + 1 / (12 * 0.4) - 0.2, 1 / (12 * 0.4)
    phi = 0.25
    moment = RHO * G * 0.8 * math.sin(phi) * (gm + 0.5 * bm * math.tan(phi) ** 2)
    found = heel_under(tri, body.Mass, np.zeros(3), moment, density=RHO, gravity=G)
    assert found == pytest.approx(phi, rel=1e-12)


def prism(n: int, radius: float, height: float) -> np.ndarray:
    """A closed outward n-sided prism (float64), axis z, from z = −h/2 to h/2."""
    a = 2 * math.pi * np.arange(n + 1) / n
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    tri = []
    top, bottom = -height / 2, height / 2  # NED: top is the smaller z
    for k in range(n):
        (x0, y0), (x1, y1) = ring[k], ring[k + 1]
        p0t, p1t, p0b, p1b = (x0, y0, top), (x1, y1, top), (x0, y0, bottom), (x1, y1, bottom)
        tri += [(p0t, p0b, p1b), (p0t, p1b, p1t)]  # side
        tri += [((0, 0, top), p0t, p1t), ((0, 0, bottom), p1b, p0b)]  # caps
    out = np.asarray(tri, dtype=float)
    if mesh_volume(out) < 0:
        out = out[:, [0, 2, 1]]
    return out


@pytest.mark.parametrize("n", [40, 720])
def test_vertical_cylinder_metacentric_radius(n: int) -> None:
    """An n-sided vertical prism: its waterplane's I is the polygon's,
    n R⁴ sin α (2 + cos α) / 24 with α = 2π/n, which tends to the circle's π R⁴ / 4."""
    radius, height, draft, kg = 0.8, 2.0, 0.9, 0.5
    alpha = 2 * math.pi / n
    area = 0.5 * n * radius**2 * math.sin(alpha)
    volume = area * draft
    hull = prism(n, radius, height) - np.array([0.0, 0.0, height / 2 - kg])  # CG at the origin
    h = upright(hull, RHO * volume, np.zeros(3), np.eye(3), density=RHO)
    i_polygon = n * radius**4 * math.sin(alpha) * (2 + math.cos(alpha)) / 24
    assert h.draft == pytest.approx(draft, rel=REL)
    assert h.A_wp == pytest.approx(area, rel=REL)
    assert h.BM_T == pytest.approx(i_polygon / volume, rel=REL)
    assert h.BM_L == pytest.approx(i_polygon / volume, rel=REL)
    assert (h.KB, h.KG) == pytest.approx((draft / 2, kg), rel=REL)
    # the round cylinder's π R⁴ / (4 ∇) within the facets' error (1 % at 40 sides)
    circle = math.pi * radius**4 / 4 / (math.pi * radius**2 * draft)
    assert h.BM_T == pytest.approx(circle, rel=10 / n**2 * 1.1)


def test_shipped_cylinder_as_the_buoy_floats() -> None:
    """The buoy preset's cylinder (meshes/cylinder.glb, 40 sides, float32 vertices)."""
    from sixdof.scenario import presets as P
    from sixdof.scenario.presets.numbers import HULL

    (h,) = scenario_hydrostatics(P.PRESETS["buoy_in_waves"].scenario())
    assert h.A_wp == pytest.approx(HULL["cylinder_waterplane"], rel=1e-5)
    assert h.draft == pytest.approx(P.PRESETS["buoy_in_waves"].values["draft"], rel=1e-5)
    i_polygon = 40 * 0.5**4 * math.sin(math.pi / 20) * (2 + math.cos(math.pi / 20)) / 24
    assert h.BM_T == pytest.approx(i_polygon / h.volume, rel=1e-6)


def ship_hull() -> np.ndarray:
    """The shipped hull at Size 10: 10 m long, 2.4 m beam, 1.4 m deep to its deck."""
    spec = {"Name": "S", "Mesh": "ship", "Size": [10.0, 10.0, 10.0]}
    return hull_triangles(Scenario.model_validate({"bodies": [spec]}).bodies[0])


def test_waterplane_is_the_derivative_of_the_volume() -> None:
    """For the ship hull at random attitudes: dV/dz = −A_wp, d(V x_B)/dz = −A_wp x_F and
    d(V y_B)/dz = −A_wp y_F (central differences), and far below the surface V is the
    whole hull's."""
    hull = ship_hull()
    rng = np.random.default_rng(3)
    for _ in range(4):
        tri = hull @ rotation(rng.uniform(-0.4, 0.4), rng.uniform(-0.1, 0.1)).T
        z = float(np.mean(tri[:, :, 2])) + rng.uniform(-0.2, 0.2)
        step = 1e-5
        up, mid, down = cut(tri, z - step), cut(tri, z), cut(tri, z + step)
        dv = (down.volume - up.volume) / (2 * step)
        assert dv == pytest.approx(-mid.area, rel=1e-6)
        for k in (0, 1):
            dm = (down.volume * down.centre[k] - up.volume * up.centre[k]) / (2 * step)
            assert dm == pytest.approx(-mid.area * mid.flotation[k], abs=1e-6 * mid.area * 10)
    assert cut(hull, -10.0).volume == pytest.approx(mesh_volume(hull), rel=1e-12)
    assert cut(hull, 10.0).volume == 0.0 and cut(hull, 10.0).area == 0.0


def test_ship_floats_level_when_its_cg_is_over_its_centre_of_buoyancy() -> None:
    """Free trim: the ship trims until its centre of buoyancy is under the CG."""
    hull = ship_hull()
    inertia = np.diag([1.0, 1.0, 1.0])
    free = upright(hull, 1000.0, np.array([0.2, 0.0, 0.0]), inertia)
    tri = hull - np.array([0.2, 0.0, 0.0])
    world = tri @ rotation(0.0, free.trim).T
    level, c = float_level(world, 1000.0 / RHO)
    assert abs(c.centre[0]) < 1e-12 and free.trim != 0.0
    assert free.draft == pytest.approx(float(world[:, :, 2].max()) - level, rel=1e-12)
    # the slope of GZ at zero heel is GM_T (and GZ(0) is 0: the hull is symmetric)
    gz = righting_levers(hull, 1000.0, np.array([0.2, 0.0, 0.0]), [-1e-5, 0.0, 1e-5])
    assert abs(gz[1]) < 1e-12 and (gz[2] - gz[0]) / 2e-5 == pytest.approx(free.GM_T, rel=1e-4)


def test_symmetric_ship_has_no_righting_lever_upright() -> None:
    """Starboard is port's mirror image (tests/unit/test_meshes.py), so with the CG on the centre
    plane GZ(0) = 0 and GZ(−φ) = −GZ(φ), to rounding (measured ≤ 1.2e-16 m at Size 10;
    before the hull was made symmetric GZ(0) was −0.31 mm, and the heeled_ship preset moved
    its hull 0.3 mm to starboard to stand upright). Also the preset's own hull and CG."""
    hull = ship_hull()
    phis = np.radians([5.0, 10.0, 20.0, 40.0, 60.0, 80.0])
    for mass, cg in ((1000.0, (0.2, 0.0, 0.0)), (6000.0, (0.0, 0.0, -0.3))):
        upright_gz, *_ = righting_levers(hull, mass, np.array(cg), [0.0])
        assert abs(upright_gz) < 1e-12
        port = righting_levers(hull, mass, np.array(cg), phis)
        stbd = righting_levers(hull, mass, np.array(cg), -phis)
        assert np.abs(port).min() > 2e-3  # GZ is not zero elsewhere
        np.testing.assert_allclose(port + stbd, 0.0, rtol=0.0, atol=1e-12)
    from sixdof.scenario import presets as P

    ship = P.PRESETS["heeled_ship"].scenario().bodies[0]
    assert ship.MeshOrigin[1] == 0.0 and ship.CGOffset[1] == 0.0
    (gz,) = righting_levers(hull_triangles(ship), ship.Mass, np.asarray(ship.CGOffset), [0.0])
    assert abs(gz) < 1e-12


def test_hello_carries_the_hydrostatics_once_per_version() -> None:
    from sixdof.scenario.presets import preset_scenario
    from sixdof.server import Settings
    from sixdof.server.rooms import Room
    from sixdof.simulation import LiveSimulation

    sim = LiveSimulation(preset_scenario("stiff_and_tender"))
    room = Room("hydro", sim, Settings())
    hello = json.loads(room.hello(True))
    assert [h["body"] for h in hello["hydrostatics"]] == ["Stiff", "Tender"]
    first = hello["hydrostatics"][0]
    names = "body draft volume KB KG BM_T BM_L GM_T GM_L A_wp periods"
    assert set(first) == set(names.split())
    assert set(first["periods"]) == {"heave", "roll", "pitch"}
    assert first["draft"] == pytest.approx(0.4, rel=REL)
    assert first["GM_T"] == pytest.approx(0.2 + 1 / 4.8 - 0.2, rel=REL)
    cached = room.hydrostatics()
    assert room.hydrostatics() is cached  # the same version: not computed again
    plain = Room("plain", LiveSimulation(preset_scenario("hover")), Settings())
    assert json.loads(plain.hello(False))["hydrostatics"] == []
