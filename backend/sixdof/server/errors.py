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
from .protocol import CLIENT_MESSAGES, ClientModel, Error, ErrorCode


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


def _reject_constant(name: str) -> float:
    # json.loads maps NaN/Infinity to floats; keep them so the schema check names the field.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def parse_client_message(text: str) -> ClientModel:
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
        raise Refusal.of(field_error(exc, what=kind), mid) from None
