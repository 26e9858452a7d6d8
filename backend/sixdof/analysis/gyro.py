"""A gyroscope recording of a body in free flight: fit the torque-free Euler equations to
it, and say what it tells about the body.

Reading the file is gyro_file's, the equations and their integration gyro_model's, what a fit
costs gyro_cost's (known before it runs), the fitted body (as a scenario, against a room's)
gyro_body's; this module fits, and names what its callers need of the first three.

Only the ratios a = Ix/Iz, b = Iy/Iz are observable (scaling I scales nothing in ω). `fit`
finds ω(0), a and b by least squares (scipy's `least_squares`, trust-region reflective,
a, b > 0) over the whole record, starting from the ratios whose equations best match the
rates' smoothed derivatives (`derivative_ratios`; a few fixed starts follow when that fit
stays above the noise), and reports their standard uncertainty from the Jacobian at the
optimum (σ² (JᵀJ)⁻¹, σ² from the residual).

A *flip* is a sign change of the rate about the intermediate axis (the tennis-racket or
Dzhanibekov flip); the flip period is the time from one flip to the next (half the period
of ω(t)), measured on the recording and predicted by the fitted equations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .gyro_cost import MAX_EVALUATIONS, FitCost, FitTooCostly, check_cost, fit_cost
from .gyro_file import (
    MAX_DURATION,
    MAX_RATE,
    MAX_SAMPLES,
    MIN_SAMPLES,
    PHYPHOX_COLUMNS,
    GyroData,
    GyroFileError,
    read_gyro_text,
)
from .gyro_model import MAX_STEP, TURN_FRACTION, euler_rates, simulate, step_for

__all__ = [
    "MAX_DURATION",
    "MAX_EVALUATIONS",
    "MAX_RATE",
    "MAX_SAMPLES",
    "MAX_STEP",
    "MIN_SAMPLES",
    "PHYPHOX_COLUMNS",
    "TURN_FRACTION",
    "FitCost",
    "FitTooCostly",
    "GyroData",
    "GyroFileError",
    "GyroFit",
    "check_cost",
    "derivative_ratios",
    "euler_rates",
    "fit",
    "fit_cost",
    "flip_period",
    "flip_times",
    "predicted_flip_period",
    "read_gyro_text",
    "simulate",
]


@dataclass
class GyroFit:
    """What a recording says about the body (ratios a = Ix/Iz, b = Iy/Iz)."""

    data: GyroData
    omega0: np.ndarray  # fitted ω at the first sample, rad/s
    ratios: np.ndarray  # (a, b)
    ratio_sigma: np.ndarray  # their standard uncertainties
    omega0_sigma: np.ndarray
    rms: float  # residual, rad/s (root mean square over the three components)
    fitted: np.ndarray  # ω of the fitted equations at the samples, (n, 3)
    intermediate: int | None  # 0, 1, 2: the axis of the middle moment (None if two agree)
    flip_measured: float | None  # s between flips in the recording
    flip_predicted: float | None  # s between flips of the fitted equations
    flips_measured: int = 0
    evaluations: int = 0

    @property
    def moments(self) -> np.ndarray:
        """(Ix, Iy, Iz) / Iz."""
        return np.array([self.ratios[0], self.ratios[1], 1.0])

    def to_json(self) -> dict[str, Any]:
        return {
            "inertia_ratios": [float(v) for v in self.ratios],
            "inertia_ratios_sigma": [float(v) for v in self.ratio_sigma],
            "initial_ang_vel": [float(v) for v in self.omega0],
            "initial_ang_vel_sigma": [float(v) for v in self.omega0_sigma],
            "residual_rms": self.rms,
            "samples": len(self.data.t),
            "duration": float(self.data.t[-1]),
            "sample_rate": self.data.rate,
            "intermediate_axis": "xyz"[self.intermediate]
            if self.intermediate is not None
            else None,
            "flips_measured": self.flips_measured,
            "flip_period_measured": self.flip_measured,
            "flip_period_predicted": self.flip_predicted,
            "columns": self.data.columns,
            "notes": self.data.notes,
        }


def derivative_ratios(t: np.ndarray, omega: np.ndarray) -> tuple[np.ndarray | None, float]:
    """(a, b) from the Euler equations' coefficients fitted to the rates' derivatives
    (Savitzky–Golay, cubic, ~0.1 s windows): ω̇x = c1 ωy ωz, ω̇y = c2 ωz ωx give
    a = (1 − c2)/(1 + c1 c2), b = 1 + a c1; None when they are not both positive. And the
    noise: the standard deviation of ω about its smoothed curve, rad/s."""
    from scipy.signal import savgol_filter

    dt = float(np.median(np.diff(t)))
    # ~0.1 s, at most the record: samples 1e-310 s apart ask for an infinite window
    window = int(min(len(t) // 2 * 2 - 1, max(7, round(min(0.1 / dt, len(t))) | 1)))
    smooth = savgol_filter(omega, window, 3, axis=0)
    rates = savgol_filter(omega, window, 3, deriv=1, delta=dt, axis=0)
    noise = float(np.std(omega - smooth))
    x, y, z = smooth.T
    with np.errstate(all="ignore"):
        c1 = float(np.dot(rates[:, 0], y * z) / np.dot(y * z, y * z))
        c2 = float(np.dot(rates[:, 1], z * x) / np.dot(z * x, z * x))
        a = (1.0 - c2) / (1.0 + c1 * c2)
        b = 1.0 + a * c1
    ok = math.isfinite(a) and math.isfinite(b) and a > 0 and b > 0
    return (np.array([a, b]) if ok else None), noise


def fit(data: GyroData) -> GyroFit:
    """Least squares over ω(0), Ix/Iz and Iy/Iz of the torque-free Euler equations, with at
    most MAX_EVALUATIONS integrations of the record, each with the step of its fastest rate:
    what gyro_cost counts before (check_cost refuses a recording too costly to fit)."""
    from scipy.optimize import least_squares

    t, measured = data.t, data.omega
    step = step_for(float(np.max(np.linalg.norm(measured, axis=1))))
    head = measured[: max(3, min(5, len(t) // 20))]
    w0 = head[0] if len(head) < 3 else np.median(head[:3], axis=0)
    starts = []
    guess, noise = derivative_ratios(t, measured)
    if guess is not None:
        starts.append(np.clip(guess, 0.02, 50.0))
    starts += [np.array(s) for s in ((0.8, 0.2), (0.2, 0.8), (0.5, 0.5), (2.0, 0.5), (0.5, 2.0))]
    evaluations = 0

    def residuals(p: np.ndarray) -> np.ndarray:
        nonlocal evaluations
        evaluations += 1
        return (simulate(t, p[:3], p[3], p[4], step) - measured).ravel()

    lower = [-np.inf] * 3 + [1e-3] * 2
    upper = [np.inf] * 3 + [1e3] * 2
    best = None
    for ratios in starts:
        # an iteration integrates at most 1 + 5 times (residuals, a 2-point Jacobian): a
        # start gets the evaluations whose integrations the ones before it left
        max_nfev = min(200, (MAX_EVALUATIONS - evaluations) // (1 + 5))
        if max_nfev < 5:
            break
        result = least_squares(
            residuals, np.concatenate([w0, ratios]), bounds=(lower, upper), x_scale="jac",
            xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=max_nfev,
        )  # fmt: skip
        if best is None or result.cost < best.cost:
            best = result
        rms = math.sqrt(2.0 * best.cost / best.fun.size)
        if rms < 2.0 * noise + 1e-3 * float(np.sqrt(np.mean(measured**2))):
            break  # down to the noise: no need to try other starts
    assert best is not None
    p = best.x
    dof = max(1, best.fun.size - p.size)
    sigma2 = 2.0 * best.cost / dof
    try:
        cov = np.linalg.inv(best.jac.T @ best.jac) * sigma2
        sigma = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    except np.linalg.LinAlgError:
        sigma = np.full(p.size, np.inf)
    a, b = float(p[3]), float(p[4])
    fitted = simulate(t, p[:3], a, b, step)
    moments = np.array([a, b, 1.0])
    order = np.argsort(moments)
    spread = moments[order[2]] - moments[order[0]]
    distinct = min(moments[order[1]] - moments[order[0]], moments[order[2]] - moments[order[1]])
    middle = int(order[1]) if distinct > 1e-3 * spread else None
    flip_measured, flips = (None, 0) if middle is None else flip_period(t, measured[:, middle])
    flip_predicted = None if middle is None else predicted_flip_period(p[:3], a, b, middle, t, step)
    return GyroFit(
        data, p[:3].copy(), np.array([a, b]), sigma[3:], sigma[:3],
        math.sqrt(2.0 * best.cost / best.fun.size), fitted, middle, flip_measured,
        flip_predicted, flips, evaluations,
    )  # fmt: skip


def flip_times(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Times where the rate w changes sign, with hysteresis: from above +h to below −h or
    back, h = a quarter of max |w| (noise near zero makes no flip); each at the zero
    crossing (linear interpolation) just before the far side is reached."""
    h = 0.25 * float(np.max(np.abs(w)))
    if h <= 0.0:
        return np.empty(0)
    side = 0
    times = []
    for i in range(len(w)):
        s = 1 if w[i] > h else -1 if w[i] < -h else 0
        if s == 0:
            continue
        if side and s != side:  # crossed: find the last zero crossing before i
            j = i
            while j > 0 and np.sign(w[j - 1]) == np.sign(w[i]):
                j -= 1
            if j > 0 and w[j - 1] != w[j]:
                times.append(t[j - 1] + (t[j] - t[j - 1]) * w[j - 1] / (w[j - 1] - w[j]))
            else:
                times.append(t[j])
        side = s
    return np.array(times)


def flip_period(t: np.ndarray, w: np.ndarray) -> tuple[float | None, int]:
    """(mean time between flips, number of flips) of a rate; None with fewer than two."""
    times = flip_times(t, w)
    return (float(np.mean(np.diff(times))) if len(times) >= 2 else None), len(times)


def predicted_flip_period(
    omega0: np.ndarray, a: float, b: float, axis: int, t: np.ndarray, step: float | None = None
) -> float | None:
    """The fitted equations' time between flips: simulated from ω0 for as long as three
    flips take (up to 50 times the recording or 10 minutes), at the recording's rate, with
    RK4 steps of at most `step` (None: from |ω0|)."""
    duration = float(t[-1])
    span = duration
    while True:
        dt = max(duration / max(1, len(t) - 1), span / 20_000)
        grid = np.arange(0.0, span + 0.5 * dt, dt)
        w = simulate(grid, omega0, a, b, step)[:, axis]
        times = flip_times(grid, w)
        if len(times) >= 3 or span >= min(50.0 * duration, 600.0):
            return float(np.mean(np.diff(times))) if len(times) >= 2 else None
        span *= 4.0
