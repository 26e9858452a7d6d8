"""Body parameters: validation (field and allowed range in every message) and derived matrices."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from sixdof.dynamics import (
    Bodies,
    BodyParams,
    ImpossibleInertiaWarning,
    inertia_entries,
    inertia_from_entries,
    inertia_from_radii,
)
from sixdof.dynamics.quaternion import skew
from sixdof.fields import FieldError

RADII = (0.5, 0.6, 0.7)


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"mass": 0.0}, "Mass", ["> 0 kg"]),
        ({"mass": -2.0}, "Mass", ["> 0 kg"]),
        ({"mass": math.nan}, "Mass", ["finite", "> 0 kg"]),
        ({"mass": math.inf}, "Mass", ["finite", "> 0 kg"]),
        ({"mass": "heavy"}, "Mass", ["number", "> 0 kg"]),
        ({"radii": (0.5, 0.0, 0.7)}, "InertiaRadi", ["> 0 m"]),
        ({"radii": (0.5, -0.1, 0.7)}, "InertiaRadi", ["> 0 m"]),
        ({"radii": (0.5, math.nan, 0.7)}, "InertiaRadi", ["finite"]),
        ({"radii": (0.5, 0.6)}, "InertiaRadi", ["3 numbers"]),
        ({"radii": (0.5, 0.6, 0.7, 0.8)}, "InertiaRadi", ["3 numbers"]),
        ({"r_cg_body": (0.1, 0.2)}, "CGOffset", ["3 numbers"]),
        ({"r_cg_body": (0.1, math.nan, 0.2)}, "CGOffset", ["finite"]),
        ({"gravity": math.nan}, "Gravity", ["finite"]),
        ({"model": "ful"}, "model", ["'full'", "'fhsim'"]),
    ],
)
def test_from_radii_refuses_bad_values(kwargs: dict, field: str, words: list[str]) -> None:
    args = {"mass": 2.0, "radii": RADII} | kwargs
    mass, radii = args.pop("mass"), args.pop("radii")
    with pytest.raises(FieldError) as info:
        BodyParams.from_radii(mass, radii, **args)
    assert info.value.field == field
    message = str(info.value)
    assert message.startswith(f"{field}: ")
    for word in words:
        assert word in message, message


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        ((1.0, 1.0, 1.0, 0.0, 0.0), ["6 numbers"]),
        ((1.0, -1.0, 1.0, 0.0, 0.0, 0.0), ["positive definite", "> 0 kg·m²"]),
        # Positive diagonal, but the off-diagonal entries make it indefinite.
        ((1.0, 1.0, 1.0, 0.9, 0.9, 0.0), ["positive definite", "> 0 kg·m²"]),
        ((1.0, 1.0, 1.0, 0.0, 0.0, math.inf), ["finite"]),
    ],
)
def test_from_inertia_refuses_bad_tensors(entries: tuple, words: list[str]) -> None:
    with pytest.raises(FieldError) as info:
        BodyParams.from_inertia(2.0, entries)
    assert info.value.field == "Inertia"
    for word in words:
        assert word in str(info.value), str(info.value)


def test_non_symmetric_and_misshapen_tensors_are_refused() -> None:
    tensor = np.diag([1.0, 2.0, 3.0])
    tensor[0, 1] = 0.1
    with pytest.raises(match=r"^Inertia: .*symmetric.*0\.1 kg·m²"):
        BodyParams(2.0, tensor)
    with pytest.raises(match=r"^Inertia: expected a 3×3 tensor"):
        BodyParams(2.0, np.eye(2))


def test_triangle_inequality_violation_warns_but_is_accepted() -> None:
    # (0.5, 0.7, 0.9): m(0.25 + 0.49) < m 0.81. No real body, but FhSim runs it.
    with pytest.warns(ImpossibleInertiaWarning, match="triangle inequality") as record:
        body = BodyParams.from_radii(2.0, (0.5, 0.7, 0.9))
    # The warning points at this file (the caller), not at the library's internals.
    assert record[0].filename == __file__
    np.testing.assert_allclose(np.diag(body.inertia_cg), 2.0 * np.array([0.25, 0.49, 0.81]))
    # A possible body (0.5, 0.6, 0.7): 0.25 + 0.36 ≥ 0.49, and the flat disc limit
    # (a + b = c exactly) are quiet.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BodyParams.from_radii(2.0, RADII)
        BodyParams.from_inertia(1.0, (1.0, 1.0, 2.0, 0.0, 0.0, 0.0))


def test_inertia_from_radii_and_entries() -> None:
    np.testing.assert_allclose(inertia_from_radii(3.0, (1.0, 2.0, 0.5)), np.diag([3.0, 12, 0.75]))
    entries = (2.0, 3.0, 4.0, 0.1, -0.2, 0.3)  # Ixx, Iyy, Izz, Ixy, Ixz, Iyz (tensor entries)
    tensor = inertia_from_entries(entries)
    np.testing.assert_array_equal(tensor, [[2.0, 0.1, -0.2], [0.1, 3.0, 0.3], [-0.2, 0.3, 4.0]])
    assert inertia_entries(tensor) == entries


def test_derived_matrices_parallel_axis_rule() -> None:
    body = BodyParams.from_inertia(
        2.5, (1.0, 1.5, 2.0, 0.1, -0.05, 0.2), r_cg_body=(0.3, -0.2, 0.5)
    )
    r = np.array([0.3, -0.2, 0.5])
    # Steiner: I_o = I_g + m (|r|² E − r rᵀ) (DESIGN.md section 4 erratum of seed 004).
    expected_io = body.inertia_cg + 2.5 * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(body.inertia_o, expected_io, atol=1e-15)
    m_rb = body.mass_matrix
    np.testing.assert_allclose(m_rb, m_rb.T, atol=1e-15)
    assert np.all(np.linalg.eigvalsh(m_rb) > 0)
    np.testing.assert_allclose(m_rb[:3, 3:], -2.5 * skew(r), atol=1e-15)
    # Kinetic energy about o equals that of the CG motion: ½ m |v + ω × r|² + ½ ωᵀ I_g ω.
    v, w = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7, -1.1])
    nu = np.concatenate([v, w])
    v_cg = v + np.cross(w, r)
    np.testing.assert_allclose(
        0.5 * nu @ m_rb @ nu, 0.5 * 2.5 * v_cg @ v_cg + 0.5 * w @ body.inertia_cg @ w, rtol=1e-14
    )


def test_replace_validates_and_leaves_the_original_alone() -> None:
    body = BodyParams.from_radii(2.0, RADII, r_cg_body=(0.0, 0.0, 0.1))
    heavier = body.replace(mass=4.0)
    assert heavier.mass == 4.0 and body.mass == 2.0
    with pytest.raises(match=r"^Mass: "):
        body.replace(mass=-1.0)
    with pytest.raises(match=r"^model: "):
        body.replace(model="euler")
    assert body.mass == 2.0 and body.model == "full"
    with pytest.raises(ValueError):  # frozen arrays: nobody changes a body behind its back
        body.inertia_cg[0, 0] = 5.0


def test_bodies_batch_shapes_and_values() -> None:
    items = [
        BodyParams.from_radii(1.0, RADII),
        BodyParams.from_radii(2.0, RADII, r_cg_body=(0.1, 0.0, 0.0), model="fhsim"),
        BodyParams.from_inertia(3.0, (1.0, 1.5, 2.0, 0.1, 0.0, 0.0), gravity=0.0),
    ]
    bodies = Bodies.of(items)
    assert len(bodies) == 3
    assert bodies.mass_matrix.shape == (3, 6, 6)
    np.testing.assert_array_equal(bodies.coriolis, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(bodies.gravity, [9.81, 9.81, 0.0])
    for i, item in enumerate(items):
        np.testing.assert_allclose(bodies.mass_matrix[i], item.mass_matrix)
        np.testing.assert_allclose(
            bodies.mass_matrix_inv[i] @ item.mass_matrix, np.eye(6), atol=1e-14
        )
    assert len(Bodies.of(items[0])) == 1
    with pytest.raises(ValueError, match="at least one body"):
        Bodies.of([])
