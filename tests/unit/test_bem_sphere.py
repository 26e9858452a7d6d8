"""The OES Task 10 sphere (R = 5 m, half submerged): Capytaine's coefficients as shipped
(scripts/bem_oes_sphere.py), fitted, and its heave free decay from 1 m against an independent
Cummins convolution of the same B(ω)."""

from __future__ import annotations

import dataclasses
from importlib import resources

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sixdof.dynamics.radiation_fit import RadiationFit, fit, passivity_margin, retardation
from sixdof.scenario.bem_file import BemCoefficients, read_bem

RHO, G, R = 1000.0, 9.81, 5.0
MASS = RHO * 2 / 3 * np.pi * R**3  # 261.8 t: half the sphere's volume of water
HEAVE_STIFFNESS = RHO * G * np.pi * R**2  # the water plane's area


@pytest.fixture(scope="module")
def sphere() -> BemCoefficients:
    data = resources.files("sixdof.scenario.presets") / "bem" / "oes_sphere.nc"
    return read_bem(data.read_bytes())


@pytest.fixture(scope="module")
def fitted(sphere: BemCoefficients) -> RadiationFit:
    return fit(sphere.radiation)


def test_the_fit_reproduces_capytaines_coefficients_within_its_reported_error(
    sphere: BemCoefficients, fitted: RadiationFit
) -> None:
    r = sphere.radiation
    assert r.present == (0, 2)
    a_fit, b_fit = fitted.coefficients(r.omega)
    scale = np.max(
        np.abs(r.damping + 1j * r.omega[:, None, None] * (r.added_mass - fitted.added_mass_inf))
    )
    for k in (0, 2):
        assert np.max(np.abs(b_fit[:, k, k] - r.damping[:, k, k])) <= fitted.error * scale + 1e-6
        assert (
            np.max(np.abs((a_fit[:, k, k] - r.added_mass[:, k, k]) * r.omega))
            <= fitted.error * scale + 1e-6
        )
    assert fitted.error <= 0.02
    assert max(fitted.orders.values()) <= 6
    assert passivity_margin(fitted, r.omega)[0] >= 0


def test_the_infinite_frequency_added_mass_worked_out_matches_capytaines(
    sphere: BemCoefficients,
) -> None:
    assert sphere.radiation.added_mass_inf is not None
    guessed = fit(dataclasses.replace(sphere.radiation, added_mass_inf=None))
    assert guessed.inf_extrapolated
    for k in (0, 2):
        assert guessed.added_mass_inf[k, k] == pytest.approx(
            sphere.radiation.added_mass_inf[k, k], rel=0.01
        )


def decay_by_state_space(fitted: RadiationFit, a_inf: float, t: np.ndarray) -> np.ndarray:
    """Heave from 1 m: (m + A∞) z̈ + μ + C z = 0 with the fitted memory's states, to 1e-10."""
    rows = [k for k in range(fitted.states) if fitted.b[k, 2] != 0 or fitted.c[2, k] != 0]
    a = fitted.a[np.ix_(rows, rows)]
    b, c, d = fitted.b[rows, 2], fitted.c[2, rows], fitted.d[2, 2]

    def rhs(_: float, y: np.ndarray) -> np.ndarray:
        z, v, x = y[0], y[1], y[2:]
        mu = c @ x + d * v
        return np.concatenate(([v, -(mu + HEAVE_STIFFNESS * z) / (MASS + a_inf)], a @ x + b * v))

    y0 = np.zeros(2 + len(rows))
    y0[0] = 1.0
    return solve_ivp(rhs, (t[0], t[-1]), y0, t_eval=t, rtol=1e-10, atol=1e-12, method="DOP853").y[0]


def decay_by_convolution(sphere: BemCoefficients, a_inf: float, dt: float, n: int) -> np.ndarray:
    """The same from Cummins' convolution, K(t) straight from the file's B(ω) (trapezoid,
    nothing past the last frequency), stepped with the velocity Verlet scheme."""
    r = sphere.radiation
    kernel = retardation(r.omega, r.damping[:, 2:3, 2:3], np.arange(n) * dt)[:, 0, 0]
    z, v = np.zeros(n), np.zeros(n)
    z[0] = 1.0

    def accel(k: int, v_now: float) -> float:
        past = v[:k][::-1]  # v_{k-1}, …, v_0 against K(dt), …, K(k dt)
        memory = dt * (kernel[1 : k + 1] @ past + 0.5 * kernel[0] * v_now) if k else 0.0
        if k:
            memory -= 0.5 * dt * kernel[k] * v[0]
        return -(memory + HEAVE_STIFFNESS * z[k]) / (MASS + a_inf)

    acc = accel(0, 0.0)
    for k in range(n - 1):
        half = v[k] + 0.5 * dt * acc
        z[k + 1] = z[k] + dt * half
        guess = half
        for _ in range(2):  # the memory's newest term needs v_{k+1}: two fixed-point passes
            v[k + 1] = guess
            acc = accel(k + 1, guess)
            guess = half + 0.5 * dt * acc
        v[k + 1] = guess
    return z


def period_and_trough(t: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    up = np.flatnonzero((z[:-1] < 0) & (z[1:] >= 0))
    crossings = t[up] - z[up] * (t[up + 1] - t[up]) / (z[up + 1] - z[up])
    first = np.flatnonzero(z < 0)[0]
    trough = float(z[first : up[0] + 1].min())
    return float(np.mean(np.diff(crossings[:3]))), trough


def test_the_free_decay_from_1_m_matches_an_independent_cummins_convolution(
    sphere: BemCoefficients, fitted: RadiationFit
) -> None:
    a_inf = float(fitted.added_mass_inf[2, 2])
    dt, n = 0.005, 4000  # 20 s: three periods and more
    t = np.arange(n) * dt
    ours = period_and_trough(t, decay_by_state_space(fitted, a_inf, t))
    reference = period_and_trough(t, decay_by_convolution(sphere, a_inf, dt, n))
    print(f"period {ours[0]:.4f} s against {reference[0]:.4f} s; first trough {ours[1]:.4f} m "
          f"against {reference[1]:.4f} m")  # fmt: skip
    assert ours[0] == pytest.approx(reference[0], rel=0.01)
    assert ours[1] == pytest.approx(reference[1], rel=0.01)
    assert 4.0 < ours[0] < 4.8 and -0.9 < ours[1] < -0.6  # the OES sphere's range


def test_coefficients_frozen_at_the_natural_frequency_miss_the_first_trough(
    sphere: BemCoefficients, fitted: RadiationFit
) -> None:
    """Why the memory: A and B taken at the natural frequency alone, as a constant added mass
    and damper would, give a shallower first trough (about −0.77 m against −0.86 m)."""
    r = sphere.radiation
    w = 1.5
    for _ in range(20):  # ω_n = √(C / (m + A(ω_n)))
        w = np.sqrt(HEAVE_STIFFNESS / (MASS + np.interp(w, r.omega, r.added_mass[:, 2, 2])))
    added, damping = (
        np.interp(w, r.omega, r.added_mass[:, 2, 2]),
        np.interp(w, r.omega, r.damping[:, 2, 2]),
    )
    t = np.arange(4000) * 0.005
    frozen = solve_ivp(
        lambda _, y: [y[1], -(damping * y[1] + HEAVE_STIFFNESS * y[0]) / (MASS + added)],
        (0, t[-1]), [1.0, 0.0], t_eval=t, rtol=1e-10, atol=1e-12,
    ).y[0]  # fmt: skip
    with_memory = decay_by_state_space(fitted, float(fitted.added_mass_inf[2, 2]), t)
    frozen_trough = period_and_trough(t, frozen)[1]
    print(f"frozen at ω_n = {w:.3f} rad/s: first trough {frozen_trough:.4f} m")
    assert frozen_trough > period_and_trough(t, with_memory)[1] + 0.05
