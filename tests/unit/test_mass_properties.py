"""Mass properties from a mesh against closed forms (exact for polyhedra), and the body
fields that follow the shape (InertiaFrom solid / shell, Density, MeshScale, Size,
MeshUnits)."""

from __future__ import annotations

import numpy as np
import pytest
from support.meshes import box, fan, prism, pyramid, regular_polygon, stl_bytes, stored

from sixdof.dynamics.mesh_inertia import principal, shell_moments, solid_moments
from sixdof.fields import FieldError
from sixdof.scenario import BodySpec
from sixdof.scenario.body_mesh import mass_properties, shape_fields

pytestmark = pytest.mark.unit
EXACT = 1e-12


def rel(a: np.ndarray, b: np.ndarray) -> float:
    """Largest difference relative to the largest entry of b."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b)))


def polygon_moments(p: list[tuple[float, float]]) -> tuple[float, np.ndarray, np.ndarray]:
    """Area, centroid and (∫x², ∫y², ∫xy) about the centroid of a simple CCW polygon, by
    Green's theorem (the shoelace sums), independent of the tetrahedra."""
    x, y = np.array(p).T
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    area = cross.sum() / 2
    c = np.array([((x + x1) * cross).sum(), ((y + y1) * cross).sum()]) / (6 * area)
    ixx = ((x * x + x * x1 + x1 * x1) * cross).sum() / 12
    iyy = ((y * y + y * y1 + y1 * y1) * cross).sum() / 12
    ixy = ((x * y1 + 2 * x * y + 2 * x1 * y1 + x1 * y) * cross).sum() / 24
    central = np.array([ixx - area * c[0] ** 2, iyy - area * c[1] ** 2, ixy - area * c[0] * c[1]])
    return area, c, central


def box_inertia(m: float, a: float, b: float, c: float) -> np.ndarray:
    return np.diag([m * (b * b + c * c), m * (a * a + c * c), m * (a * a + b * b)]) / 12


def test_box_exact() -> None:
    a, b, c, rho = 0.3, 1.7, 0.45, 780.0
    m = solid_moments(box(a, b, c, (0.2, -1.0, 3.0)))
    assert m.measure == pytest.approx(a * b * c, rel=EXACT)
    np.testing.assert_allclose(m.centroid, (0.2, -1.0, 3.0), rtol=0, atol=1e-14)
    assert rel(m.inertia(rho), box_inertia(rho * a * b * c, a, b, c)) < EXACT


@pytest.mark.parametrize("n", [3, 7, 32])
def test_polygonal_prism_exact(n: int) -> None:
    """A cylinder as its polygonal prism: Ixx = ρ h ∫y² dA + m h²/12, Izz = ρ h ∫r² dA."""
    poly = [(x + 0.3, y - 0.1) for x, y in regular_polygon(n, 0.4)]
    h, rho = 1.3, 1000.0
    area, c, (jx, jy, jxy) = polygon_moments(poly)
    mass = rho * area * h
    want = np.array(
        [
            [rho * h * jy + mass * h * h / 12, -rho * h * jxy, 0.0],
            [-rho * h * jxy, rho * h * jx + mass * h * h / 12, 0.0],
            [0.0, 0.0, rho * h * (jx + jy)],
        ]
    )
    m = solid_moments(prism(poly, fan(n), -0.2, h - 0.2))
    assert m.measure == pytest.approx(area * h, rel=EXACT)
    np.testing.assert_allclose(m.centroid, (c[0], c[1], h / 2 - 0.2), rtol=0, atol=1e-14)
    assert rel(m.inertia(rho), want) < EXACT


@pytest.mark.parametrize("n", [4, 24])
def test_cone_as_pyramid_exact(n: int) -> None:
    """A cone as the pyramid over its polygon: Ixx = ρ(h ∫y² dA / 5 + A h³ / 80)."""
    poly = regular_polygon(n, 0.5)
    h, rho = 2.0, 500.0
    area, _, (jx, jy, _) = polygon_moments(poly)
    want = np.diag([rho * (jy * h / 5 + area * h**3 / 80), rho * (jx * h / 5 + area * h**3 / 80),
                    rho * (jx + jy) * h / 5])  # fmt: skip
    m = solid_moments(pyramid(poly, h))
    assert m.measure == pytest.approx(area * h / 3, rel=EXACT)
    np.testing.assert_allclose(m.centroid, (0, 0, -h / 4), rtol=0, atol=1e-14)
    assert rel(m.inertia(rho), want) < EXACT


def l_bracket() -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The L-shaped prism and its volume, centroid and inertia (ρ = 1) as two boxes joined by
    the parallel-axis rule."""
    poly = [(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
    tri = prism(poly, [(0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)], 0.0, 0.5)
    parts = [
        ((3.0, 1.0, 0.5), np.array([1.5, 0.5, 0.25])),
        ((1.0, 1.0, 0.5), np.array([0.5, 1.5, 0.25])),
    ]
    masses = [a * b * c for (a, b, c), _ in parts]
    total = sum(masses)
    cg = sum(m * c for m, (_, c) in zip(masses, parts, strict=True)) / total
    inertia = np.zeros((3, 3))
    for m, (dims, c) in zip(masses, parts, strict=True):
        d = c - cg
        inertia += box_inertia(m, *dims) + m * (d @ d * np.eye(3) - np.outer(d, d))
    return tri, total, cg, inertia


def test_l_bracket_exact() -> None:
    tri, volume, cg, inertia = l_bracket()
    m = solid_moments(tri)
    assert m.measure == pytest.approx(volume, rel=EXACT)
    np.testing.assert_allclose(m.centroid, cg, rtol=EXACT)
    assert rel(m.inertia(1.0), inertia) < EXACT
    assert inertia[0, 1] > 0  # Ixy = −∫xy dm: positive, the L's mass lies at xy < 0 about cg


def test_thin_walled_box_as_shell_exact() -> None:
    a, b, c, sigma = 0.6, 1.1, 0.35, 7.8  # kg/m²
    faces = [(b * c, (a, b, c)), (a * c, (b, a, c)), (a * b, (c, a, b))]  # normal axis first
    want = np.zeros(3)
    for k, (area, (d, e, f)) in enumerate(faces):
        m = sigma * area
        own = np.array([m * (e * e + f * f) / 12, m * (f * f / 12 + d * d / 4),
                        m * (e * e / 12 + d * d / 4)])  # fmt: skip
        axes = [k, *[i for i in range(3) if i != k]]  # normal, then the two in-plane axes
        want[axes] += 2 * own
    m = shell_moments(box(a, b, c))
    assert m.measure == pytest.approx(2 * (a * b + b * c + a * c), rel=EXACT)
    assert rel(m.inertia(sigma), np.diag(want)) < EXACT


def test_uv_sphere_within_its_tessellation_error() -> None:
    """The sphere's 4πr³/3 and 2mr²/5, approached as the tessellation refines (O(1/n²))."""
    import trimesh

    r, errors = 0.7, []
    for count in (32, 64):
        s = trimesh.creation.uv_sphere(radius=r, count=[count, count])
        m = solid_moments(s.triangles)
        ratio_v = m.measure / (4 / 3 * np.pi * r**3)
        ratio_i = m.inertia(1.0)[0, 0] / m.measure / (0.4 * r * r)
        errors.append(max(abs(1 - ratio_v), abs(1 - ratio_i)))
    assert errors[1] < 0.005
    assert errors[1] < errors[0] / 3  # second order in the tessellation


def test_principal_axes_of_a_rotated_box() -> None:
    tri = box(1.0, 2.0, 3.0)
    angle = 0.3
    rot = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0],
                    [0, 0, 1]])  # fmt: skip
    moments, axes = principal(solid_moments(tri @ rot.T).inertia(1.0))
    np.testing.assert_allclose(moments, sorted(np.diag(box_inertia(6.0, 1, 2, 3))), rtol=1e-12)
    assert np.linalg.det(axes) == pytest.approx(1.0)
    assert abs(axes[:, 2] @ rot[:, 0]) == pytest.approx(1.0)  # the smallest extent, x, is I max


# ------------------------------------------------------------- a body that follows its shape

A, B, C = 2.0, 0.5, 0.25  # exact in the STL's float32


@pytest.fixture(scope="module")
def brick() -> str:
    return stored(stl_bytes(box(A, B, C, (1.0, 0.0, 0.0))), "brick.stl")


def test_solid_body_from_density(brick: str) -> None:
    body = BodySpec(Mesh=brick, InertiaFrom="solid", Density=800.0)
    mass = 800.0 * A * B * C
    assert body.Mass == pytest.approx(mass, rel=EXACT)
    assert body.CGOffset == pytest.approx((1.0, 0.0, 0.0), abs=1e-14)
    assert body.MeshOrigin == pytest.approx((-1.0, 0.0, 0.0), abs=1e-14)
    want = box_inertia(mass, A, B, C)
    assert rel(np.array(body.Inertia[:3]), np.diag(want)) < EXACT
    props = mass_properties(body)
    assert props.measure == pytest.approx(A * B * C, rel=EXACT)
    assert props.density == pytest.approx(800.0, rel=EXACT)
    assert rel(props.tensor, want) < EXACT


def test_scaling_laws(brick: str) -> None:
    """Density given: mass × s³ and inertia × s⁵; Mass given: inertia × s²; Size stretches
    one axis as the box formula says; MeshUnits mm is a factor 1e-3 on every length."""
    base = BodySpec(Mesh=brick, InertiaFrom="solid", Density=800.0)
    big = BodySpec(Mesh=brick, InertiaFrom="solid", Density=800.0, MeshScale=(3.0, 3.0, 3.0))
    assert big.Mass == pytest.approx(27 * base.Mass, rel=EXACT)
    assert big.Inertia == pytest.approx([243 * i for i in base.Inertia], rel=EXACT, abs=1e-12)
    held = BodySpec(Mesh=brick, InertiaFrom="solid", Mass=5.0, MeshScale=(3.0, 3.0, 3.0))
    light = BodySpec(Mesh=brick, InertiaFrom="solid", Mass=5.0)
    assert held.Inertia[:3] == pytest.approx([9 * i for i in light.Inertia[:3]], rel=EXACT)
    stretched = BodySpec(Mesh=brick, InertiaFrom="solid", Mass=5.0, Size=(2.0, 1.0, 1.0))
    assert rel(np.array(stretched.Inertia[:3]), np.diag(box_inertia(5.0, 2 * A, B, C))) < EXACT
    assert stretched.CGOffset == pytest.approx((2.0, 0.0, 0.0), rel=EXACT)
    mm = stored(stl_bytes(box(1000 * A, 1000 * B, 1000 * C)), "brick_mm.stl")
    metres = BodySpec(Mesh=mm, InertiaFrom="solid", Density=800.0, MeshUnits="mm")
    assert metres.Mass == pytest.approx(base.Mass, rel=1e-12)
    assert metres.Inertia[:3] == pytest.approx(base.Inertia[:3], rel=1e-12)


def test_shell_body(brick: str) -> None:
    body = BodySpec(Mesh=brick, InertiaFrom="shell", Density=2.0)
    assert body.Mass == pytest.approx(2.0 * 2 * (A * B + B * C + A * C), rel=EXACT)


def test_live_assignment_follows_the_shape(brick: str) -> None:
    body = BodySpec(Mesh=brick, InertiaFrom="solid", Density=800.0)
    before = body.Inertia
    body.Size = (1.0, 2.0, 1.0)
    assert body.Mass == pytest.approx(800.0 * A * B * C * 2, rel=EXACT)
    assert body.Inertia != before


def test_refusals_name_the_mesh() -> None:
    with pytest.raises(ValueError, match="not a known mesh"):
        BodySpec(Mesh="nowhere.mesh", InertiaFrom="solid")
    open_box = stored(stl_bytes(box(1.0, 1.0, 1.0)[:-2]), "lid_off.stl")
    with pytest.raises(ValueError, match=r"lid_off\.stl is open: 4 boundary edges"):
        BodySpec(Mesh=open_box, InertiaFrom="solid")
    shell = BodySpec(Mesh=open_box, InertiaFrom="shell", Mass=1.0)  # an open shell is a shell
    assert shell.Mass == 1.0
    with pytest.raises(ValueError, match="Mass: Density"):
        BodySpec(Mesh="box.mesh", InertiaFrom="solid", Density=1e6, Size=(100.0, 100.0, 100.0))
    unknown = BodySpec(Mesh="sha256:" + "0" * 64)  # given: drawn as the fallback sphere
    with pytest.raises(FieldError, match="no mesh uploaded to this server"):
        shape_fields(unknown.model_copy(update={"InertiaFrom": "solid"}))
