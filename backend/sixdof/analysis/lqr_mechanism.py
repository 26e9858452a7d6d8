"""`sixdof.lqr` for bodies held by joints (issue 44: the inverted pendulum on a cart): the
whole scenario linearised by the compiled derivative itself, restricted to the motions its
joints allow, and the regulator written as a `linear_system` on one body's signals.

On the 12 coordinates of each body (δp, δθ, δv, δω, as analysis/lqr.py) the derivative's
Jacobian A₁₂ₙ and its input columns B₁₂ₙ are central differences of `kernel.derivative`,
joint forces and all (they hold J ν̇ + bias = 0 at every stage). The motions the joints
allow are the range of the engine's own velocity projection (constraints_compiled: ν ↦ ν −
M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹ J ν), found by taking a step of 1e-9 s from each unit velocity: an
orthonormal basis N (6n × d) of it. A position moves along the same directions (ṗ = R v,
θ̇ = ω), so the tangent space of the state's manifold is W = diag(S N, N), S = diag(Rᵢ, 1),
and

    A = W⁺ A₁₂ₙ W,   B = W⁺ B₁₂ₙ G        (2d states; A₁₂ₙ W ⊂ range W is checked)

with G (6 × m) the actuators: a force along each global direction at the body's `point`,
moved to its CG (the moment of its lever R (point − CGOffset) at the operating point). The
controller reads m_s = 2d of the body's signals s = C δx: Q weighs them, Qₓ = (C W)ᵀ Q (C W),
and since C W is square and invertible the gain on the signals is K_s = K (C W)⁻¹, the
element's D = −G K_s from w = s − s₀. The operating point must be at rest (the derivative
zero on W); u₀ = 0. What a constant D leaves out: the lever turns with the body, so a force
meant at a point is applied there only to first order in the body's turn.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import kernel
from ..dynamics.layout import L_F_GLOBAL, L_M_GLOBAL
from ..dynamics.quaternion import Array, to_euler, to_rotmat
from ..fields import FieldError
from ..scenario import Scenario
from ..scenario.kinds.controller import CHANNELS, SIGNALS
from .lqr_parts import reduction, weights

EPS = 1e-6  # the central differences' step (m, rad, m/s, rad/s)
TINY_STEP = 1e-9  # s: a step that only projects the velocities onto the joints


def signal(name: str, x: Array) -> float:
    """The body's output `name` (controller.SIGNALS) at its state x (13,)."""
    group, _, axis = name.partition(".")
    k = "xyz".index(axis) if axis in ("x", "y", "z") else 0
    if group == "Pos":
        return float(x[k])
    if group == "Vel":
        return float((to_rotmat(x[3:7] / np.linalg.norm(x[3:7])) @ x[7:10])[k])
    if group == "Quater":
        return float(x[3 + "wxyz".index(axis)])
    if group in ("LocalVel", "AngVel"):
        return float(x[(7 if group == "LocalVel" else 10) + k])
    return float(to_euler(x[3:7] / np.linalg.norm(x[3:7]))[("Roll", "Pitch", "Yaw").index(name)])


def _allowed(pk: kernel.PackedBodies, x0: Array, loads: Array) -> Array:
    """An orthonormal basis (6n × d) of the velocities the joints allow: the range of the
    engine's own projection, each unit velocity stepped 1e-9 s (too short to accelerate)."""
    cols = []
    for k in range(x0.size // 13 * 6):
        x = x0.copy()
        x[k // 6, 7 + k % 6] += 1.0
        kernel.advance(pk, x, loads, TINY_STEP, 1, "rk4", 0.0, None)
        cols.append(x[:, 7:13].ravel() - x0[:, 7:13].ravel())
    u, s, _ = np.linalg.svd(np.column_stack(cols))
    return np.asarray(u[:, s > 1e-6])


def _tangent(basis: Array, quats: Array) -> Array:
    """W (12n × 2d): positions move as the velocities do (ṗ = R v, θ̇ = ω), then the
    velocities, in each body's block of 12 coordinates."""
    n, d = len(quats), basis.shape[1]
    w = np.zeros((12 * n, 2 * d))
    for b in range(n):
        v = basis[6 * b : 6 * b + 6]
        w[12 * b : 12 * b + 3, :d] = to_rotmat(quats[b]) @ v[0:3]
        w[12 * b + 3 : 12 * b + 6, :d] = v[3:6]
        w[12 * b + 6 : 12 * b + 12, d:] = v
    return w


def _refuse(field: str, message: str) -> FieldError:
    return FieldError(field, "invalid", f"{field}: {message}")


def forces_at(scenario: Scenario, body: str, point: ArrayLike, directions: ArrayLike) -> Array:
    """G (6 × m): a force along each global direction at the body's point (body axes from
    its reference point), moved to its CG by the lever at the initial state."""
    i = [b.Name for b in scenario.bodies].index(body)
    x0 = scenario.initial_states()[i]
    dirs = np.atleast_2d(np.asarray(directions, dtype=float))
    quat = x0[3:7] / np.linalg.norm(x0[3:7])
    lever = to_rotmat(quat) @ (np.asarray(point, float) - scenario.bodies[i].CGOffset)
    return np.vstack([dirs.T, np.cross(lever, dirs).T])


def design(
    scenario: Scenario,
    q: ArrayLike,
    r: ArrayLike,
    body: str,
    inputs: list[str],
    actuators: Array,
    hold: bool = False,
) -> tuple[Array, np.ndarray, Array, Array, Array, dict[str, object]]:
    """(K_s, closed-loop eigenvalues, A, B, u₀, element) of the regulator (module
    docstring): `actuators` G (6 × m, global force and moment at the body's CG per input);
    `hold`: u₀ is the input that holds the bodies at rest (else they must be at rest)."""
    from scipy.linalg import solve_continuous_are

    names = [b.Name for b in scenario.bodies]
    if body not in names:
        raise FieldError(
            "body", "unknown_body", f"body: no body named {body!r}; bodies are {names}"
        )
    if unknown := [s for s in inputs if s not in SIGNALS]:
        raise _refuse("inputs", f"{unknown} are not signals; they are {list(SIGNALS)}")
    i, n = names.index(body), len(names)
    bodies = scenario.batch()
    system = scenario.system(bodies)
    if system is not None and system.initial.size:
        raise _refuse("elements", "lqr linearises elements without states of their own (no "
                      "controllers, cables or radiation)")  # fmt: skip
    pk = kernel.packed(bodies, system)
    x0 = np.ascontiguousarray(scenario.initial_states())
    quats = x0[:, 3:7] / np.linalg.norm(x0[:, 3:7], axis=1, keepdims=True)
    base = kernel.load_rows(scenario.inputs(), n)
    t = np.zeros((13 * n, 12 * n))
    for b in range(n):
        t[13 * b : 13 * b + 13, 12 * b : 12 * b + 12] = reduction(quats[b])[0]
    p = np.linalg.pinv(t)

    def rate(delta: Array, loads: Array = base) -> Array:
        x = np.ascontiguousarray((x0.ravel() + t @ delta).reshape(n, 13))
        return p @ kernel.derivative(pk, x, loads).ravel()

    def pushed(u: Array) -> Array:
        """The load rows with the actuators' input u on the body."""
        loads = base.copy()
        wrench = g @ u
        loads[i, L_F_GLOBAL : L_F_GLOBAL + 3] += wrench[0:3]
        loads[i, L_M_GLOBAL : L_M_GLOBAL + 3] += wrench[3:6]
        return loads

    g = np.asarray(actuators, dtype=float)  # 6 × m
    m = g.shape[1]
    zero = np.zeros(12 * n)
    w = _tangent(_allowed(pk, x0, base), quats)
    w_inv = np.linalg.pinv(w)
    at_rest = rate(zero)
    # the rates are linear in the loads at a given state: B's columns are exact differences
    bm = np.column_stack([w_inv @ (rate(zero, pushed(e)) - at_rest) for e in np.eye(m)])
    drift = w_inv @ at_rest
    u0: Array = np.zeros(m)
    if hold:  # the input that cancels what the bodies feel at rest (a weight, a buoyancy)
        u0 = np.asarray(np.linalg.lstsq(bm, -drift, rcond=None)[0], dtype=float)
        drift = drift + bm @ u0
    # A about (x₀, u₀): a global force turns with the body's axes, so u₀ enters A
    held = pushed(u0)
    eye = np.eye(12 * n)
    a_full = np.column_stack(
        [(rate(EPS * e, held) - rate(-EPS * e, held)) / (2 * EPS) for e in eye]
    )
    a = w_inv @ a_full @ w
    scale = float(np.abs(a).max()) or 1.0
    if np.abs(drift).max() > 1e-6 * scale:
        raise _refuse(
            "Pos",
            "lqr linearises about a state at rest; the bodies start moving"
            + (" and the body's force and moment cannot hold them" if hold else ""),
        )
    if np.abs(a_full @ w - w @ a).max() > 1e-4 * scale:
        raise _refuse("elements", "the joints' motions are not kept by the linearised "
                      "dynamics (a joint starting open?)")  # fmt: skip
    # what the controller reads, on the tangent space

    def read(s: str, e: Array) -> float:
        return signal(s, x0[i] + (t @ e)[13 * i : 13 * i + 13])

    sig = np.array([[(read(s, EPS * e) - read(s, -EPS * e)) / (2 * EPS) for e in eye]
                    for s in inputs])  # fmt: skip
    c = sig @ w
    d = w.shape[1] // 2
    if c.shape[0] != c.shape[1] or np.linalg.cond(c) > 1e8:
        raise _refuse("inputs", f"the mechanism moves in {d} coordinates; give {2 * d} "
                      f"signals of {body} that tell its {2 * d} states apart")  # fmt: skip
    qm = weights(q, len(inputs), "Q")
    rm = weights(r, m, "R")
    try:
        sol = solve_continuous_are(a, bm, c.T @ qm @ c, rm)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise _refuse("Q", f"no stabilising solution ({exc})") from None
    k_y = np.linalg.solve(rm, bm.T @ sol)
    k_s = k_y @ np.linalg.inv(c)
    rows = [j for j in range(6) if np.abs(g[j]).max() > 0.0]
    constant = g @ u0  # a constant state (A = 0, x₀ = 1) carries u₀ through C
    element: dict[str, object] = {
        "kind": "controller",
        "body": body,
        "type": "linear_system",
        "A": [[0.0]],
        "B": [[0.0] * len(inputs)],
        "C": [[float(constant[j])] for j in rows],
        "D": (-(g @ k_s)[rows]).tolist(),
        "inputs": list(inputs),
        "outputs": [CHANNELS[j] for j in rows],
        "reference": [signal(s, x0[i]) for s in inputs],
        "x0": [1.0 if hold else 0.0],
    }
    return k_s, np.linalg.eigvals(a - bm @ k_y), a, bm, u0, element
