"""The radiation memory of a hull as a state-space system fitted to BEM coefficients.

Cummins' equation carries the hull's radiation as a convolution,

    (M + A∞) ν̇ + ∫₀ᵗ K(t − τ) ν(τ) dτ + … = τ_exc,   K(t) = (2/π) ∫₀^∞ B(ω) cos(ωt) dω,

whose frequency response is K(jω) = B(ω) + jω (A(ω) − A∞). A convolution over the whole past
cannot be stepped by an ODE integrator; a linear system ẋ = A_r x + B_r ν, μ = C_r x with
C_r e^{A_r t} B_r ≈ K(t) can, its states integrated with the body's (FhSim's "ship with
advanced hull", WEC-Sim and HydroChrono do the same). Each coupled pair of degrees of
freedom is realised on its own from samples of K(t) by Kung's SVD of their Hankel matrix (as
WEC-Sim's BEMIO does), the order the smallest whose frequency response meets the tolerance,
then checked for stability and passivity: the hull may only take energy from the motion,
Re K(jω) ⪰ 0 at every frequency. Pure numerics: the file readers are `scenario.bem_file`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..fields import FieldError

#: The largest order tried for one pair of degrees of freedom.
MAX_ORDER = 16
#: How far a fit's frequency response may be from the data's, relative to its largest |K(jω)|.
DEFAULT_TOLERANCE = 0.05
#: How far past the data's last frequency its damping is carried (as ω⁻²), times ω_max.
TAIL = 6.0
#: The most samples of K(t) realised (a Hankel matrix of half as many rows and columns).
MAX_SAMPLES = 800
#: A passivity violation this small (relative to the largest Re K) is made good with a
#: constant damping added to the fit (and said so); a larger one refuses the fit.
PASSIVE_SLACK = 0.02


@dataclass(frozen=True)
class RadiationData:
    """A(ω), B(ω) in body axes (surge, sway, heave, roll, pitch, yaw; NED), about the body's
    reference point; degrees of freedom absent from the file are zero rows and columns."""

    omega: np.ndarray  # (n,) rad/s, increasing
    added_mass: np.ndarray  # (n, 6, 6)
    damping: np.ndarray  # (n, 6, 6)
    added_mass_inf: np.ndarray | None  # (6, 6), when the file has it
    present: tuple[int, ...]  # the degrees of freedom the file has


@dataclass(frozen=True)
class RadiationFit:
    """ẋ = a x + b ν, μ = c x + d ν: μ the radiation force and moment (what the hull feels is
    −μ), ν the body's velocity in body axes; `a` block-diagonal, one block per pair."""

    a: np.ndarray  # (s, s)
    b: np.ndarray  # (s, 6)
    c: np.ndarray  # (6, s)
    d: np.ndarray  # (6, 6): the damping added to make the fit passive (zero when it was)
    added_mass_inf: np.ndarray  # (6, 6)
    inf_extrapolated: bool  # A∞ worked out from A(ω) and K(t), not read
    orders: dict[tuple[int, int], int]  # the order of each pair's block
    error: float  # max |K_fit(jω) − K(jω)| / max |K(jω)| over the data's frequencies

    @property
    def states(self) -> int:
        return int(self.a.shape[0])

    def response(self, omega: np.ndarray) -> np.ndarray:
        """K_fit(jω), (n, 6, 6), through a's eigenvectors (a realisation is diagonalisable)."""
        lam, vec = np.linalg.eig(self.a)
        left, right = self.c @ vec, np.linalg.solve(vec, self.b)
        poles = 1.0 / (1j * np.asarray(omega)[:, None] - lam[None, :])
        return np.einsum("ik,kj,wk->wij", left, right, poles) + self.d

    def coefficients(self, omega: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fit's A(ω) and B(ω), (n, 6, 6) each: B = Re K, A = A∞ + Im K / ω."""
        k = self.response(omega)
        return self.added_mass_inf + k.imag / omega[:, None, None], k.real


def retardation(omega: np.ndarray, damping: np.ndarray, t: np.ndarray) -> np.ndarray:
    """K(t) = (2/π) ∫ B(ω) cos(ωt) dω over the data's frequencies (B(0) = 0 added in front:
    a hull radiates no wave at zero frequency), by the trapezoidal rule; (len(t), …)."""
    w = np.concatenate(([0.0], omega))
    b = np.concatenate((np.zeros((1, *damping.shape[1:])), damping))
    cos = np.cos(np.outer(t, w))  # (nt, nw)
    weights = np.diff(w)
    trap = np.zeros_like(w)
    trap[:-1] += weights / 2
    trap[1:] += weights / 2
    return (2 / np.pi) * np.tensordot(cos * trap, b, axes=(1, 0))


def infinite_added_mass(
    omega: np.ndarray, added_mass: np.ndarray, kernel: np.ndarray, t: np.ndarray
) -> np.ndarray:
    """A∞ from Ogilvie's relation A(ω) = A∞ − (1/ω) ∫ K(t) sin(ωt) dt, its median over the
    upper half of the frequencies (where the truncated K matters least)."""
    dt = t[1] - t[0]
    upper = omega >= np.median(omega)
    sin = np.sin(np.outer(omega[upper], t)) * dt
    sin[:, [0, -1]] /= 2
    integral = np.tensordot(sin, kernel, axes=(1, 0))  # (nu, 6, 6)
    return np.asarray(np.median(added_mass[upper] + integral / omega[upper, None, None], axis=0))


class Hankel:
    """The SVD of the Hankel matrix of one memory's samples h[k] = K(k dt) (Kung 1978), from
    which a realisation of any order is read: C e^{A k dt} B ≈ h[k]."""

    def __init__(self, h: np.ndarray, dt: float) -> None:
        m = (len(h) - 1) // 2
        rows = np.arange(m)[:, None] + np.arange(m)[None, :]
        self.u, self.s, self.vt = np.linalg.svd(h[rows])
        self.shifted = h[rows + 1]
        self.dt = dt

    def realise(self, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, B, C) in continuous time; A from the discrete one's eigenvalues (log λ / dt)."""
        root = np.sqrt(self.s[:order])
        u, vt = self.u[:, :order], self.vt[:order]
        a_d = (u.T @ self.shifted @ vt.T) / np.outer(root, root)
        lam, vec = np.linalg.eig(a_d)
        if np.any(np.abs(lam) >= 1.0) or np.any(np.abs(lam) < 1e-12):
            raise np.linalg.LinAlgError("unstable or degenerate realisation")
        a = (vec @ np.diag(np.log(lam.astype(complex)) / self.dt) @ np.linalg.inv(vec)).real
        return a, root * vt[:, 0], u[0] * root


def kung(h: np.ndarray, dt: float, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, C) of order `order` with C e^{A k dt} B ≈ h[k]."""
    return Hankel(h, dt).realise(order)


def _entry_response(a: np.ndarray, b: np.ndarray, c: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """c (jω − a)⁻¹ b at every ω, through a's eigenvectors (a realisation is diagonalisable)."""
    lam, vec = np.linalg.eig(a)
    left, right = c @ vec, np.linalg.solve(vec, b)
    return np.asarray((left * right) @ (1.0 / (1j * omega[None, :] - lam[:, None])))


def _fit_entry(
    h: np.ndarray, dt: float, omega: np.ndarray, target: np.ndarray, scale: float, tolerance: float,
    diagonal: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    """(A, B, C, error) of the lowest order meeting `tolerance` that is also passive (within
    PASSIVE_SLACK, for a degree of freedom's own memory); else the most accurate passive one;
    else the most accurate (which `make_passive` then refuses)."""
    hankel = Hankel(h, dt)
    grid = _dense(omega)
    tried: list[tuple[bool, float, tuple[np.ndarray, np.ndarray, np.ndarray]]] = []
    for order in range(2, MAX_ORDER + 1):
        try:
            abc = hankel.realise(order)
        except np.linalg.LinAlgError:
            continue
        err = float(np.max(np.abs(_entry_response(*abc, omega) - target))) / scale
        passive = True
        if diagonal:
            re = _entry_response(*abc, grid).real
            passive = bool(re.min() >= -PASSIVE_SLACK * re.max())
        tried.append((passive, err, abc))
        if passive and err <= tolerance:
            break
    if not tried:
        raise FieldError("file", "invalid", "radiation: no stable realisation of K(t) was found")
    passive_ones = [x for x in tried if x[0]] or tried
    _, err, (a, b, c) = min(
        passive_ones, key=lambda x: (x[1] > tolerance, x[1] if x[1] > tolerance else 0)
    )
    return a, b, c, err


def _dense(omega: np.ndarray) -> np.ndarray:
    """Where passivity is checked: a tenth of the lowest frequency to ten times the highest."""
    return np.geomspace(omega[0] / 10, omega[-1] * 10, 400)


def with_tail(omega: np.ndarray, damping: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The damping carried past the data's last frequency as B(ω_max)(ω_max/ω)², up to
    TAIL × ω_max: a radiation memory's B falls as ω⁻² (its K(jω) as 1/jω), and a transform cut
    where B is still large rings (Gibbs) in K(t) and in any realisation of it."""
    step = float(omega[-1] - omega[-2])
    tail = np.arange(omega[-1] + step, TAIL * omega[-1], step)
    falling = (omega[-1] / tail) ** 2
    return np.concatenate((omega, tail)), np.concatenate(
        (damping, damping[-1] * falling[:, None, None])
    )


def sampling(omega: np.ndarray) -> tuple[float, int]:
    """(dt, samples) for K(t) of the tailed damping: dt resolves its highest frequency, and the
    span stays within half the period the data's spacing aliases at (2π/Δω), at most
    MAX_SAMPLES (the Hankel matrix is half as wide)."""
    dt = np.pi / (2 * TAIL * float(omega[-1]))
    span = np.pi / float(np.max(np.diff(omega)))
    return dt, int(min(span / dt, MAX_SAMPLES))


def fit(data: RadiationData, tolerance: float = DEFAULT_TOLERANCE) -> RadiationFit:
    """The state-space radiation of `data` (see the module's docstring)."""
    omega = data.omega
    dt, n = sampling(omega)
    t = np.arange(n) * dt
    kernel = retardation(*with_tail(omega, data.damping), t)
    extrapolated = data.added_mass_inf is None
    a_inf = (
        infinite_added_mass(omega, data.added_mass, kernel, t)
        if extrapolated
        else data.added_mass_inf
    )
    assert a_inf is not None
    a_inf = (a_inf + a_inf.T) / 2
    target = data.damping + 1j * omega[:, None, None] * (data.added_mass - a_inf)
    scale = float(np.max(np.abs(target))) or 1.0
    fits: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    error = 0.0
    for i in data.present:
        for j in data.present:
            if j < i or np.max(np.abs(data.damping[:, i, j])) <= 1e-9 * scale:
                continue  # symmetric: (j, i) shares (i, j)'s fit; a pair that does not radiate
            a, b, c, err = _fit_entry(
                kernel[:, i, j], dt, omega, target[:, i, j], scale, tolerance, i == j
            )
            fits[(i, j)] = (a, b, c)
            error = max(error, err)
    # one block per ordered pair: μ_i += K_ij ν_j, and μ_j += K_ij ν_i for a coupled pair
    entries = [(i, j, fits[(i, j)]) for (i, j) in fits]
    entries += [(j, i, fits[(i, j)]) for (i, j) in fits if i != j]
    s = sum(len(abc[0]) for _, _, abc in entries)
    am, bm, cm = np.zeros((s, s)), np.zeros((s, 6)), np.zeros((6, s))
    at = 0
    for i, j, (a, b, c) in entries:
        k = slice(at, at + len(a))
        am[k, k], bm[k, j], cm[i, k] = a, b, c
        at += len(a)
    orders = {ij: len(abc[0]) for ij, abc in fits.items()}
    fitted = make_passive(
        RadiationFit(am, bm, cm, np.zeros((6, 6)), a_inf, extrapolated, orders, error), omega
    )
    if np.any(fitted.d):  # the damping added for passivity moves B: the error reported says so
        error = float(np.max(np.abs(fitted.response(omega) - target))) / scale
        fitted = replace(fitted, error=max(error, fitted.error))
    return fitted


def passivity_margin(fitted: RadiationFit, omega: np.ndarray) -> tuple[float, float]:
    """(the smallest eigenvalue of the Hermitian part of K_fit(jω) over a dense grid from a
    tenth of the data's lowest frequency to ten times its highest, the largest one)."""
    k = fitted.response(_dense(omega))
    herm = (k + np.conj(np.transpose(k, (0, 2, 1)))) / 2
    eig = np.linalg.eigvalsh(herm)
    return float(eig.min()), float(eig.max())


def make_passive(fitted: RadiationFit, omega: np.ndarray) -> RadiationFit:
    """`fitted` when passive; else with the constant damping that makes it so when that is
    small (PASSIVE_SLACK of the largest), refused otherwise."""
    low, high = passivity_margin(fitted, omega)
    if low >= 0:
        return fitted
    if -low > PASSIVE_SLACK * high:
        raise FieldError(
            "file",
            "invalid",
            f"radiation: the fitted memory is not passive (it would give energy to the motion: "
            f"Re K(jω) down to {low:.3g} against a largest {high:.3g}); the data may hold "
            "negative damping or too coarse a frequency grid",
        )
    d = np.diag([(-low if any(i in ij for ij in fitted.orders) else 0.0) for i in range(6)])
    return replace(fitted, d=d)


__all__ = ["RadiationData", "RadiationFit", "fit", "kung", "passivity_margin", "retardation"]
