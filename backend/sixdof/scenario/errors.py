"""pydantic's validation errors as the one FieldError, worded from the one table of limits.

The scenario loaders (XML, JSON), the live simulation, the REST API and the websocket all
turn a `ValidationError` into words here, so a bad value reads the same through each:
a range error names the allowed range and unit from `sixdof.fields.LIMITS`
("Mass: must be in [1e-06, 1e+06] kg, got -1").
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..fields import LIMITS, ErrorCode, FieldError, Limit
from .kinds import KINDS

#: pydantic error types that are a number outside its range (everything else is "invalid").
RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
#: Shown first when a value has several faults: a wrong shape explains the rest.
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


def _fmt(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def dotted(loc: tuple[int | str, ...]) -> str:
    """('bodies', 0, 'Mass') -> 'bodies[0].Mass'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def leaf_field(loc: tuple[int | str, ...]) -> str | None:
    """The innermost field name of a location: ('bodies', 0, 'InertiaRadi', 1) -> 'InertiaRadi'."""
    names = [p for p in loc if isinstance(p, str)]
    return names[-1] if names else None


def reason(err: ErrorDetails) -> tuple[ErrorCode, str]:
    """(code, what is wrong) of one pydantic error, without the field: 'must be in [1e-06,
    1e+06] kg, got -1'."""
    kind, got = err["type"], err.get("input")
    if kind in RANGE_ERRORS:
        limit = _limit_of(err)
        span = limit.text() if limit is not None else err["msg"].removeprefix("Input should be ")
        return "out_of_range", f"must be {span}, got {_fmt(got)}"
    if kind == "finite_number":
        return "invalid", f"must be a finite number, got {got!r}"
    if kind in ("too_short", "too_long"):
        width = err.get("ctx", {}).get("max_length") or err.get("ctx", {}).get("min_length")
        n = len(got) if isinstance(got, list | tuple) else "?"
        return "invalid", f"must be a list of {width} numbers, got {n}"
    if kind == "missing":
        return "invalid", "required"
    if kind == "extra_forbidden":
        return "invalid", "unknown field"
    if kind in ("float_type", "int_type"):
        want = "an integer" if kind == "int_type" else "a number"
        return "invalid", f"must be {want}, got {_json(got)}"
    msg = err["msg"].removeprefix("Value error, ").replace("Input should be", "must be")
    code: ErrorCode = "unstable_step" if "stability limit" in msg else "invalid"
    if kind == "value_error" and isinstance(err.get("ctx", {}).get("error"), FieldError):
        inner: FieldError = err["ctx"]["error"]
        code = inner.code
        msg = inner.message.removeprefix(f"{inner.field}: ")
    return code, msg


#: Fields checked against an entry of LIMITS under another name.
_LIMIT_NAMES = {"diagonal": "added_mass", "matrix": "added_mass"}


def _limit_of(err: ErrorDetails) -> Limit | None:
    """The entry of LIMITS a range error was checked against: the field's own name, or one
    that ends in it (a wave's `amplitude` is `wave_amplitude`, a timed load's `amplitude`),
    whichever has the bound pydantic reports."""
    leaf = leaf_field(tuple(err["loc"])) or ""
    bounds = set(err.get("ctx", {}).values())
    names = [_LIMIT_NAMES.get(leaf, leaf), *(name for name in LIMITS if name.endswith(f"_{leaf}"))]
    found = [LIMITS[name] for name in names if name in LIMITS]
    return next((lim for lim in found if not bounds or bounds & {lim.lo, lim.hi}), None)


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def first_error(exc: ValidationError) -> ErrorDetails:
    """The most telling error: a wrong shape first, a range error last."""
    errors = exc.errors(include_url=False)
    errors.sort(key=lambda e: (e["type"] not in _SHAPE_ERRORS, e["type"] in RANGE_ERRORS))
    return errors[0]


#: The tags of the scenario's tagged unions (an element's `kind`): pydantic puts the tag in
#: an error's location (elements[0].spring.stiffness), which names no field of the input.
UNION_TAGS = frozenset(KINDS)


def untagged(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """A location without the tags pydantic adds after a list index of a tagged union."""
    return tuple(
        part
        for k, part in enumerate(loc)
        if not (k and isinstance(loc[k - 1], int) and part in UNION_TAGS)
    )


def field_error(exc: ValidationError, prefix: str = "", what: str = "scenario") -> FieldError:
    """The most telling error of `exc` as a FieldError.

    `field` is the path to the value without list indices of numbers (e.g.
    "scenario.bodies[0].Mass", or "InertiaRadi" for one of its components); the message
    names the exact element ("InertiaRadi[1]: must be in [0.0001, 1000] m, got 0").
    """
    err = first_error(exc)
    loc = ((prefix,) if prefix else ()) + untagged(tuple(err["loc"]))
    where = dotted(loc) or what
    # pydantic puts a validator's own complaint at the model's place, and a vector's
    # component at an index: the field is the innermost name.
    head = loc
    while head and isinstance(head[-1], int):
        head = head[:-1]
    field = dotted(head)  # "" for a message-level complaint (no one field)
    code, text = reason(err)
    if err["type"] == "missing" and err["loc"] and isinstance(err["loc"][-1], int):
        return FieldError(field, "invalid", f"{field}: too few numbers ({where} is missing)")
    if err["type"] == "value_error" and isinstance(err.get("ctx", {}).get("error"), FieldError):
        inner: FieldError = err["ctx"]["error"]
        named = dotted((*head, inner.field)) if inner.field not in head else field
        return FieldError(named, code, f"{named}: {text}")
    return FieldError(field, code, f"{where}: {text}")
