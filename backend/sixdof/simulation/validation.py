"""Checks of everything a user can send: numbers, vectors, parameter sets, states, inputs.

Every check raises SimulationError naming the field, the allowed range and
what it got, and returns clean Python values. Parameter sets are checked as a
whole and turned into a new BodySpec (the scenario's pydantic model) and a new
BodyParams before anything is swapped in, so a refused request changes nothing.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import ValidationError

from ..dynamics import BodyParams, ParameterError, StepSizeError, check_step
from ..dynamics.integrators import Method
from ..dynamics.quaternion import Array
from ..scenario import LIMITS, BodySpec
from .errors import SimulationError
from .inputs import CHANNELS, FRAMES
from .limits import (
    LIVE_INTEGRATORS,
    MAX_ANG_VEL,
    MAX_INERTIA_ENTRY,
    MAX_LOCAL_VEL,
    MAX_POS,
    MAX_VISUAL,
    STEP_MIN,
    step_range,
)

BODY_FIELDS = ("Mass", "InertiaRadi", "Inertia", "CGOffset", "Gravity", "model")
VISUAL_FIELDS = ("Mesh", "Material", "MeshScale", "Size", "MeshOrigin")
SIMULATION_FIELDS = ("integrator", "step")
PARAM_FIELDS = BODY_FIELDS + VISUAL_FIELDS + SIMULATION_FIELDS
STATE_FIELDS = ("Pos", "Quater", "LocalVel", "AngVel")

_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _fmt(x: float) -> str:
    return f"{x:g}"


def number(value: Any, field: str) -> float:
    """A finite real number (bools and strings are refused: they are schema errors)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SimulationError(field, "invalid", f"{field}: expected a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise SimulationError(field, "invalid", f"{field}: must be a finite number, got {value!r}")
    return x


def number_in(value: Any, field: str, lo: float, hi: float, unit: str) -> float:
    x = number(value, field)
    if not lo <= x <= hi:
        raise SimulationError(
            field,
            "out_of_range",
            f"{field}: must be in [{_fmt(lo)}, {_fmt(hi)}] {unit}, got {_fmt(x)}",
        )
    return x


def vector(value: Any, width: int, field: str) -> tuple[float, ...]:
    """`width` finite numbers from a list, tuple or 1-D array."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise SimulationError(field, "invalid", f"{field}: expected {width} numbers, got {value!r}")
    items = list(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else list(value)
    if len(items) != width:
        raise SimulationError(
            field, "invalid", f"{field}: expected {width} numbers, got {len(items)}"
        )
    return tuple(number(v, field) for v in items)


def vector_in(
    value: Any, width: int, field: str, lo: float, hi: float, unit: str
) -> tuple[float, ...]:
    """`width` finite numbers, each in [lo, hi]."""
    v = vector(value, width, field)
    if any(not lo <= c <= hi for c in v):
        raise SimulationError(
            field,
            "out_of_range",
            f"{field}: each component must be in [{_fmt(lo)}, {_fmt(hi)}] {unit}, "
            f"got {[_fmt(c) for c in v]}",
        )
    return v


def vector_norm_at_most(value: Any, width: int, field: str, limit: float, unit: str) -> Array:
    v = np.array(vector(value, width, field))
    norm = float(np.linalg.norm(v))
    if norm > limit:
        raise SimulationError(
            field,
            "out_of_range",
            f"{field}: the magnitude must be at most {_fmt(limit)} {unit}, got {_fmt(norm)}",
        )
    return v


def choice(value: Any, field: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise SimulationError(
            field, "invalid", f"{field}: must be one of {list(allowed)}, got {value!r}"
        )
    return value


def text(value: Any, field: str, max_len: int = 128) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= max_len:
        raise SimulationError(
            field,
            "invalid",
            f"{field}: expected a name of 1 to {max_len} characters, got {value!r}",
        )
    return value


def from_pydantic(exc: ValidationError, prefix: str = "") -> SimulationError:
    """The first error of a pydantic ValidationError as a SimulationError naming its field."""
    err = exc.errors()[0]
    field = prefix + ".".join(str(p) for p in err["loc"]) if err["loc"] else (prefix or "scenario")
    field = field.rstrip(".")
    code = "out_of_range" if err["type"] in _RANGE_ERRORS else "invalid"
    msg = str(err["msg"]).removeprefix("Value error, ")
    return SimulationError(field, code, f"{field}: {msg}")  # type: ignore[arg-type]


def _check_body_field(name: str, value: Any) -> Any:
    """One body or visual field checked on its own; the combination is checked afterwards."""
    if name == "Mass":
        return number_in(value, name, *LIMITS["Mass"], "kg")
    if name == "InertiaRadi":
        return vector_in(value, 3, name, *LIMITS["InertiaRadi"], "m")
    if name == "Inertia":
        if value is None:
            return None
        return vector_in(value, 6, name, -MAX_INERTIA_ENTRY, MAX_INERTIA_ENTRY, "kg·m²")
    if name == "CGOffset":
        return vector_in(value, 3, name, -LIMITS["CGOffset"][1], LIMITS["CGOffset"][1], "m")
    if name == "Gravity":
        return number_in(value, name, *LIMITS["Gravity"], "m/s²")
    if name == "model":
        return choice(value, name, ("full", "fhsim"))
    if name in ("Mesh", "Material"):
        return text(value, name)
    if name in ("MeshScale", "Size"):
        v = vector(value, 3, name)
        if any(not 0.0 < c <= MAX_VISUAL for c in v):
            raise SimulationError(
                name,
                "out_of_range",
                f"{name}: each component must be in (0, {_fmt(MAX_VISUAL)}], "
                f"got {[_fmt(c) for c in v]}",
            )
        return v
    if name == "MeshOrigin":
        return vector_in(value, 3, name, -MAX_VISUAL, MAX_VISUAL, "m")
    raise AssertionError(name)  # pragma: no cover - callers pass known names


def check_param_names(fields: Mapping[str, Any]) -> None:
    unknown = [k for k in fields if k not in PARAM_FIELDS]
    if unknown:
        raise SimulationError(
            unknown[0],
            "invalid",
            f"{unknown[0]}: not a parameter; settable are {list(PARAM_FIELDS)}",
        )


def body_update(
    spec: BodySpec, fields: Mapping[str, Any]
) -> tuple[BodySpec, BodyParams, list[str]]:
    """The body with `fields` changed, as a validated BodySpec and BodyParams, and any warnings.

    InertiaRadi given without Inertia clears a full Inertia tensor (which would
    otherwise override the radii and make the change invisible).
    """
    changes = {
        k: _check_body_field(k, v) for k, v in fields.items() if k in BODY_FIELDS + VISUAL_FIELDS
    }
    if "InertiaRadi" in changes and "Inertia" not in changes:
        changes["Inertia"] = None
    data = spec.model_dump()
    data.update(changes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kw = {"r_cg_body": data["CGOffset"], "gravity": data["Gravity"], "model": data["model"]}
            if data["Inertia"] is not None:
                params = BodyParams.from_inertia(data["Mass"], data["Inertia"], **kw)
            else:
                params = BodyParams.from_radii(data["Mass"], data["InertiaRadi"], **kw)
        except ParameterError as exc:
            raise SimulationError(exc.field, "out_of_range", str(exc)) from None
        try:
            new_spec = BodySpec.model_validate(data)
        except ValidationError as exc:
            raise from_pydantic(exc) from None
    notes = sorted({str(w.message) for w in caught})
    return new_spec, params, notes


def integration_update(
    method: Method, step: float, fields: Mapping[str, Any]
) -> tuple[Method, float]:
    """The live integrator and step after `fields` (integrator, step) are applied."""
    new_method: Method = method
    if "integrator" in fields:
        new_method = choice(fields["integrator"], "integrator", LIVE_INTEGRATORS)  # type: ignore[assignment]
    new_step = number(fields["step"], "step") if "step" in fields else step
    return new_method, live_step(new_method, new_step)


def live_step(method: Method, step: float) -> float:
    """`step` if the live integrator can take it in real time and stably; else SimulationError."""
    lo, hi = step_range(method)
    if step < STEP_MIN:
        raise SimulationError(
            "step",
            "out_of_range",
            f"step: must be in [{_fmt(lo)}, {hi:.4g}) s for {method}, got {_fmt(step)}",
        )
    try:
        return check_step(method, step, "step")
    except StepSizeError as exc:
        raise SimulationError("step", "unstable_step", str(exc)) from None


def state_update(base: Array, state: Mapping[str, Any]) -> Array:
    """A body state (13,) from `base` with some of Pos, Quater, LocalVel, AngVel replaced.

    Limits are those of the divergence test (limits.py): a reset may not start
    a body in a state the simulation would call diverged. Quater is normalised.
    """
    if not isinstance(state, Mapping):
        raise SimulationError(
            "state", "invalid", f"state: expected an object with {list(STATE_FIELDS)}"
        )
    unknown = [k for k in state if k not in STATE_FIELDS]
    if unknown:
        raise SimulationError(
            unknown[0],
            "invalid",
            f"{unknown[0]}: not part of the state; it has {list(STATE_FIELDS)}",
        )
    x = np.array(base, dtype=float)
    if "Pos" in state:
        x[0:3] = vector_norm_at_most(state["Pos"], 3, "Pos", MAX_POS, "m")
    if "Quater" in state:
        q = np.array(vector(state["Quater"], 4, "Quater"))
        norm = float(np.linalg.norm(q))
        if norm < 1e-9:
            raise SimulationError(
                "Quater",
                "out_of_range",
                "Quater: must not be zero (|Quater| ≥ 1e-9); it is normalised",
            )
        x[3:7] = q / norm
    if "LocalVel" in state:
        x[7:10] = vector_norm_at_most(state["LocalVel"], 3, "LocalVel", MAX_LOCAL_VEL, "m/s")
    if "AngVel" in state:
        x[10:13] = vector_norm_at_most(state["AngVel"], 3, "AngVel", MAX_ANG_VEL, "rad/s")
    return x


def input_update(
    force: Any, moment: Any, frame: Any, point: Any, channel: Any
) -> tuple[Array, Array, str, Array | None, str]:
    """Checked (force, moment, frame, point, channel) of set_input; None force/moment mean zero."""
    channel = choice(channel, "channel", CHANNELS)
    frame = choice(frame, "frame", FRAMES)
    fmax = LIMITS["Force"][1]
    mmax = LIMITS["Moment"][1]
    f = np.zeros(3) if force is None else np.array(vector_in(force, 3, "Force", -fmax, fmax, "N"))
    m = (
        np.zeros(3)
        if moment is None
        else np.array(vector_in(moment, 3, "Moment", -mmax, mmax, "N·m"))
    )
    p = None
    if point is not None:
        pmax = LIMITS["CGOffset"][1]
        p = np.array(vector_in(point, 3, "point", -pmax, pmax, "m"))
    return f, m, frame, p, channel
