"""The lecturer's view of a server's rooms (/class, frontend/class/): every room, or those
whose name starts with a prefix (`group-`), as a tile, and one message carried out in many
rooms at once. Both need the token when the server has one: a watcher's page cannot reach
them.

    GET  /api/class/rooms?prefix=P   -> {"rooms": [tile, …]} (a tile: room, viewers, t,
                                        running, energy, bodies [{Name, Pos, Quater}])
    POST /api/class/act              {"rooms": [names], "message": {load_scenario | pause |
                                        resume | reset | lesson_step}}
                                        -> {"results": {room: ack|error}}

A tile carries its room's prediction question and the tally of its answers (answers.py).
`lesson_step` ({"lesson": id, "step": n}) loads step n of a stored lesson (its preset, saved
scenario or Share link's scenario) into each room, and the room asks the step's question.

The page asks for the tiles a few times a second (a low-rate frame stream): one request
reads every room's latest state in the requests' pool, so fifty rooms cost one short job
per poll, not fifty websockets at the rooms' frame rate. A message is carried out in each
room by the one path every websocket message takes (control.handle): validated, charged to
the lecturer's address, refused per room with the room's own words, and each room's
viewers get the new hello.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Header, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..store import StoreError
from . import lessons
from .control import handle
from .errors import Refusal, strict_loads
from .pools import off_loop
from .registry import Rooms
from .request_body import capped_body
from .rest import _require_control
from .rest_budget import address_budget, admit
from .rooms import Room
from .settings import Settings
from .stored import store_refusal
from .ws import origin_allowed

router = APIRouter(prefix="/api/class")
rooms_router = APIRouter(prefix="/api/rooms")

#: Rooms one view or one action reaches at most.
MAX_ROOMS = 256
#: What the lecturer's view may send to many rooms at once.
ACTIONS = ("load_scenario", "pause", "resume", "reset", "lesson_step")
#: The least one action costs the address's budget per room, s.
ACT_COST = 0.002

Token = Annotated[str | None, Query()]
Authorization = Annotated[str | None, Header()]


class Act(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rooms: list[str] = Field(min_length=1, max_length=MAX_ROOMS)
    message: dict[str, Any]


def _tile(room: Room) -> dict[str, Any]:
    """A room as its tile shows it: its latest state, its viewers."""
    frame = room.sim.frame()
    bodies: list[dict[str, Any]] = frame["bodies"]  # type: ignore[assignment]
    status: dict[str, Any] = frame["status"]  # type: ignore[assignment]
    return {
        "room": room.name,
        "viewers": len(room.clients),
        "t": frame["t"],
        "running": bool(status.get("running")),
        "energy": sum(float(b.get("TotalEnergy", 0.0)) for b in bodies),
        "bodies": [{"Name": b["Name"], "Pos": b["Pos"], "Quater": b["Quater"]} for b in bodies],
        "answers": room.answers.tally(),
    }


def tiles(rooms: Rooms, prefix: str) -> list[dict[str, Any]]:
    """The tiles of every room whose name starts with `prefix`, by name (in the requests'
    pool: each reads its room's outputs under the room's lock)."""
    chosen = sorted(name for name in rooms.names() if name.startswith(prefix))[:MAX_ROOMS]
    out = []
    for name in chosen:
        room = rooms.get(name)
        if room is not None:
            out.append(_tile(room))
    return out


@router.get("/rooms")
async def class_rooms(
    request: Request,
    prefix: Annotated[str, Query(max_length=64)] = "",
    token: Token = None,
    authorization: Authorization = None,
) -> dict[str, Any]:
    _require_control(request, request.app.state.settings, token, authorization)
    relay: ClassRelay | None = request.app.state.class_relay
    if relay is not None:  # a gateway: each room's tile from its worker
        return {"rooms": await relay.tiles(request, prefix)}
    rooms: Rooms = request.app.state.rooms
    return {"rooms": await off_loop(tiles, rooms, prefix)}


@router.post("/act")
async def class_act(
    request: Request, token: Token = None, authorization: Authorization = None
) -> dict[str, Any]:
    """Carry out `message` in each of `rooms` (a room that does not exist: "no such room")."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    body = await capped_body(request, settings.max_message_bytes)
    try:
        act = Act.model_validate(strict_loads(body))
    except Refusal as exc:
        raise HTTPException(400, exc.message) from None
    except ValidationError as exc:
        raise HTTPException(422, exc.errors(include_url=False, include_context=False)) from None
    kind = act.message.get("type")
    if kind not in ACTIONS:
        raise HTTPException(422, f"message.type: one of {', '.join(ACTIONS)}, got {kind!r}")
    relay: ClassRelay | None = request.app.state.class_relay
    if relay is not None:  # a gateway: each room's worker carries it out (its act below)
        return {"results": await relay.act(request, list(dict.fromkeys(act.rooms)), act.message)}
    return {"results": await _act(request, act.rooms, act.message)}


async def _act(request: Request, names: list[str], message: dict[str, Any]) -> dict[str, Any]:
    """`message` carried out in each room of `names` here, charged to the address."""
    settings: Settings = request.app.state.settings
    admit(request, "class", ACT_COST * len(names))
    budget = address_budget(request)
    rooms: Rooms = request.app.state.rooms
    ask: tuple[str, str | None] | None = None
    if message.get("type") == "lesson_step":
        message, question, preset = await _lesson_step(request, message)
        ask = (question, preset)
    text = json.dumps(message)
    results: dict[str, Any] = {}
    for name in dict.fromkeys(names):
        room = rooms.get(name)
        if room is None:
            results[name] = {"type": "error", "message": f"no room named {name[:64]!r}"}
            continue
        replies, spent = await handle(text, room, budget.left(), settings)
        budget.charge(max(ACT_COST, spent))
        acked = not replies or json.loads(replies[0][0]).get("type") == "ack"
        if ask is not None and acked:
            room.ask(*ask)
        await room.sync_hello()  # its viewers see the change (a new scenario: a new hello)
        results[name] = json.loads(replies[0][0]) if replies else {"type": "ack"}
    return results


# one room's tile and action: what a gateway asks each room's worker (cluster/classes.py)
@rooms_router.get("/{room}/tile")
async def room_tile(
    request: Request, room: str, token: Token = None, authorization: Authorization = None
) -> dict[str, Any]:
    _require_control(request, request.app.state.settings, token, authorization)
    found = request.app.state.rooms.get(room)
    if found is None:
        raise HTTPException(404, f"no room named {room[:64]!r}")
    return await off_loop(_tile, found)


class RoomAct(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: dict[str, Any]


@rooms_router.post("/{room}/act")
async def room_act(
    request: Request, room: str, token: Token = None, authorization: Authorization = None
) -> dict[str, Any]:
    """The class view's message carried out in this one room: its result."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    try:
        act = RoomAct.model_validate(
            strict_loads(await capped_body(request, settings.max_message_bytes))
        )
    except Refusal as exc:
        raise HTTPException(400, exc.message) from None
    except ValidationError as exc:
        raise HTTPException(422, exc.errors(include_url=False, include_context=False)) from None
    if act.message.get("type") not in ACTIONS:
        raise HTTPException(422, f"message.type: one of {', '.join(ACTIONS)}")
    return dict((await _act(request, [room], act.message))[room])


class ClassRelay(Protocol):
    """A gateway's way to the rooms of every worker (cluster/classes.py)."""

    async def tiles(self, request: Request, prefix: str) -> list[dict[str, Any]]: ...

    async def act(
        self, request: Request, names: list[str], message: dict[str, Any]
    ) -> dict[str, Any]: ...


StepLoad = tuple[dict[str, Any], str, str | None]  # lessons.step_load's


class LessonStepAct(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str
    lesson: str = Field(max_length=64)
    step: int = Field(ge=0, le=1000)


async def _lesson_step(
    request: Request, message: dict[str, Any]
) -> tuple[dict[str, Any], str, str | None]:
    """The load_scenario message, question and preset of the lesson step `message` names."""
    try:
        step = LessonStepAct.model_validate(message)
    except ValidationError as exc:
        raise HTTPException(422, exc.errors(include_url=False, include_context=False)) from None
    store, snapshots = request.app.state.store, request.app.state.snapshots
    try:
        return await off_loop(lessons.step_load, store, snapshots, step.lesson, step.step)
    except lessons.LessonRefused as exc:
        raise HTTPException(404 if exc.field == "lesson" else 422, exc.message) from None
    except StoreError as exc:
        raise store_refusal(exc) from None
