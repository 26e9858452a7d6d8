"""Websocket protocol v1: the one definition of every message between server and page.

Each message is a pydantic model with a `type` literal: what the server sends in
server_messages.py, what a client may send in client_messages.py. Here: their discriminated
unions on `type` (`ServerMessage`, `ClientMessage`), each message by its type read from
them, the parsers, and the JSON Schema. docs/protocol.md and the published JSON Schema
(GET /api/protocol.schema.json) are generated from these models, and a test fails when
they drift. Field names at this edge are FhSim's (Force, Moment, Mass, InertiaRadi, Pos, …).
Every number's range comes from the one table, `sixdof.fields.LIMITS` (through
`Within`), so validation, the error messages, the `limits` sent in `hello`, the published
schema and docs/protocol.md all say the same thing.
"""

from __future__ import annotations

from typing import Annotated, Any, Union, get_args

from pydantic import BaseModel, Field, TypeAdapter

from ..error_codes import ErrorCode
from .client_messages import (
    Answer,
    Auth,
    BodyState,
    ClientModel,
    GhostSettings,
    GoBack,
    LoadScenario,
    Pause,
    Reset,
    Resume,
    SetElements,
    SetGhost,
    SetInput,
    SetParams,
    SetTimeScale,
    SetWater,
    Spring,
    Step,
    UndoGoBack,
)
from .common import PROTOCOL_VERSION, MessageId
from .server_messages import (
    Ack,
    AppliedLoad,
    AskedQuestion,
    BodyFrame,
    ElementFrame,
    Error,
    GhostBody,
    GhostDiff,
    GhostFrame,
    Hello,
    Hydrodynamics,
    HydroPeriods,
    HydrostaticsInfo,
    Limits,
    Preparing,
    PresetInfo,
    State,
    Status,
)

ServerMessage = Annotated[
    Union[Hello, State, Ack, Error, Preparing],  # noqa: UP007
    Field(discriminator="type"),
]
ClientMessage = Annotated[
    Union[  # noqa: UP007
        SetInput,
        SetParams,
        SetElements,
        SetWater,
        Pause,
        Resume,
        Step,
        Reset,
        SetTimeScale,
        LoadScenario,
        Auth,
        GoBack,
        UndoGoBack,
        SetGhost,
        Answer,
    ],
    Field(discriminator="type"),
]


def _by_type(union: Any) -> dict[str, Any]:
    """The members of a discriminated union (`ServerMessage`, `ClientMessage`) by their
    `type` literal, in the union's order."""
    members = get_args(get_args(union)[0])
    return {get_args(m.model_fields["type"].annotation)[0]: m for m in members}


SERVER_MESSAGES: dict[str, type[BaseModel]] = _by_type(ServerMessage)
CLIENT_MESSAGES: dict[str, type[ClientModel]] = _by_type(ClientMessage)

server_message_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)
client_message_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def limits() -> dict[str, Any]:
    """The `limits` object of `hello`, from the one table (sixdof.fields.LIMITS)."""
    from ...simulation.limits import live_limits  # the integrators' stability limits: numpy

    return live_limits()


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of every message, server -> client and client -> server."""
    every = (*SERVER_MESSAGES.values(), *CLIENT_MESSAGES.values())
    union: Any = Annotated[Union[every], Field(discriminator="type")]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"sixdof websocket protocol v{PROTOCOL_VERSION}",
        "description": "Every JSON text frame on /ws is one of these objects, told apart by "
        "'type'. server -> client: "
        + ", ".join(SERVER_MESSAGES)
        + ". client -> server: "
        + ", ".join(CLIENT_MESSAGES)
        + ".",
        "x-server-to-client": list(SERVER_MESSAGES),
        "x-client-to-server": list(CLIENT_MESSAGES),
        **schema,
    }


__all__ = [
    "CLIENT_MESSAGES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGES",
    "Ack",
    "Answer",
    "AppliedLoad",
    "AskedQuestion",
    "Auth",
    "BodyFrame",
    "BodyState",
    "ClientMessage",
    "ClientModel",
    "ElementFrame",
    "Error",
    "ErrorCode",
    "GhostBody",
    "GhostDiff",
    "GhostFrame",
    "GhostSettings",
    "GoBack",
    "Hello",
    "HydroPeriods",
    "Hydrodynamics",
    "HydrostaticsInfo",
    "Limits",
    "LoadScenario",
    "MessageId",
    "Pause",
    "Preparing",
    "PresetInfo",
    "Reset",
    "Resume",
    "ServerMessage",
    "SetElements",
    "SetGhost",
    "SetInput",
    "SetParams",
    "SetTimeScale",
    "SetWater",
    "Spring",
    "State",
    "Status",
    "Step",
    "UndoGoBack",
    "client_message_adapter",
    "json_schema",
    "limits",
    "server_message_adapter",
]
