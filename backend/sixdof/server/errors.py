"""Turning bad client input into `error` replies that name the field and the allowed range.

`parse_client_message` is the websocket's front door: text in, a validated message or a
`Refusal` out. It never raises on bad input.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from .protocol import CLIENT_MESSAGES, RANGES, ErrorCode

#: pydantic error types that are a number outside its range (everything else is "invalid").
_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
#: Shown first when a message has several faults: a wrong shape explains the rest.
_SHAPE_ERRORS = {
    "missing",
    "extra_forbidden",
    "too_short",
    "too_long",
    "list_type",
    "tuple_type",
    "model_type",
    "model_attributes_type",
}


@dataclass(frozen=True)
class Refusal(Exception):
    """A refused client message: the payload of an `error` reply."""

    code: ErrorCode
    message: str
    field: str | None = None
    id: str | int | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "type": "error",
            "id": self.id,
            "code": self.code,
            "message": self.message,
            "field": self.field,
        }


def _fmt(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _dotted(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe(
    exc: ValidationError, prefix: str = "", what: str = "message"
) -> tuple[ErrorCode, str, str | None]:
    """(code, message, field) for the most telling error of `exc`.

    `field` is the top-level name (prefixed, e.g. "scenario.bodies"), the message names the
    exact element (e.g. "InertiaRadi[1]") and, for numbers, the allowed range with its unit.
    """
    errors = exc.errors(include_url=False)
    errors.sort(key=lambda e: (e["type"] not in _SHAPE_ERRORS, e["type"] in _RANGE_ERRORS))
    err = errors[0]
    loc = ((prefix,) if prefix else ()) + tuple(err["loc"])
    # pydantic puts a validator's own complaint at the model's place: name no field then.
    while loc and isinstance(loc[-1], int):
        loc = loc[:-1]
    head = _dotted(loc) or None
    where = _dotted(((prefix,) if prefix else ()) + tuple(err["loc"])) or what
    names = [p for p in loc if isinstance(p, str)]
    kind, got = err["type"], err.get("input")
    if kind in _RANGE_ERRORS:
        key = names[0] if len(names) == 1 else ""
        if key in RANGES:
            lo, hi, unit = RANGES[key]
            span = f"in [{_fmt(lo)}, {_fmt(hi)}]" + (f" {unit}" if unit else "")
        else:
            span = err["msg"].removeprefix("Input should be ")
        return "out_of_range", f"{where}: must be {span}, got {_fmt(got)}", head
    if kind == "finite_number":
        return "invalid", f"{where}: must be a finite number, got {got!r}", head
    if kind in ("too_short", "too_long"):
        width = err["ctx"].get("max_length") or err["ctx"].get("min_length")
        n = len(got) if isinstance(got, list | tuple) else "?"
        return "invalid", f"{where}: must be a list of {width} numbers, got {n}", head
    if kind == "missing" and isinstance(err["loc"][-1], int):
        return "invalid", f"{head}: too few numbers ({where} is missing)", head
    if kind == "missing":
        return "invalid", f"{where}: required", head
    if kind == "extra_forbidden":
        return "invalid", f"{where}: unknown field", head
    if kind == "float_type" or kind == "int_type":
        want = "an integer" if kind == "int_type" else "a number"
        return "invalid", f"{where}: must be {want}, got {json.dumps(got)}", head
    msg = err["msg"].removeprefix("Value error, ").replace("Input should be", "must be")
    code: ErrorCode = "unstable_step" if "stability limit" in msg else "invalid"
    return code, f"{where}: {msg}", head


def _message_id(obj: dict[str, Any]) -> str | int | None:
    mid = obj.get("id")
    if isinstance(mid, bool) or not isinstance(mid, str | int):
        return None
    return mid if not isinstance(mid, str) or len(mid) <= 64 else None


def _reject_constant(name: str) -> float:
    # json.loads maps NaN/Infinity to floats; keep them so the schema check names the field.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def parse_client_message(text: str) -> BaseModel:
    """Validate one client text frame; raise `Refusal` with code, message, field and id."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise Refusal("invalid", "a message must be a JSON object with a 'type'", "type")
    mid = _message_id(obj)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise Refusal(
            "invalid", "'type' is required: one of " + ", ".join(CLIENT_MESSAGES), "type", mid
        )
    model = CLIENT_MESSAGES.get(kind)
    if model is None:
        allowed = ", ".join(CLIENT_MESSAGES)
        raise Refusal(
            "unknown_type",
            f"type: unknown message type {kind[:64]!r}; allowed: {allowed}",
            "type",
            mid,
        )
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        code, message, field = describe(exc, what=kind)
        raise Refusal(code, message, field, mid) from None
