"""Quaternion algebra (scalar first), checked against definitions that do not share its code.

References used here instead of the module's own formulas: the Hamilton product written
out component by component, the sandwich q ⊗ (0, a) ⊗ q*, Rodrigues' formula for an
axis–angle rotation, and the elementary rotations Rz(ψ) Ry(θ) Rx(φ).
"""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics import quaternion as quat

RNG_SEED = 20240611


def random_quats(rng: np.random.Generator, n: int, unit: bool = True) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    if not unit:
        q *= rng.uniform(0.7, 1.3, size=(n, 1))
    return q


def hamilton(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hamilton product written out, as in every textbook (i² = j² = k² = ijk = −1)."""
    a1, b1, c1, d1 = p
    a2, b2, c2, d2 = q
    return np.array(
        [
            a1 * a2 - b1 * b2 - c1 * c2 - d1 * d2,
            a1 * b2 + b1 * a2 + c1 * d2 - d1 * c2,
            a1 * c2 - b1 * d2 + c1 * a2 + d1 * b2,
            a1 * d2 + b1 * c2 - c1 * b2 + d1 * a2,
        ]
    )


def rodrigues(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` about the unit `axis` (right-hand rule)."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(RNG_SEED)


def test_skew_is_the_cross_product(rng: np.random.Generator) -> None:
    a, b = rng.normal(size=(2, 10, 3))
    np.testing.assert_allclose(
        np.einsum("nij,nj->ni", quat.skew(a), b), np.cross(a, b), rtol=0, atol=1e-14
    )


def test_product_matches_hamilton_definition(rng: np.random.Generator) -> None:
    p = rng.normal(size=(20, 4))
    q = rng.normal(size=(20, 4))
    expected = np.array([hamilton(a, b) for a, b in zip(p, q, strict=True)])
    np.testing.assert_allclose(quat.multiply(p, q), expected, rtol=0, atol=1e-14)
    # i j = k, j i = −k: the product is not commutative, and the sign convention is Hamilton's.
    i, j = np.array([0.0, 1, 0, 0]), np.array([0.0, 0, 1, 0])
    np.testing.assert_array_equal(quat.multiply(i, j), [0, 0, 0, 1])
    np.testing.assert_array_equal(quat.multiply(j, i), [0, 0, 0, -1])


def test_product_is_associative_with_identity(rng: np.random.Generator) -> None:
    p, q, r = rng.normal(size=(3, 50, 4))
    lhs = quat.multiply(quat.multiply(p, q), r)
    rhs = quat.multiply(p, quat.multiply(q, r))
    np.testing.assert_allclose(lhs, rhs, rtol=0, atol=1e-13)
    one = np.array([1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(quat.multiply(one, p), p, rtol=0, atol=0)
    np.testing.assert_allclose(quat.multiply(p, one), p, rtol=0, atol=0)
    # q ⊗ q* = |q|² (1, 0, 0, 0)
    qq = quat.multiply(p, quat.conjugate(p))
    np.testing.assert_allclose(qq[:, 0], np.sum(p * p, axis=-1), rtol=1e-14)
    np.testing.assert_allclose(qq[:, 1:], 0.0, atol=1e-14)


def test_rotmat_is_orthonormal_for_unit_quaternions(rng: np.random.Generator) -> None:
    r = quat.to_rotmat(random_quats(rng, 200))
    eye = np.broadcast_to(np.eye(3), r.shape)
    np.testing.assert_allclose(r @ np.swapaxes(r, -1, -2), eye, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(r), 1.0, rtol=0, atol=1e-14)


def test_rotmat_of_non_unit_quaternion(rng: np.random.Generator) -> None:
    # The formula E + 2ηS(ε) + 2S(ε)² is used unchanged for |q| ≠ 1 (the kinematics let |q|
    # drift and pull it back), so that model and Jacobian agree. For q = s q̂ it is exactly
    # R(q) = (1 − s²) E + s² R(q̂): not silently normalised, and equal to R(q̂) at s = 1.
    q = random_quats(rng, 20, unit=False)
    s2 = np.sum(q * q, axis=-1)[:, None, None]
    r_unit = quat.to_rotmat(q / np.sqrt(s2[:, :, 0]))
    expected = (1.0 - s2) * np.eye(3) + s2 * r_unit
    np.testing.assert_allclose(quat.to_rotmat(q), expected, rtol=0, atol=1e-14)
    # The rotation axis ε is still fixed.
    eps = q[:, 1:]
    np.testing.assert_allclose(quat.rotate(q, eps), eps, rtol=0, atol=1e-14)


def test_rotmat_is_the_sandwich_product_and_rodrigues(rng: np.random.Generator) -> None:
    for _ in range(20):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(-np.pi, np.pi)
        q = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
        np.testing.assert_allclose(quat.to_rotmat(q), rodrigues(axis, angle), atol=1e-14)
        a = rng.normal(size=3)
        sandwich = hamilton(hamilton(q, np.concatenate([[0.0], a])), quat.conjugate(q))
        np.testing.assert_allclose(sandwich[0], 0.0, atol=1e-14)
        np.testing.assert_allclose(quat.rotate(q, a), sandwich[1:], atol=1e-14)


def test_rotmat_round_trip(rng: np.random.Generator) -> None:
    q = random_quats(rng, 500)
    back = quat.from_rotmat(quat.to_rotmat(q))
    # q and −q are the same rotation; from_rotmat returns η ≥ 0.
    expected = np.where(q[:, :1] < 0, -q, q)
    np.testing.assert_allclose(back, expected, rtol=0, atol=1e-14)
    assert np.all(back[:, 0] >= 0.0)
    # Rotations by π (η = 0) and near it, where the trace branch would lose precision.
    for axis in np.eye(3):
        for angle in (np.pi, np.pi - 1e-9):
            q_pi = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
            r = quat.to_rotmat(q_pi)
            np.testing.assert_allclose(quat.to_rotmat(quat.from_rotmat(r)), r, atol=1e-15)


def test_euler_matches_elementary_rotations(rng: np.random.Generator) -> None:
    for roll, pitch, yaw in rng.uniform(
        [-np.pi, -np.pi / 2, -np.pi], [np.pi, np.pi / 2, np.pi], size=(50, 3)
    ):
        expected = rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)
        q = quat.from_euler(roll, pitch, yaw)
        np.testing.assert_allclose(np.linalg.norm(q), 1.0, atol=1e-15)
        np.testing.assert_allclose(quat.to_rotmat(q), expected, atol=1e-14)
        np.testing.assert_allclose(quat.to_euler(q), [roll, pitch, yaw], atol=1e-12)


def test_euler_single_axes() -> None:
    # Positive yaw turns north (x) towards east (y) in NED; positive pitch lifts the nose
    # (x towards −z, up); positive roll turns y (starboard) towards z (down).
    a = 0.3
    np.testing.assert_allclose(
        quat.rotate(quat.from_euler(0, 0, a), [1, 0, 0]), [np.cos(a), np.sin(a), 0], atol=1e-15
    )
    np.testing.assert_allclose(
        quat.rotate(quat.from_euler(0, a, 0), [1, 0, 0]), [np.cos(a), 0, -np.sin(a)], atol=1e-15
    )
    np.testing.assert_allclose(
        quat.rotate(quat.from_euler(a, 0, 0), [0, 1, 0]), [0, np.cos(a), np.sin(a)], atol=1e-15
    )


def test_euler_batch_and_non_unit_input(rng: np.random.Generator) -> None:
    angles = rng.uniform(-1.2, 1.2, size=(30, 3))
    q = quat.from_euler(angles[:, 0], angles[:, 1], angles[:, 2]) * rng.uniform(0.5, 2, (30, 1))
    np.testing.assert_allclose(quat.to_euler(q), angles, atol=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("gap", [1e-3, 1e-5, 1e-7, 0.0])
def test_euler_near_gimbal_lock(sign: float, gap: float) -> None:
    roll, yaw = 0.4, -1.1
    pitch = sign * (np.pi / 2 - gap)
    q = quat.from_euler(roll, pitch, yaw)
    angles = quat.to_euler(q)
    # The rotation itself always survives the round trip...
    r_back = quat.to_rotmat(quat.from_euler(*angles))
    np.testing.assert_allclose(r_back, quat.to_rotmat(q), atol=2e-6 if gap < 1e-6 else 1e-10)
    np.testing.assert_allclose(angles[1], pitch, atol=1e-6)
    if gap >= 1e-5:
        # ...and away from the exact lock the angles do too, to ~eps / cos θ.
        np.testing.assert_allclose(angles, [roll, pitch, yaw], atol=1e-8)
    else:
        # At the lock only ψ ∓ φ (sign = ±) is defined: roll is put to zero, yaw takes it all.
        assert angles[0] == 0.0
        np.testing.assert_allclose(angles[2], yaw - sign * roll, atol=2e-6)


def test_rotate_and_rotate_inverse(rng: np.random.Generator) -> None:
    q = random_quats(rng, 40)
    a = rng.normal(size=(40, 3))
    b = quat.rotate(q, a)
    np.testing.assert_allclose(np.linalg.norm(b, axis=-1), np.linalg.norm(a, axis=-1), rtol=1e-14)
    np.testing.assert_allclose(quat.rotate_inverse(q, b), a, atol=1e-14)
    np.testing.assert_allclose(quat.rotate(quat.conjugate(q), b), a, atol=1e-14)
    # Composition: rotating by q then p is rotating by p ⊗ q.
    p = random_quats(rng, 40)
    np.testing.assert_allclose(
        quat.rotate(p, quat.rotate(q, a)), quat.rotate(quat.multiply(p, q), a), atol=1e-14
    )


def test_left_and_right_matrices(rng: np.random.Generator) -> None:
    p, q = rng.normal(size=(2, 30, 4))
    prod = quat.multiply(q, p)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", quat.left_matrix(q), p), prod, atol=1e-14)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", quat.right_matrix(p), q), prod, atol=1e-14)
    # For a unit quaternion both are orthogonal, and they commute (left and right actions).
    u = random_quats(rng, 1)[0]
    for m in (quat.left_matrix(u), quat.right_matrix(u)):
        np.testing.assert_allclose(m @ m.T, np.eye(4), atol=1e-15)
    lq, rp = quat.left_matrix(q[0]), quat.right_matrix(p[0])
    np.testing.assert_allclose(lq @ rp, rp @ lq, atol=1e-14)


def test_normalize_refuses_zero() -> None:
    with pytest.raises(ValueError, match="Quater"):
        quat.normalize([0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(quat.normalize([2.0, 0, 0, 0]), [1, 0, 0, 0])
