"""The live simulation's own limits, and the divergence test that enforces the state's.

Every numeric field's range is in `sixdof.fields.LIMITS` (the one table). The live loop
adds:

- live integrators `euler` and `rk4`, with a fixed step h in [1e-5 s, h_max) where h_max
  is the method's stability limit (`dynamics.stability_limit`: 2τ = 0.02 s for Euler,
  2.785τ ≈ 0.02785 s for RK4, τ = 0.01 s, both computed from their tableaus);
- a state is *diverged* when it is not finite or beyond |Pos| > 1e6 m,
  |LocalVel| > 1e5 m/s, |AngVel| > 1e4 rad/s (Euclidean norms), or when |Quater| has
  left [0.5, 2] (the quaternion-norm term keeps |q| within about 1e-9 of one; far from
  it the step is too large for the spin rate).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ..dynamics import stability_limit
from ..dynamics.names import MODELS, Method
from ..dynamics.quaternion import Array
from ..fields import LIMITS, MAX_ANG_VEL, MAX_LOCAL_VEL, MAX_POS, QUATER_NORM_RANGE, STEP_MIN
from ..scenario.kinds import KIND_TABLE

LIVE_INTEGRATORS: tuple[Method, ...] = ("euler", "rk4", "geometric", "exact")
#: The largest live step of the methods without a stability limit (geometric, exact): the
#: page's slider needs an end, and beyond it a frame of 60 Hz holds no step at all.
LIVE_STEP_MAX = 0.05  # s
DEFAULT_INTEGRATOR: Method = "rk4"
DEFAULT_STEP = 1e-3  # s
MAX_STEPS_PER_CALL = 1_000_000  # sim.step(n)


_BLOCK_STARTS = np.array([0, 3, 7, 10])
_UPPER_SQ = np.array([MAX_POS**2, QUATER_NORM_RANGE[1] ** 2, MAX_LOCAL_VEL**2, MAX_ANG_VEL**2])
_LOWER_SQ = np.array([0.0, QUATER_NORM_RANGE[0] ** 2, 0.0, 0.0])


def step_range(method: Method) -> tuple[float, float]:
    """(smallest, largest) fixed step of a live integrator, s; the largest is exclusive when
    it is the method's stability limit (`step_high_open`)."""
    return STEP_MIN, min(stability_limit(method), LIVE_STEP_MAX)


def step_high_open(method: Method) -> bool:
    """Whether the largest live step is refused itself: the stability limit (h < h_max) is,
    LIVE_STEP_MAX of the methods without one is not."""
    return stability_limit(method) <= LIVE_STEP_MAX


def live_limits() -> dict[str, object]:
    """The `limits` object of the protocol's hello message, as plain Python values.

    `exclusive` names every pair with an end the server refuses itself (a Limit's `lo_open`,
    a stability limit), by its path: `{"water.depth": [True, False], ...}`.
    """
    exclusive: dict[str, list[bool]] = {}

    def pair(path: str, name: str) -> list[float]:
        limit = LIMITS[name]
        if limit.lo_open:
            exclusive[path] = [True, False]
        return limit.pair()

    out: dict[str, object] = {
        name: pair(name, name)
        for name in ("Mass", "InertiaRadi", "CGOffset", "Gravity", "Force", "Moment", "time_scale")
    }
    out["step"] = {m: list(step_range(m)) for m in LIVE_INTEGRATORS}
    exclusive.update({f"step.{m}": [False, True] for m in LIVE_INTEGRATORS if step_high_open(m)})
    out["integrators"] = list(LIVE_INTEGRATORS)
    out["models"] = list(MODELS)
    out["elements"] = {
        name: pair(f"elements.{name}", ELEMENT_LIMITS.get(name, name)) for name in ELEMENT_FIELDS
    }
    out["water"] = {f: pair(f"water.{f}", name) for f, name in WATER_FIELDS.items()}
    out["exclusive"] = exclusive
    return out


#: The element fields the page tunes (each kind's panel rows, `sixdof.scenario.kinds`), whose
#: ranges `hello.limits.elements` carries; the points on a body (`point`, a spring's `to`)
#: are checked by the server alone.
ELEMENT_FIELDS = tuple(
    dict.fromkeys(
        field
        for kind in KIND_TABLE
        for field in (*kind.panel.numbers, *(name for name, _ in kind.panel.vectors))
        if field not in ("point", "to")
    )
)

#: The LIMITS entry of a tuned element field not named as its field is (a joint's).
ELEMENT_LIMITS = {"rest": "joint_position", "limits": "joint_position"}

#: The water fields the page tunes (their names in set_water, a wave's among them) and the
#: entry of LIMITS each is checked against; `hello.limits.water` carries their ranges.
WATER_FIELDS = {"density": "density", "level": "level", "current": "current",
                "depth": "depth", "amplitude": "wave_amplitude", "period": "period",
                "direction": "direction"}  # fmt: skip


def divergence_reason(x: Array, names: Sequence[str]) -> str | None:
    """Why the batch of states x (N, 13) is diverged, or None when every body is fine.

    The fast path (all fine) costs a few vector reductions; the message is built
    only when something is wrong, naming the first offending body and quantity.
    """
    # Fast path: squared norms of Pos, Quater, LocalVel, AngVel in one reduction; NaN
    # fails every comparison, so a non-finite state takes the slow path below.
    squares = np.add.reduceat(x * x, _BLOCK_STARTS, axis=1)  # (N, 4)
    if np.all((squares <= _UPPER_SQ) & (squares >= _LOWER_SQ)):
        return None
    finite: NDArray[np.bool_] = np.asarray(np.isfinite(x).all(axis=1))
    pos = np.sqrt(np.einsum("ni,ni->n", x[:, 0:3], x[:, 0:3]))
    quat = np.sqrt(np.einsum("ni,ni->n", x[:, 3:7], x[:, 3:7]))
    vel = np.sqrt(np.einsum("ni,ni->n", x[:, 7:10], x[:, 7:10]))
    ang = np.sqrt(np.einsum("ni,ni->n", x[:, 10:13], x[:, 10:13]))
    with np.errstate(invalid="ignore"):
        bad: NDArray[np.bool_] = np.asarray(
            ~finite
            | (pos > MAX_POS)
            | (vel > MAX_LOCAL_VEL)
            | (ang > MAX_ANG_VEL)
            | (quat < QUATER_NORM_RANGE[0])
            | (quat > QUATER_NORM_RANGE[1])
        )
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    who = f"body {names[i]!r}"
    if not finite[i]:
        return f"diverged: the state of {who} is not finite"
    if pos[i] > MAX_POS:
        return f"diverged: {who} |Pos| = {pos[i]:.4g} m > {MAX_POS:.4g} m"
    if vel[i] > MAX_LOCAL_VEL:
        return f"diverged: {who} |LocalVel| = {vel[i]:.4g} m/s > {MAX_LOCAL_VEL:.4g} m/s"
    if ang[i] > MAX_ANG_VEL:
        return f"diverged: {who} |AngVel| = {ang[i]:.4g} rad/s > {MAX_ANG_VEL:.4g} rad/s"
    lo, hi = QUATER_NORM_RANGE
    return (
        f"diverged: {who} |Quater| = {quat[i]:.4g}, outside [{lo:g}, {hi:g}]: "
        "the step is too large for this spin rate"
    )
