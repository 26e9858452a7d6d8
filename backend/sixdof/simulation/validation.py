"""Checks of everything a user can send live: parameter sets, states, inputs.

Every check raises FieldError naming the field, the allowed range (from the one table,
`sixdof.fields.LIMITS`) and what it got, and returns clean Python values. Each field is
checked here once: changes.py builds the next world from the clean values and checks
only what no single field shows (an inertia no body can have), so a refused request
changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..dynamics import check_step
from ..dynamics.inputs import CHANNELS, FRAMES
from ..dynamics.names import Method
from ..dynamics.quaternion import Array
from ..fields import LIMITS, STEP_MIN, FieldError, check_number, check_vector, choice, number
from ..scenario.model import checked_quaternion
from .limits import LIVE_INTEGRATORS, MAX_STEPS_PER_CALL, step_high_open, step_range

BODY_FIELDS = ("Mass", "InertiaRadi", "Inertia", "CGOffset", "Gravity", "model", "InertiaFrom",
               "Density")  # fmt: skip
VISUAL_FIELDS = ("Mesh", "Material", "MeshScale", "Size", "MeshOrigin", "MeshUnits")
#: Fields the shape (and so, with InertiaFrom solid or shell, the mass properties) follows.
SHAPE_FIELDS = ("Mesh", "MeshScale", "Size", "MeshUnits", "MeshOrigin", "InertiaFrom", "Density")
#: Fields that follow the shape when InertiaFrom is solid or shell: not set by hand then.
FROM_SHAPE = ("InertiaRadi", "Inertia", "CGOffset", "MeshOrigin")
SIMULATION_FIELDS = ("integrator", "step")
PARAM_FIELDS = BODY_FIELDS + VISUAL_FIELDS + SIMULATION_FIELDS
STATE_FIELDS = ("Pos", "Quater", "LocalVel", "AngVel")
VECTOR_WIDTHS = {"InertiaRadi": 3, "Inertia": 6, "CGOffset": 3, "MeshScale": 3, "Size": 3,
                 "MeshOrigin": 3}  # fmt: skip


def text(value: Any, field: str, max_len: int = 128) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= max_len:
        raise FieldError(
            field,
            "invalid",
            f"{field}: expected a name of 1 to {max_len} characters, got {value!r}",
        )
    return value


def _check_body_field(name: str, value: Any) -> Any:
    """One body or visual field checked on its own; the combination is checked afterwards."""
    if name in ("Mass", "Gravity"):
        return check_number(value, name)
    if name == "Density":
        return None if value is None else check_number(value, name)
    if name == "InertiaFrom":
        return choice(value, name, ("given", "solid", "shell"))
    if name == "MeshUnits":
        return choice(value, name, ("m", "mm", "in"))
    if name == "Inertia" and value is None:
        return None
    if name in VECTOR_WIDTHS:
        return check_vector(value, VECTOR_WIDTHS[name], name)
    if name == "model":
        return choice(value, name, ("full", "fhsim"))
    if name in ("Mesh", "Material"):
        return text(value, name)
    raise AssertionError(name)  # pragma: no cover - callers pass known names


def _known(given: Mapping[str, Any], names: tuple[str, ...], refusal: str) -> None:
    """FieldError for the first name in `given` that is not one of `names`."""
    unknown = [k for k in given if k not in names]
    if unknown:
        raise FieldError(unknown[0], "invalid", f"{unknown[0]}: {refusal} {list(names)}")


def check_params(
    fields: Mapping[str, Any], method: Method, step: float
) -> tuple[dict[str, Any], tuple[Method, float] | None]:
    """Every field of a set_params checked, once: (the body and visual fields as clean
    values, InertiaRadi without Inertia clearing a full tensor, which would otherwise
    override the radii and hide the change; the live integrator and step after the change,
    None when neither is given). `method`, `step`: the current ones."""
    _known(fields, PARAM_FIELDS, "not a parameter; settable are")
    body = {k: _check_body_field(k, v) for k, v in fields.items() if k not in SIMULATION_FIELDS}
    if "InertiaRadi" in body and "Inertia" not in body:
        body["Inertia"] = None
    if not any(k in fields for k in SIMULATION_FIELDS):
        return body, None
    if "integrator" in fields:
        method = choice(fields["integrator"], "integrator", LIVE_INTEGRATORS)  # type: ignore[assignment]  # one of LIVE_INTEGRATORS
    if "step" in fields:
        step = number(fields["step"], "step")
    return body, (method, live_step(method, step))


def live_step(method: Method, step: float) -> float:
    """`step` if the live integrator can take it in real time and stably; else FieldError."""
    lo, hi = step_range(method)
    if step < STEP_MIN:
        right = ")" if step_high_open(method) else "]"
        raise FieldError(
            "step",
            "out_of_range",
            f"step: must be in [{lo:g}, {hi:.4g}{right} s for {method}, got {step:g}",
        )
    return check_step(method, step, "step")


def state_update(base: Array, state: Mapping[str, Any]) -> Array:
    """A body state (13,) from `base` with some of Pos, Quater, LocalVel, AngVel replaced.

    Limits are those of the divergence test (limits.py): a reset may not start
    a body in a state the simulation would call diverged. Quater is kept as given
    (its norm in [0.5, 2]): the norm term pulls it back to one.
    """
    if not isinstance(state, Mapping):
        raise FieldError("state", "invalid", f"state: expected an object with {list(STATE_FIELDS)}")
    _known(state, STATE_FIELDS, "not part of the state; it has")
    x = np.array(base, dtype=float)
    if "Pos" in state:
        x[0:3] = check_vector(state["Pos"], 3, "Pos")
    if "Quater" in state:
        x[3:7] = checked_quaternion(check_vector(state["Quater"], 4, "Quater"))
    if "LocalVel" in state:
        x[7:10] = check_vector(state["LocalVel"], 3, "LocalVel")
    if "AngVel" in state:
        x[10:13] = check_vector(state["AngVel"], 3, "AngVel")
    return x


def input_update(
    force: Any, moment: Any, frame: Any, point: Any, channel: Any
) -> tuple[Array, Array, str, Array | None, str]:
    """Checked (force, moment, frame, point, channel) of set_input; None force/moment mean zero."""
    channel = choice(channel, "channel", CHANNELS)
    frame = choice(frame, "frame", FRAMES)
    f = np.zeros(3) if force is None else np.array(check_vector(force, 3, "Force"))
    m = np.zeros(3) if moment is None else np.array(check_vector(moment, 3, "Moment"))
    p = None if point is None else np.array(check_vector(point, 3, "point"))
    return f, m, frame, p, channel


def spring_update(spring: Any, channel: str) -> tuple[Array, float, float, float]:
    """Checked (target, stiffness, damping, max_force) of a set_input spring."""
    if channel != "push":
        raise FieldError("spring", "invalid", "spring: only the push channel pulls with a spring")
    if not isinstance(spring, Mapping):
        raise FieldError("spring", "invalid", f"spring: expected an object, got {spring!r}")
    unknown = sorted(set(spring) - {"target", "stiffness", "damping", "max_force"})
    if unknown or "target" not in spring or "stiffness" not in spring:
        raise FieldError(
            "spring",
            "invalid",
            "spring: give target (m, NED), stiffness (N/m) and optionally damping (N·s/m) "
            "and max_force (N)",
        )
    target = np.array(check_vector(spring["target"], 3, "target"))
    k = check_number(spring["stiffness"], "stiffness")
    c = check_number(spring.get("damping", 0.0), "damping")
    cap = check_number(spring.get("max_force", LIMITS["max_force"].hi), "max_force")
    return target, k, c, cap


def steps_count(n: Any) -> int:
    """n of a `step(n)`: a whole number of steps in [1, MAX_STEPS_PER_CALL]."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise FieldError("n", "invalid", f"n: expected a whole number of steps, got {n!r}")
    if not 1 <= n <= MAX_STEPS_PER_CALL:
        raise FieldError(
            "n", "out_of_range", f"n: must be in [1, {MAX_STEPS_PER_CALL}] steps, got {n}"
        )
    return int(n)


def body_index(index: Mapping[str, int], body: str | None) -> int:
    """The index of body `body` (None: the first) among the bodies of `index`."""
    if body is None:
        return 0
    i = index.get(body) if isinstance(body, str) else None
    if i is None:
        raise FieldError(
            "body", "unknown_body", f"body: no body named {body!r}; bodies are {list(index)}"
        )
    return i


def plain(value: Any) -> Any:
    """`value` with numpy arrays and numbers turned into lists and floats (for JSON)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
