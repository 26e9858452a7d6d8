"""The radiation memory fitted to A(ω), B(ω) (dynamics/radiation_fit.py), against a system
whose memory is known in closed form."""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.dynamics.radiation_fit import RadiationData, fit, kung, passivity_margin, retardation
from sixdof.fields import FieldError

#: A hull-like memory, K(s) = k s / (s² + 2ζω0 s + ω0²): passive (its B(ω) ≥ 0, zero at
#: ω = 0 as a hull's is), K(t) = k e^{−ζω0 t} (cos ωd t − ζω0/ωd sin ωd t).
W0, ZETA, GAIN = 1.5, 0.3, 1e4


def known_system() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.array([[0.0, 1.0], [-(W0**2), -2 * ZETA * W0]])
    return a, np.array([0.0, 1.0]), np.array([0.0, GAIN])


def known_memory(omega: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K(jω) in closed form, and the A(ω) − A∞, B(ω) it stands for."""
    s = 1j * omega
    k = GAIN * s / (s**2 + 2 * ZETA * W0 * s + W0**2)
    return k, k.imag / omega, k.real


def memory_at(t: np.ndarray) -> np.ndarray:
    wd = W0 * np.sqrt(1 - ZETA**2)
    return GAIN * np.exp(-ZETA * W0 * t) * (np.cos(wd * t) - ZETA * W0 / wd * np.sin(wd * t))


def data_of(omega: np.ndarray, a_inf: float | None, dof: int = 2) -> RadiationData:
    _, a_minus, b = known_memory(omega)
    am, bm = np.zeros((len(omega), 6, 6)), np.zeros((len(omega), 6, 6))
    am[:, dof, dof] = a_minus + 5e4
    bm[:, dof, dof] = b
    inf = None
    if a_inf is not None:
        inf = np.zeros((6, 6))
        inf[dof, dof] = a_inf
    return RadiationData(omega, am, bm, inf, (dof,))


def test_the_retardation_function_is_the_cosine_transform_of_the_damping() -> None:
    from scipy.integrate import quad

    omega = np.linspace(0.01, 100, 10000)
    _, _, b = known_memory(omega)
    t = np.array([0.0, 0.3, 1.0, 2.5, 6.0])
    got = retardation(omega, b[:, None, None], t)[:, 0, 0]
    # what the data cannot hold: the damping beyond its last frequency, |cos| ≤ 1
    tail = 2 / np.pi * quad(lambda w: known_memory(np.array([w]))[2][0], 100, np.inf)[0]
    assert np.abs(got - memory_at(t)) == pytest.approx(0, abs=tail + 1e-4 * GAIN)
    assert tail < 0.01 * GAIN


def test_kung_recovers_a_memory_from_its_samples() -> None:
    dt = 0.1
    h = memory_at(np.arange(301) * dt)
    a, b, c = kung(h, dt, 2)
    from scipy.linalg import expm

    assert np.sort_complex(np.linalg.eigvals(a)) == pytest.approx(
        np.sort_complex(np.linalg.eigvals(known_system()[0])), abs=1e-6
    )
    t2 = np.linspace(0, 8, 50)
    fitted = np.array([c @ expm(a * s) @ b for s in t2])
    assert fitted == pytest.approx(memory_at(t2), abs=1e-6 * GAIN)


def test_a_fit_reproduces_the_frequency_response_and_is_passive() -> None:
    omega = np.linspace(0.05, 12.0, 240)
    fitted = fit(data_of(omega, 5e4))
    k_true, _, _ = known_memory(omega)
    k_fit = fitted.response(omega)[:, 2, 2]
    assert fitted.error <= 0.05
    assert np.max(np.abs(k_fit - k_true)) <= fitted.error * np.max(np.abs(k_true)) + 1e-9
    a_fit, _b_fit = fitted.coefficients(omega)
    assert a_fit[:, 2, 2] == pytest.approx(data_of(omega, 5e4).added_mass[:, 2, 2], rel=0.05)
    assert np.all(fitted.d == 0)
    low, _ = passivity_margin(fitted, omega)
    assert low >= 0
    assert set(fitted.orders) == {(2, 2)}


def test_the_infinite_frequency_added_mass_is_worked_out_when_the_file_lacks_it() -> None:
    omega = np.linspace(0.05, 12.0, 240)
    fitted = fit(data_of(omega, None))
    assert fitted.inf_extrapolated
    assert fitted.added_mass_inf[2, 2] == pytest.approx(5e4, rel=0.01)


def test_random_motion_never_takes_energy_from_the_fitted_hull() -> None:
    """Passivity in the time domain: from rest, ∫ μ·ν dt ≥ 0 at every moment, whatever ν."""
    omega = np.linspace(0.05, 12.0, 240)
    fitted = fit(data_of(omega, 5e4))
    from scipy.signal import StateSpace, lsim

    rng = np.random.default_rng(7)
    t = np.arange(0, 60, 0.01)
    nu = np.cumsum(rng.normal(size=(len(t), 6)), axis=0) * 0.05  # a wandering velocity
    nu -= nu.mean(axis=0)
    _, mu, _ = lsim(StateSpace(fitted.a, fitted.b, fitted.c, fitted.d), nu, t)
    work = np.cumsum(np.sum(mu * nu, axis=1)) * 0.01
    assert work.min() >= -1e-6 * np.abs(work).max()


def test_negative_damping_that_no_small_damping_can_mend_is_refused() -> None:
    omega = np.linspace(0.05, 12.0, 240)
    data = data_of(omega, 5e4)
    damping = data.damping.copy()
    damping[:, 2, 2] -= 0.5 * damping[:, 2, 2].max()  # B < 0 over much of the range
    with pytest.raises(FieldError, match="not passive"):
        fit(RadiationData(omega, data.added_mass, damping, data.added_mass_inf, (2,)))
