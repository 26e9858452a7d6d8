"""The one table of limits and the one error for a refused field, below every layer.

Every value a user can give (a scenario file, the REST API, a websocket message, the
notebook, the Python API) is checked against `LIMITS` and refused with a `FieldError`
whose message has one shape everywhere:

    "Mass: must be in [1e-06, 1e+06] kg, got -1"

so the same bad value gets the same answer (code, field and range text) whichever door it
came through. The pydantic models of the scenario and of the protocol build their bounds
from this table, the live checks call `check_number`/`check_vector`, and the page gets the
ranges in `hello`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

ErrorCode = Literal[
    "invalid", "out_of_range", "unstable_step", "unknown_body", "diverged", "preparing"
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


class FieldError(ValueError):
    """A value refused; nothing was changed.

    `field` is the name at the edge (FhSim's `Mass`, `InertiaRadi`, …, or `integrator`,
    `step`, `time_scale`, `body`, `state.Pos`), `code` one of ERROR_CODES (the server sends
    it as the error message's `code`), `message` a sentence that starts with the field and,
    for a range error, names the allowed range with its unit.
    """

    def __init__(self, field: str, code: ErrorCode, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}; codes are {list(ERROR_CODES)}")
        super().__init__(message)
        self.field = field
        self.code: ErrorCode = code
        self.message = message

    def __repr__(self) -> str:
        return f"FieldError({self.field!r}, {self.code!r}, {self.message!r})"


@dataclass(frozen=True)
class Limit:
    """Allowed values of one numeric field: [lo, hi] (lo excluded when `lo_open`), a unit.

    Vectors apply the bounds to every component.
    """

    lo: float
    hi: float
    unit: str = ""
    lo_open: bool = False

    def admits(self, x: float) -> bool:
        above = x > self.lo if self.lo_open else x >= self.lo
        return above and x <= self.hi

    def text(self) -> str:
        """'in [1e-06, 1e+06] kg', the range as every error message states it."""
        left = "(" if self.lo_open else "["
        span = f"in {left}{_fmt(self.lo)}, {_fmt(self.hi)}]"
        return f"{span} {self.unit}" if self.unit else span

    def pair(self) -> list[float]:
        return [float(self.lo), float(self.hi)]


#: Largest position, speed and spin a state may have: beyond them the live simulation calls
#: a state diverged, and a reset or a scenario may not start there (Euclidean norms).
MAX_POS = 1e6  # m
MAX_LOCAL_VEL = 1e5  # m/s
MAX_ANG_VEL = 1e4  # rad/s
#: |Quater| outside this range is a diverged state (the norm term keeps it within ~1e-9 of 1).
QUATER_NORM_RANGE = (0.5, 2.0)

STEP_MIN = 1e-5  # s: below this a real-time run needs more than 1e5 steps per second

#: Every numeric field a user can set, by its name at the edge.
LIMITS: dict[str, Limit] = {
    "Mass": Limit(1e-6, 1e6, "kg"),
    "InertiaRadi": Limit(1e-4, 1e3, "m"),
    "Inertia": Limit(-1e12, 1e12, "kg·m²"),  # Mass max × InertiaRadi max²
    "CGOffset": Limit(-1e3, 1e3, "m"),
    "Gravity": Limit(-100.0, 100.0, "m/s²"),
    "Force": Limit(-1e7, 1e7, "N"),
    "Moment": Limit(-1e7, 1e7, "N·m"),
    "point": Limit(-1e3, 1e3, "m"),
    "target": Limit(-MAX_POS, MAX_POS, "m"),  # a spring's world target, NED
    "stiffness": Limit(0.0, 1e9, "N/m"),
    "damping": Limit(0.0, 1e9, "N·s/m"),
    "max_force": Limit(0.0, 1e7, "N", lo_open=True),
    # Elements (pivot, spring, damper, ground, load): DESIGN.md section 8.
    "rest_length": Limit(0.0, 1e3, "m"),
    "linear": Limit(0.0, 1e9, "N·s/m or N·m·s"),
    "quadratic": Limit(0.0, 1e9, "N·s²/m² or N·m·s²"),
    "height": Limit(-MAX_POS, MAX_POS, "m"),
    "restitution": Limit(0.0, 1.0, ""),
    "joint_stiffness": Limit(0.0, 1e9, "N·m/rad or N/m"),
    "joint_damping": Limit(0.0, 1e9, "N·m·s/rad or N·s/m"),
    "joint_position": Limit(-1e3, 1e3, "rad or m"),
    "friction": Limit(0.0, 2.0, ""),
    "ground_stiffness": Limit(0.0, 1e12, "N/m", lo_open=True),
    "start": Limit(0.0, 1e6, "s"),
    "amplitude": Limit(-1e3, 1e3, ""),
    "frequency": Limit(0.0, 1e3, "Hz"),
    "phase": Limit(-1e3, 1e3, "rad"),
    "table": Limit(-1e7, 1e7, ""),
    # Controllers (DESIGN.md section 9): gains per axis, in N/m, N/(m·s), N·s/m (moments:
    # per rad); a limit per axis (N, N·m); a linear system's matrices and offsets.
    "kp": Limit(0.0, 1e9, "N/m or N·m/rad"),
    "ki": Limit(0.0, 1e9, "N/(m·s) or N·m/(rad·s)"),
    "kd": Limit(0.0, 1e9, "N·s/m or N·m·s/rad"),
    "limit": Limit(0.0, 1e9, "N or N·m", lo_open=True),
    "matrix": Limit(-1e12, 1e12, ""),
    "reference": Limit(-1e7, 1e7, ""),
    # Cables (DESIGN.md section 8): a lumped-mass line and its winches.
    "cable_length": Limit(0.0, 1e5, "m", lo_open=True),
    "segments": Limit(1, 500, "segments"),
    "mass_per_length": Limit(0.0, 1e5, "kg/m", lo_open=True),
    "axial_stiffness": Limit(0.0, 1e12, "N", lo_open=True),
    "e_modulus": Limit(0.0, 1e13, "Pa", lo_open=True),
    "diameter": Limit(0.0, 10.0, "m", lo_open=True),
    "drag_coefficient": Limit(0.0, 10.0, ""),
    "pay_out_speed": Limit(-100.0, 100.0, "m/s"),  # at the body point
    "pay_out_speed_b": Limit(-100.0, 100.0, "m/s"),  # at the other end
    "axial_damping": Limit(0.0, 1e12, "N·s"),
    # Water and floating bodies (buoyancy, added mass): DESIGN.md section 8.
    "density": Limit(1.0, 2e4, "kg/m³"),
    "level": Limit(-MAX_POS, MAX_POS, "m"),
    "current": Limit(-100.0, 100.0, "m/s"),
    "wave_amplitude": Limit(0.0, 100.0, "m"),
    "period": Limit(0.1, 1e3, "s"),
    "direction": Limit(-360.0, 360.0, "degrees"),
    "depth": Limit(0.0, 1e5, "m", lo_open=True),
    "added_mass": Limit(-1e9, 1e9, "kg, kg·m or kg·m²"),
    "MeshScale": Limit(0.0, 1e6, "", lo_open=True),
    "Density": Limit(1e-6, 1e6, "kg/m³ (solid) or kg/m² (shell)"),
    "Size": Limit(0.0, 1e6, "m", lo_open=True),
    "MeshOrigin": Limit(-1e6, 1e6, "m"),
    "Pos": Limit(-MAX_POS, MAX_POS, "m"),
    "Quater": Limit(-QUATER_NORM_RANGE[1], QUATER_NORM_RANGE[1], ""),
    "LocalVel": Limit(-MAX_LOCAL_VEL, MAX_LOCAL_VEL, "m/s"),
    "AngVel": Limit(-MAX_ANG_VEL, MAX_ANG_VEL, "rad/s"),
    "step": Limit(STEP_MIN, 1.0, "s"),
    "time_scale": Limit(0.01, 100.0, ""),
    "n": Limit(1, 10_000, "steps"),
    # Settings of a live simulation (server options, LiveSimulation arguments).
    "frame_rate": Limit(1.0, 1000.0, "Hz"),
    "history_seconds": Limit(0.1, 3600.0, "s"),
    "max_catch_up": Limit(1e-3, 10.0, "s"),
    "max_compute": Limit(1e-3, 10.0, "s"),
}

#: Vector fields whose magnitude is bounded too (the divergence test's norms).
NORM_LIMITS: dict[str, float] = {"Pos": MAX_POS, "LocalVel": MAX_LOCAL_VEL, "AngVel": MAX_ANG_VEL}


def _fmt(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def out_of_range(field: str, limit: Limit, got: Any, *, each: bool = False) -> FieldError:
    what = "each component must be" if each else "must be"
    shown = [_fmt(c) for c in got] if isinstance(got, (list, tuple)) else _fmt(got)
    return FieldError(field, "out_of_range", f"{field}: {what} {limit.text()}, got {shown}")


def number(value: Any, field: str) -> float:
    """A finite real number; bools and strings are refused (they are schema errors)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise FieldError(field, "invalid", f"{field}: expected a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise FieldError(field, "invalid", f"{field}: must be a finite number, got {value!r}")
    return x


def check_number(value: Any, field: str, limit: Limit | None = None) -> float:
    """`value` as a float if it is a finite number within the field's limit."""
    limit = LIMITS[field] if limit is None else limit
    x = number(value, field)
    if not limit.admits(x):
        raise out_of_range(field, limit, x)
    return x


def vector(value: Any, width: int, field: str) -> tuple[float, ...]:
    """`width` finite numbers from a list, tuple or 1-D array."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise FieldError(field, "invalid", f"{field}: expected {width} numbers, got {value!r}")
    items = list(value.ravel()) if hasattr(value, "ravel") else list(value)
    if len(items) != width:
        raise FieldError(field, "invalid", f"{field}: expected {width} numbers, got {len(items)}")
    return tuple(number(v, field) for v in items)


def check_vector(
    value: Any, width: int, field: str, limit: Limit | None = None
) -> tuple[float, ...]:
    """`width` finite numbers, each within the field's limit (and its norm, if it has one)."""
    limit = LIMITS[field] if limit is None else limit
    v = vector(value, width, field)
    if any(not limit.admits(c) for c in v):
        raise out_of_range(field, limit, list(v), each=True)
    cap = NORM_LIMITS.get(field)
    if cap is not None:
        norm = math.sqrt(sum(c * c for c in v))
        if norm > cap:
            raise FieldError(
                field,
                "out_of_range",
                f"{field}: the magnitude must be at most {_fmt(cap)} {limit.unit}, "
                f"got {_fmt(norm)}",
            )
    return v


#: A room's name (the page's ?room=…, the websocket, REST, the notebook's live()). Matched
#: whole (`fullmatch`): `$` also matches before a final line break, and "a\n" would pass.
ROOM_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
ROOM_RULE = "1 to 64 characters from A-Z a-z 0-9 _ -"


def check_room(name: str) -> str:
    """`name` if it is a valid room name, else FieldError naming the rule."""
    if not isinstance(name, str) or not ROOM_NAME.fullmatch(name):
        raise FieldError("room", "invalid", f"room: must be {ROOM_RULE}, got {str(name)[:80]!r}")
    return name


def choice(value: Any, field: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise FieldError(
            field, "invalid", f"{field}: must be one of {list(allowed)}, got {value!r}"
        )
    return value
