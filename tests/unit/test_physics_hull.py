"""The physics hull: a fine mesh floats on its simplified copy (about HULL_TARGET triangles)
at its analytic draft, CAD-like meshes of long thin triangles too; a coarse one on itself;
what floats is reported against the full mesh."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from scipy.optimize import brentq
from support.meshes import box, fan, prism, regular_polygon, stl_bytes, stored

from sixdof.analysis.hydrostatics import float_level
from sixdof.scenario import Scenario
from sixdof.scenario.elements import hull_triangles
from sixdof.scenario.physics_hull import HULL_ABOVE, HULL_TARGET

pytestmark = pytest.mark.unit
RHO = 1025.0  # the default sea's density


def floating(mesh: str, mass: float) -> Scenario:
    body = {"Name": "H", "Mesh": mesh, "Mass": mass, "InertiaRadi": [1.0, 1.0, 1.0]}
    return Scenario.model_validate(
        {"bodies": [body], "elements": [{"kind": "buoyancy", "body": "H"}]}
    )


def test_fine_sphere_floats_within_half_a_percent_of_its_analytic_draft() -> None:
    r = 0.8
    sphere = trimesh.creation.uv_sphere(radius=r, count=[115, 225])
    assert len(sphere.faces) > 100_000
    key = stored(stl_bytes(sphere.triangles), "sphere_100k.stl")
    displaced = 0.3 * 4 / 3 * math.pi * r**3
    sc = floating(key, RHO * displaced)
    hull = hull_triangles(sc.bodies[0])
    # decimation alone stalls at ~7,500 triangles on the poles' fans (or at 8,528, gently)
    assert 0.9 * HULL_TARGET <= len(hull) <= HULL_TARGET
    level, _ = float_level(hull, displaced)
    draft = r - level  # NED: the keel at z = +r, the surface at z = level
    exact = brentq(lambda d: math.pi * d * d * (3 * r - d) / 3 - displaced, 0.0, 2 * r)
    assert abs(draft / exact - 1.0) < 0.005, (draft, exact)
    (note,) = sc.notes()
    assert f"sphere_100k.stl floats on a {len(hull):,}-triangle copy of its" in note
    assert "(vertex clustering and quadric decimation)" in note


def test_cad_cylinder_of_fans_floats_upright_at_its_analytic_draft() -> None:
    """A CAD export's cylinder: its caps fans of 12,000 slivers from one vertex, its side
    24,000 long thin ones, which no edge collapse can touch (decimation alone leaves all
    47,996 triangles). (A finer one's float32 STL corners make its fans' first slivers
    degenerate: refused as open.)"""
    r, height, sides = 0.3, 1.0, 12_000
    key = stored(stl_bytes(prism(regular_polygon(sides, r), fan(sides), 0.0, height)), "rod.stl")
    mass = 40.0
    sc = floating(key, mass)
    hull = hull_triangles(sc.bodies[0])
    assert len(hull) <= HULL_TARGET
    level, _ = float_level(hull, mass / RHO)
    draft = height - level  # the axis along z (NED: down), the keel at z = height
    assert abs(draft * RHO * math.pi * r * r / mass - 1.0) < 0.005


def test_thin_walled_tube_floats_on_a_copy_from_a_finer_grid() -> None:
    """A 2 cm wall in 3 cm cells: the first grid folds the walls together (not closed);
    a finer one keeps them apart."""
    tube = trimesh.creation.annulus(r_min=0.28, r_max=0.3, height=1.0, sections=12_000)
    assert len(tube.faces) > HULL_ABOVE
    key = stored(stl_bytes(tube.triangles), "tube.stl")
    sc = floating(key, 10.0)
    hull = hull_triangles(sc.bodies[0])
    assert len(hull) <= HULL_TARGET
    (note,) = sc.notes()
    assert "(vertex clustering and quadric decimation)" in note


def test_box_stl_floats_at_its_analytic_draft() -> None:
    a, b, c = 2.0, 1.0, 0.5
    key = stored(stl_bytes(box(a, b, c)), "pontoon.stl")
    mass = 600.0
    sc = floating(key, mass)
    hull = hull_triangles(sc.bodies[0])
    assert len(hull) == 12  # a coarse mesh floats on itself
    level, _ = float_level(hull, mass / RHO)
    draft = c / 2 - level
    assert draft == pytest.approx(mass / (RHO * a * b), abs=1e-3)
    assert sc.notes() == []


def test_open_hull_refused_naming_the_file() -> None:
    key = stored(stl_bytes(box(1.0, 1.0, 1.0)[:-1]), "holed.stl")
    with pytest.raises(ValueError, match=r"holed\.stl is open: 3 boundary edges"):
        floating(key, 100.0)


def test_hull_follows_size_and_units() -> None:
    key = stored(stl_bytes(box(1000.0, 1000.0, 1000.0)), "cube_mm.stl")
    body = floating(key, 10.0).bodies[0].model_copy(update={"MeshUnits": "mm", "Size": (2, 1, 1)})
    hull = hull_triangles(body)
    np.testing.assert_allclose(hull.reshape(-1, 3).max(0), [1.0, 0.5, 0.5])
