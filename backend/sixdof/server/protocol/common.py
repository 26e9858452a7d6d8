"""What every message of the protocol shares: strict models, the message id, the version."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 1

MessageId = Annotated[str, Field(max_length=64)] | int | None
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
Pair = tuple[FiniteFloat, FiniteFloat]


class Message(BaseModel):
    """A message or a part of one: an unknown field is refused, not ignored."""

    model_config = ConfigDict(extra="forbid")
