"""`sixdof.lqr`: a linear-quadratic regulator for one body, from the analytic linearisation
(dynamics/jacobians.py), usable as a `linear_system` controller element.

The 13-state linearisation A₁₃ = ∂ẋ/∂x, B₁₃ = ∂ẋ/∂(F, M) about the operating point
(x₀, u₀) has a quaternion, whose norm is no degree of freedom; on the 12 coordinates
δx = (δp, δθ, δv, δω), δθ the small rotation in body axes (q = q₀ ⊗ (1, δθ/2)),

    A = P A₁₃ T,   B = P B₁₃,   T = ∂x₁₃/∂δx (δq = ½ q₀ ⊗ (0, δθ)),   P = T⁺,

and K = R⁻¹ Bᵀ S with S the solution of the continuous algebraic Riccati equation
Aᵀ S + S A − S B R⁻¹ Bᵀ S + Q = 0 (scipy.linalg.solve_continuous_are): u = u₀ − K δx
minimises ∫ δxᵀ Q δx + δuᵀ R δu, and the closed loop's eigenvalues are those of A − B K.

u₀ is the input that holds the body still at x₀ against its weight (−m g_n at the CG).
A body with elements (a barge on its buoyancy and damping) is linearised by the engine's
own derivative, elements and all (analysis/lqr_mechanism.py, `_in_its_world`), about the
u₀ that holds it still; the analytic linearisation stays the bare body's. As a
controller element, δθ is read as (Roll, Pitch, Yaw) − their values at x₀, which is
δθ to first order when x₀ is level (roll and pitch zero): other operating points are
refused. A constant state (A = 0, x₀ = 1) carries u₀ through C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import Bodies
from ..dynamics.jacobians import linearize
from ..dynamics.quaternion import Array, to_euler
from ..fields import FieldError
from ..scenario import Scenario
from .lqr_parts import reduction, weights

#: What the controller reads, in the order of δx, and where its output goes.
INPUTS = (
    "Pos.x", "Pos.y", "Pos.z", "Roll", "Pitch", "Yaw",
    "LocalVel.x", "LocalVel.y", "LocalVel.z", "AngVel.x", "AngVel.y", "AngVel.z",
)  # fmt: skip
OUTPUTS = ("Force.x", "Force.y", "Force.z", "Moment.x", "Moment.y", "Moment.z")


@dataclass(frozen=True)
class Lqr:
    """The regulator of one body: gain K (6 × 12), the closed loop's eigenvalues (12,), the
    reduced linearisation (A 12 × 12, B 12 × 6), the operating point and its input u₀, and
    the `linear_system` element that applies it (`element`, JSON as in a scenario)."""

    body: str
    K: Array
    eigenvalues: np.ndarray  # complex
    A: Array
    B: Array
    x0: Array
    u0: Array
    element: dict[str, Any]


def lqr(
    scenario: Scenario,
    q: ArrayLike,
    r: ArrayLike,
    body: str | None = None,
    inputs: list[str] | None = None,
    point: ArrayLike = (0.0, 0.0, 0.0),
    directions: ArrayLike = ((1.0, 0.0, 0.0),),
) -> Lqr:
    """The LQR of `body` (default: the first) at its initial state; q (12 × 12, or its 12
    diagonal entries) weighs δx = (δp, δθ, δv, δω), r (6 × 6 or 6) the input (F, M).

    With `inputs` (the body's signals, as a linear_system reads them) the whole scenario is
    linearised, joints and all (analysis/lqr_mechanism.py): q weighs those signals, r the
    forces along `directions` (global) at the body's `point`, K acts on the signals."""
    from .lqr_mechanism import design, forces_at

    if inputs is not None:
        name = body if body is not None else scenario.bodies[0].Name
        if name not in [b.Name for b in scenario.bodies]:
            raise FieldError("body", "unknown_body", f"body: no body named {name!r}")
        g = forces_at(scenario, name, point, directions)
        k_s, eig, a, b, u0, element = design(scenario, q, r, name, inputs, g)
        x0 = scenario.initial_states()[[s.Name for s in scenario.bodies].index(name)]
        return Lqr(name, k_s, eig, a, b, x0, u0, element)
    if scenario.elements:
        return _in_its_world(scenario, q, r, body, design)
    names = [b.Name for b in scenario.bodies]
    i = 0 if body is None else names.index(body) if body in names else -1
    if i < 0:
        raise FieldError(
            "body", "unknown_body", f"body: no body named {body!r}; bodies are {names}"
        )
    qm = weights(q, 12, "Q")
    rm = weights(r, 6, "R")
    params = scenario.body_params()[i]
    bodies = Bodies.of(params)
    x0 = scenario.initial_states()[i]
    quat = x0[3:7] / np.linalg.norm(x0[3:7])
    roll, pitch, yaw = to_euler(quat)
    if abs(roll) > 1e-9 or abs(pitch) > 1e-9:
        raise FieldError(
            "Quater", "invalid", "Quater: lqr's controller needs a level operating point "
            f"(roll and pitch 0), got roll {roll:.3g}, pitch {pitch:.3g} rad",
        )  # fmt: skip
    u0 = np.zeros(6)
    u0[2] = -params.mass * params.gravity  # holds its weight (NED: g along +z)
    a13, b13 = linearize(x0, u0, bodies)
    t, p = reduction(quat)
    a = p @ a13 @ t
    b = p @ b13
    from scipy.linalg import solve_continuous_are

    try:
        s = solve_continuous_are(a, b, qm, rm)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise FieldError("Q", "invalid", f"Q: no stabilising solution ({exc})") from None
    k = np.linalg.solve(rm, b.T @ s)
    eig = np.linalg.eigvals(a - b @ k)
    reference = [*x0[0:3], roll, pitch, yaw, *x0[7:13]]
    element = {
        "kind": "controller",
        "body": names[i],
        "type": "linear_system",
        "A": [[0.0]],
        "B": [[0.0] * 12],
        "C": [[float(v)] for v in u0],
        "D": (-k).tolist(),
        "inputs": list(INPUTS),
        "outputs": list(OUTPUTS),
        "reference": [float(v) for v in reference],
        "x0": [1.0],
    }
    return Lqr(names[i], k, eig, a, b, x0, u0, element)


def _in_its_world(scenario: Scenario, q: ArrayLike, r: ArrayLike, body: str | None,
                  design: Any) -> Lqr:  # fmt: skip
    """The LQR of a body with its elements (a barge on its buoyancy and damping): the
    engine's own derivative, elements and all, linearised by central differences
    (analysis/lqr_mechanism.py) with the force and moment at the CG as inputs, about the
    input u₀ that holds the body still (its weight less its buoyancy, say)."""
    names = [b.Name for b in scenario.bodies]
    name = body if body is not None else names[0]
    if name not in names:
        raise FieldError(
            "body", "unknown_body", f"body: no body named {name!r}; bodies are {names}"
        )
    if len(names) > 1:
        raise FieldError(
            "bodies", "invalid", f"bodies: lqr designs for one body with its elements; this "
            f"scenario has {len(names)} (bodies held by joints: give `inputs`)",
        )  # fmt: skip
    if scenario.water is not None and scenario.water.waves:
        raise FieldError(
            "water.waves", "invalid", "water.waves: lqr linearises in still water; design "
            "without the waves, then add the controller to the scenario with them",
        )  # fmt: skip
    k, eig, a, b, u0, element = design(scenario, q, r, name, list(INPUTS), np.eye(6), hold=True)
    x0 = scenario.initial_states()[names.index(name)]
    return Lqr(name, k, eig, a, b, x0, u0, element)
