"""Turning bad client input into `error` replies that name the field and the allowed range.

`parse_client_message` is the websocket's front door: text in, a validated message or a
`Refusal` out. It never raises on bad input.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..fields import FieldError
from ..scenario.errors import field_error
from .error_codes import ErrorCode
from .protocol import CLIENT_MESSAGES, ClientModel, Error


@dataclass(frozen=True)
class Refusal(Exception):
    """A refused client message: the payload of an `error` reply."""

    code: ErrorCode
    message: str
    field: str | None = None
    id: str | int | None = None

    @classmethod
    def of(cls, exc: FieldError, mid: str | int | None = None) -> Refusal:
        return cls(exc.code, exc.message, exc.field or None, mid)

    def model(self) -> Error:
        return Error(id=self.id, code=self.code, message=self.message, field=self.field)

    def payload(self) -> dict[str, Any]:
        return self.model().model_dump(mode="json")

    def text(self) -> str:
        return self.model().model_dump_json()


def _message_id(obj: dict[str, Any]) -> str | int | None:
    mid = obj.get("id")
    if isinstance(mid, bool) or not isinstance(mid, str | int):
        return None
    return mid if not isinstance(mid, str) or len(mid) <= 64 else None


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Duplicate(f"the key {key[:64]!r} appears twice in one object; give it once")
        obj[key] = value
    return obj


def _keep_constant(name: str) -> float:
    # json.loads maps NaN/Infinity to floats; keep them so the walk below names the field.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def strict_loads(text: str | bytes) -> Any:
    """JSON as the protocol allows it: UTF-8 and no key given twice in one object.

    Python's json keeps the last of two equal keys, silently dropping a value: refused here
    (Refusal bad_json). NaN, Infinity and 1e400 (read as inf) are kept as floats so that the
    models, whose every number is finite-only, refuse them naming the field and its range.
    """
    try:
        obj = json.loads(text, parse_constant=_keep_constant, object_pairs_hook=_no_duplicates)
    except _Duplicate as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc}") from None
    except UnicodeDecodeError:
        raise Refusal("bad_json", "not valid JSON: the text is not UTF-8") from None
    except (ValueError, RecursionError) as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc}") from None
    return obj


def read_client_message(text: str) -> tuple[dict[str, Any], str, str | int | None]:
    """The cheap half of validation: strict JSON, an object, a known `type`.

    Returns (object, type, id). The costly half (`validate_client_message`, the pydantic
    models: a whole scenario for load_scenario) runs only for a client allowed to control.
    """
    obj = strict_loads(text)
    if not isinstance(obj, dict):
        raise Refusal("invalid", "a message must be a JSON object with a 'type'", "type")
    mid = _message_id(obj)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise Refusal(
            "invalid", "'type' is required: one of " + ", ".join(CLIENT_MESSAGES), "type", mid
        )
    if kind not in CLIENT_MESSAGES:
        allowed = ", ".join(CLIENT_MESSAGES)
        raise Refusal(
            "unknown_type",
            f"type: unknown message type {kind[:64]!r}; allowed: {allowed}",
            "type",
            mid,
        )
    return obj, kind, mid


def validate_client_message(obj: dict[str, Any], kind: str, mid: str | int | None) -> ClientModel:
    """The message as its protocol model, or Refusal naming the field and the range."""
    try:
        return CLIENT_MESSAGES[kind].model_validate(obj)
    except ValidationError as exc:
        raise Refusal.of(field_error(exc, what=kind), mid) from None


def parse_client_message(text: str) -> ClientModel:
    """Validate one client text frame; raise `Refusal` with code, message, field and id."""
    return validate_client_message(*read_client_message(text))


class Stopping(Exception):
    """The server stops while something waits for the physics (registry.physics_ready):
    it gets nothing; a websocket is closed 1001 (going away), a request answered 503."""
