"""Why the middle axis is unstable: the linearisation of a spin about each principal axis.

For a body spinning at ω0 = |ω| (its current rate) about principal axis i, the state
Jacobian's angular block ∂ω̇/∂ω (jacobians.state_jacobian, about the CG, no loads) has
eigenvalues 0 and ±ω0 √((I_i − I_j)(I_k − I_i)/(I_j I_k)) (j, k the other two axes):
a real pair (one grows: the spin is unstable, and a small wobble doubles every ln 2/λ)
about the intermediate axis, an imaginary pair (a wobble of period 2π/|λ|) about the
largest and the smallest. Model `fhsim` drops ω × I ω: every eigenvalue is 0 (neutral).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from .jacobians import state_jacobian
from .model import ANG_VEL, make_state
from .params import Bodies, BodyParams
from .quaternion import Array

#: A real part below this (1/s, relative to ω0) counts as zero: rounding in the Jacobian.
ZERO = 1e-9

Kind = Literal["unstable", "oscillating", "neutral"]


@dataclass(frozen=True)
class AxisStability:
    """One principal axis: its direction (body axes), moment, and the linearisation's
    eigenvalues at a spin of `rate` about it."""

    axis: tuple[float, float, float]
    moment: float  # kg·m²
    rate: float  # ω0, rad/s
    eigenvalues: tuple[tuple[float, float], ...]  # (real, imaginary), 1/s
    kind: Kind
    growth: float  # largest real part, 1/s
    doubling_time: float | None  # ln 2/growth, s (unstable)
    period: float | None  # 2π/|imag|, s (oscillating)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def axis_stability(
    mass: float, inertia: Array, rate: float, model: str = "full"
) -> list[AxisStability]:
    """The three principal axes (ascending moment) of a body of `inertia` (3×3, about the
    CG) spinning at `rate` rad/s."""
    moments, axes = np.linalg.eigh(np.asarray(inertia, dtype=float))
    body = Bodies.of(
        BodyParams(mass, inertia, np.zeros(3), 0.0, "full" if model == "full" else "fhsim")
    )
    out = []
    for i in range(3):
        x = make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), rate * axes[:, i])
        block = state_jacobian(x, np.zeros(6), body)[ANG_VEL, ANG_VEL]
        lam = np.linalg.eigvals(block)
        lam = lam[np.argsort(-np.abs(lam))][:2]  # the pair; the third is the zero one
        growth = float(np.max(lam.real))
        imag = float(np.max(np.abs(lam.imag)))
        scale = ZERO * max(rate, 1e-300)
        if growth > scale:
            kind: Kind = "unstable"
        elif imag > scale:
            kind = "oscillating"
        else:
            kind = "neutral"
        out.append(AxisStability(
            axis=tuple(float(a) for a in axes[:, i]),  # type: ignore[arg-type]  # 3 floats
            moment=float(moments[i]),
            rate=float(rate),
            eigenvalues=tuple((float(z.real), float(z.imag)) for z in lam),
            kind=kind,
            growth=growth if kind == "unstable" else 0.0,
            doubling_time=math.log(2.0) / growth if kind == "unstable" else None,
            period=2.0 * math.pi / imag if kind == "oscillating" else None,
        ))  # fmt: skip
    return out
