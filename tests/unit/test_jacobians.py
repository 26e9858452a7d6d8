"""Analytic Jacobians A = ∂ẋ/∂x (13×13) and B = ∂ẋ/∂u (13×6) against central differences.

Compared block by block (rows ṗ, q̇, ν̇ against columns p, q, v, ω, F, M), each block to
1e-6 of its own size, so a wrong small block (a Coriolis coupling with a small r_g, the
rotation of gravity) cannot hide behind the large quaternion-norm entries (~1/τ = 100).
"""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics import (
    Bodies,
    BodyParams,
    derivative,
    input_jacobian,
    linearize,
    make_state,
    state_jacobian,
)

ROW_BLOCKS = {"Pos": slice(0, 3), "Quater": slice(3, 7), "nu": slice(7, 13)}
STATE_COLUMNS = {
    "Pos": slice(0, 3),
    "Quater": slice(3, 7),
    "LocalVel": slice(7, 10),
    "AngVel": slice(10, 13),
}
INPUT_COLUMNS = {"Force": slice(0, 3), "Moment": slice(3, 6)}
REL_TOL = 1e-6


def random_body(rng: np.random.Generator, model: str, offset: bool) -> BodyParams:
    a = rng.normal(size=(3, 3))
    tensor = a @ a.T + 0.5 * np.eye(3)  # symmetric positive definite, fully populated
    # Keep the triangle inequality (an impossible body would warn).
    while True:
        p = np.linalg.eigvalsh(tensor)
        if p[0] + p[1] >= p[2]:
            break
        tensor = tensor + 0.5 * np.eye(3)
    r_g = rng.normal(scale=0.4, size=3) if offset else np.zeros(3)
    return BodyParams(rng.uniform(0.5, 5.0), tensor, r_g, rng.uniform(1.0, 12.0), model)  # type: ignore[arg-type]


def random_state(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A state with a non-unit quaternion (|q| in 0.8..1.2) and an input."""
    q = rng.normal(size=4)
    q *= rng.uniform(0.8, 1.2) / np.linalg.norm(q)
    x = make_state(
        rng.normal(size=3), q, rng.normal(scale=2.0, size=3), rng.normal(scale=2.0, size=3)
    )
    return x, rng.normal(scale=5.0, size=6)


def central_difference(f, z: np.ndarray, step: float = 1e-6) -> np.ndarray:
    cols = []
    for j in range(z.size):
        dz = np.zeros_like(z)
        dz[j] = step * max(1.0, abs(z[j]))
        cols.append((f(z + dz) - f(z - dz)) / (2.0 * dz[j]))
    return np.stack(cols, axis=-1)


def assert_blocks_close(analytic: np.ndarray, numeric: np.ndarray, columns: dict) -> None:
    for rname, rows in ROW_BLOCKS.items():
        for cname, cols in columns.items():
            a, n = analytic[rows, cols], numeric[rows, cols]
            scale = max(np.max(np.abs(n)), 1e-3)  # all-zero blocks must come out (near) zero
            err = np.max(np.abs(a - n)) / scale
            assert err <= REL_TOL, f"block ∂{rname}/∂{cname}: relative error {err:.2e}"


CASES = [(model, offset) for model in ("full", "fhsim") for offset in (False, True)]


@pytest.mark.parametrize(("model", "offset"), CASES)
def test_state_and_input_jacobians_match_central_differences(model: str, offset: bool) -> None:
    rng = np.random.default_rng(CASES.index((model, offset)))
    for _ in range(4):
        bodies = Bodies.of(random_body(rng, model, offset))
        x, u = random_state(rng)
        a_fd = central_difference(lambda z, u=u, b=bodies: derivative(z, u, b), x)
        b_fd = central_difference(lambda w, x=x, b=bodies: derivative(x, w, b), u)
        assert_blocks_close(state_jacobian(x, u, bodies), a_fd, STATE_COLUMNS)
        assert_blocks_close(input_jacobian(x, u, bodies), b_fd, INPUT_COLUMNS)


@pytest.mark.parametrize(("model", "offset"), CASES)
def test_batch_jacobians_match_single(model: str, offset: bool) -> None:
    rng = np.random.default_rng(1000 + CASES.index((model, offset)))
    params = [random_body(rng, model, offset) for _ in range(5)]
    states = [random_state(rng) for _ in range(5)]
    x = np.stack([s[0] for s in states])
    u = np.stack([s[1] for s in states])
    a_batch, b_batch = linearize(x, u, Bodies.of(params))
    assert a_batch.shape == (5, 13, 13) and b_batch.shape == (5, 13, 6)
    for i, p in enumerate(params):
        bodies = Bodies.of(p)
        np.testing.assert_allclose(a_batch[i], state_jacobian(x[i], u[i], bodies), atol=1e-12)
        np.testing.assert_allclose(b_batch[i], input_jacobian(x[i], u[i], bodies), atol=1e-12)
        a_fd = central_difference(lambda z, i=i, b=bodies: derivative(z, u[i], b), x[i])
        assert_blocks_close(a_batch[i], a_fd, STATE_COLUMNS)


def test_jacobian_structure() -> None:
    # Zero blocks where ẋ does not depend on a variable; the coupling blocks where it does.
    rng = np.random.default_rng(3)
    x, u = random_state(rng)
    full = Bodies.of(random_body(rng, "full", True))
    fhsim = Bodies.of(random_body(rng, "fhsim", True))
    a_full, a_fhsim = state_jacobian(x, u, full), state_jacobian(x, u, fhsim)
    np.testing.assert_array_equal(a_full[:, 0:3], 0.0)  # nothing depends on Pos
    np.testing.assert_array_equal(a_full[0:3, 10:13], 0.0)  # ṗ = R v: not on ω
    np.testing.assert_array_equal(a_full[3:7, 7:10], 0.0)  # q̇: not on v
    # `fhsim` has no C ν: ν̇ does not depend on ν; `full` does.
    np.testing.assert_array_equal(a_fhsim[7:13, 7:13], 0.0)
    assert np.max(np.abs(a_full[7:13, 7:13])) > 0.1
    # B is independent of u (ẋ is affine in u) and zero in the kinematic rows.
    b1, b2 = input_jacobian(x, u, full), input_jacobian(x, 3 * u + 1, full)
    np.testing.assert_array_equal(b1, b2)
    np.testing.assert_array_equal(b1[0:7], 0.0)
    # ẋ(x, u) − ẋ(x, 0) = B u exactly.
    np.testing.assert_allclose(
        derivative(x, u, full) - derivative(x, np.zeros(6), full), b1 @ u, atol=1e-12
    )


def test_quaternion_norm_mode_has_rate_minus_one_over_tau() -> None:
    # At rest, the only dynamics of q is the norm term: A_qq = −2k q qᵀ (k = 1/(2τ)) at |q| = 1,
    # whose nonzero eigenvalue −2k|q|² = −1/τ sets the explicit methods' stability limits.
    x = make_state(quater=np.array([0.5, 0.5, -0.5, 0.5]))
    a_qq = state_jacobian(x, np.zeros(6), Bodies.of(BodyParams.from_radii(1.0, (1.0, 1.0, 1.0))))
    eig = np.sort(np.linalg.eigvals(a_qq[3:7, 3:7]).real)
    np.testing.assert_allclose(eig, [-100.0, 0.0, 0.0, 0.0], atol=1e-12)
