"""What the page's Hydrodynamics card draws for a radiation element (issue 43): the file's
A(ω) and B(ω) (the fit's `samples`) against the fitted model's at the same frequencies, and
the radiation memory K(t) of the file against the fit's, per pair of degrees of freedom the
fit realises, with the fit's reported error and the scale it is relative to.

The file's K(t) is the one the fit was made from (dynamics/radiation_fit.retardation of the
damping carried past its last frequency as ω⁻²); the fit's is C e^{At} B, the memory its
states carry (its D, the constant damping added to make it passive, is an impulse at t = 0,
left out of the curve and given apart). Numpy is imported here, not by `sixdof.scenario`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dynamics.radiation_fit import RadiationFit, retardation, sampling, with_tail
from .kinds.radiation import RadiationFitModel

#: The most K(t) samples sent (every k-th of the fit's sampling, k chosen to fit).
MAX_TIMES = 400


def card(fit: RadiationFitModel) -> dict[str, Any]:
    """The card's numbers (server/protocol's `Hydrodynamics` without the body); ValueError
    when the fit carries no samples of its file."""
    s = fit.samples
    if s is None:
        raise ValueError(
            "this radiation memory carries no samples of its BEM file (it was fitted before "
            "they were kept): fit the file again to see its A(ω) and B(ω)"
        )
    model = RadiationFit(
        np.array(fit.A, dtype=float), np.array(fit.B, dtype=float),
        np.array(fit.C, dtype=float), np.array(fit.D, dtype=float),
        np.array(fit.infinite, dtype=float), fit.extrapolated, {}, fit.error,
    )  # fmt: skip
    omega = np.array(s.omega, dtype=float)
    pairs = [tuple(ij) for ij in s.pairs]
    added = np.zeros((len(omega), 6, 6))
    damping = np.zeros((len(omega), 6, 6))
    for (i, j), a, b in zip(pairs, s.added_mass, s.damping, strict=True):
        added[:, i, j] = added[:, j, i] = a
        damping[:, i, j] = damping[:, j, i] = b
    fit_added, fit_damping = model.coefficients(omega)
    # the reference of the reported error: the largest |K(jω)| = |B + jω(A − A∞)| of the file
    target = damping + 1j * omega[:, None, None] * (added - model.added_mass_inf)
    dt, n = sampling(omega)
    every = max(1, -(-n // MAX_TIMES))
    t = np.arange(0, n, every) * dt
    kernel_file = retardation(*with_tail(omega, damping), t)
    kernel_fit = memory(model, t)

    def per_pair(m: np.ndarray) -> list[list[float]]:
        return [[float(v) for v in m[:, i, j]] for i, j in pairs]

    return {
        "omega": [float(w) for w in omega],
        "pairs": [list(ij) for ij in pairs],
        "added_mass": per_pair(added),
        "damping": per_pair(damping),
        "fit_added_mass": per_pair(fit_added),
        "fit_damping": per_pair(fit_damping),
        "infinite": [float(model.added_mass_inf[i, j]) for i, j in pairs],
        "t": [float(x) for x in t],
        "kernel": per_pair(kernel_file),
        "fit_kernel": per_pair(kernel_fit),
        "passive_damping": [float(model.d[i, j]) for i, j in pairs],
        "error": float(fit.error),
        "scale": float(np.max(np.abs(target))),
        "states": int(model.states),
        "extrapolated": bool(fit.extrapolated),
    }


def memory(model: RadiationFit, t: np.ndarray) -> np.ndarray:
    """C e^{At} B at every t, (len(t), 6, 6), through A's eigenvectors (a realisation is
    diagonalisable)."""
    lam, vec = np.linalg.eig(model.a)
    left, right = model.c @ vec, np.linalg.solve(vec, model.b)
    return np.einsum("ik,kj,tk->tij", left, right, np.exp(np.outer(t, lam))).real


__all__ = ["MAX_TIMES", "card", "memory"]
