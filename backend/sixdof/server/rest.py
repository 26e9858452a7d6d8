"""REST endpoints: health, rooms' scenarios, Share links, presets, meshes, the protocol schema
(a room's past: past_routes.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from .. import __version__
from ..fields import FieldError
from ..scenario import Scenario
from ..scenario.errors import dotted, field_error, reason
from ..store import StoreError
from . import presets
from .errors import Refusal, Stopping, strict_loads
from .pools import off_loop
from .protocol import PresetInfo, json_schema
from .registry import Rooms
from .request_body import capped_body, refuse_declared_over
from .rest_budget import admit, charged, client_address
from .rooms import Room, check_room_name
from .settings import Settings
from .snapshots import Kind, Snapshots
from .stored import store_refusal
from .ws import bearer, has_control, origin_allowed

router = APIRouter(prefix="/api")


def _rooms(request: Request) -> Rooms:
    return request.app.state.rooms


def _room(request: Request, name: str) -> Room:
    _valid_name(name)
    room = _rooms(request).get(name)
    if room is None:
        raise HTTPException(
            404,
            f"no room named {name!r}: rooms are made when a client joins "
            f"(/ws?room={name}) or by PUT /api/rooms/{name}/scenario",
        )
    return room


def _valid_name(name: str) -> None:
    try:
        check_room_name(name)
    except Refusal as exc:
        raise HTTPException(
            422, [{"loc": ["path", "room"], "msg": exc.message, "type": exc.code}]
        ) from None


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    """{"status": "ok", "version", "rooms": number of live rooms, "loop_longest_cpu_s": the
    most CPU seconds the event loop was held between two of its probe's beats, over the last
    ~40 s (/api/probe), "work_left_s": the computing seconds the asking address's own budget
    holds, of "work_burst_s" (what it may bank), "work_left_all_s": the computing seconds
    left of the budget all addresses draw on, of "work_burst_all_s", "physics": what is
    loaded, "none", "free bodies" (a cold start's compile of the elements' kernels goes on)
    or "all", "kernels_compiled_here": kernels this process compiled itself (0: all from the
    cache)}."""
    from ..simulation import compiled_here, free_is_warm, is_warm

    loop = request.app.state.probe.reading()
    budgets = request.app.state.budgets
    everyone = budgets.everyone
    return {
        "status": "ok",
        "version": __version__,
        "rooms": len(_rooms(request)),
        "physics": "all" if is_warm() else "free bodies" if free_is_warm() else "none",
        "kernels_compiled_here": compiled_here.count(),
        "loop_longest_cpu_s": loop["longest_cpu_s"],
        "work_left_s": round(budgets.own_left(client_address(request)), 4),
        "work_burst_s": budgets.burst,
        "work_left_all_s": round(everyone.left(), 4),
        "work_burst_all_s": everyone.burst,
    }


Since = Annotated[int | None, Query(ge=0, le=2**62)]


@router.get("/probe")
async def probe(request: Request, since: Since = None) -> dict[str, Any]:
    """The event loop's probe (server/loop_probe.py): `beat`, the latest beat's number, and
    `longest_cpu_s`, the most CPU seconds of the loop's thread between two beats after beat
    `since` (default: every kept beat). Ask once for `beat`, do the work, ask again with
    `since` set to it: the longest the loop was held meanwhile, whatever the machine's load.
    `server`: the process that counted the beats (a cluster worker's id; null for serve)."""
    reading: dict[str, Any] = request.app.state.probe.reading(since)
    return {**reading, "server": request.app.state.server_id}


@router.get("/rooms/{room}/probe")
async def room_probe(request: Request, room: str, since: Since = None) -> dict[str, Any]:
    """/api/probe of the process that ticks `room`: the same as /api/probe under `sixdof
    serve`; through a cluster's gateway, the room's worker's loop."""
    _room(request, room)
    return await probe(request, since)


@router.get("/protocol.schema.json")
async def protocol_schema() -> dict[str, Any]:
    """JSON Schema of every websocket message (docs/protocol.md describes them)."""
    return json_schema()


@router.get("/rooms")
async def list_rooms(request: Request) -> list[dict[str, Any]]:
    """Every live room with its stats (as /api/rooms/{room}/stats)."""
    rooms = _rooms(request)
    return [room.stats() for name in rooms.names() if (room := rooms.get(name)) is not None]


@router.get("/rooms/{room}/stats")
async def room_stats(request: Request, room: str) -> dict[str, Any]:
    """Clients, frames, tick timing (error of each tick's start against its deadline, s); for a
    room nobody watches, the seconds until it is removed (`expires_in`)."""
    return _room(request, room).stats()


@router.get("/rooms/{room}/scenario", response_model=Scenario)
async def get_scenario(request: Request, room: str) -> Scenario:
    """The room's current scenario, with live parameters and constant inputs folded in."""
    return _room(request, room).sim.scenario


def _unprocessable(errors: list[FieldError]) -> HTTPException:
    """422 with FastAPI's detail list, each entry also carrying our code and field."""
    detail = [
        {"loc": ["body", *_loc(e.field)], "msg": e.message, "type": e.code, "field": e.field}
        for e in errors
    ]
    return HTTPException(422, detail)


def _loc(field: str) -> list[str | int]:
    """'bodies[0].Mass' -> ['bodies', 0, 'Mass']."""
    out: list[str | int] = []
    for part in field.replace("]", "").replace("[", ".").split("."):
        out.append(int(part) if part.isdigit() else part)
    return out


def scenario_from_body(body: bytes) -> Scenario:
    """The request body as a Scenario, or 422 naming every bad field (the most telling
    first, worded as the websocket words it). The JSON is read as the websocket reads it
    (errors.strict_loads: no NaN, no duplicate keys), then validated by the same models."""
    try:
        obj = strict_loads(body)
    except Refusal as exc:
        raise HTTPException(400, exc.message) from None
    try:
        return Scenario.model_validate(obj)
    except ValidationError as exc:
        first = field_error(exc)
        rest = []
        for err in exc.errors(include_url=False):
            code, text = reason(err)
            where = dotted(tuple(err["loc"])) or "scenario"
            rest.append(FieldError(where, code, f"{where}: {text}"))
        raise _unprocessable([first, *rest]) from None


@router.put(
    "/rooms/{room}/scenario",
    response_model=Scenario,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Scenario"}}},
        }
    },
)
async def put_scenario(
    request: Request,
    room: str,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> Scenario:
    """Replace the room's scenario (creating the room); needs the token if the server has one
    (?token=… or `Authorization: Bearer …`). Every client of the room gets a new hello.

    The token is checked before the body is read: nobody without it can make the server
    parse anything. The work is charged to the address's budget as a websocket's
    `load_scenario` is: with it spent, 429 before the body is read."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):  # the websocket's rule, for browsers
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    _valid_name(room)
    refuse_declared_over(request, settings.max_message_bytes)
    budget = admit(request, "scenario")
    body = await _capped_body(request, settings.max_message_bytes)
    with charged(budget) as checked:  # validating 64 bodies takes pydantic tens of ms
        scenario = await off_loop(scenario_from_body, body)
        try:
            await _rooms(request).physics_ready()
        except Stopping:
            raise HTTPException(503, "the server is stopping") from None
        try:  # what one step of it would cost, known before it is built (as load_scenario's)
            estimate = await off_loop(_build_seconds, scenario)
        except FieldError as exc:
            raise _unprocessable([exc]) from None
    admit(request, "scenario", estimate, checked.cpu)
    try:
        target = _rooms(request).get_or_create(room)
    except Refusal as exc:
        raise HTTPException(503, exc.message) from None
    try:
        target.changing += 1  # its frames made meanwhile are not sent after the new hello
        try:
            with charged(budget, estimate):
                await off_loop(target.load, scenario)
        finally:
            target.changing -= 1
            target.changes += 1
    except FieldError as exc:
        raise _unprocessable([exc]) from None
    await target.sync_hello()
    return target.sim.scenario


def _build_seconds(scenario: Scenario) -> float:
    """The estimated seconds of building `scenario`'s world (simulation/cost.py); FieldError
    (`scenario`) when its one step would cost more than a room may."""
    from ..simulation.cost import change_seconds  # loaded with the physics

    return change_seconds("load_scenario", scenario)


#: The one reader of request bodies (gyro.py's too): capped in size and time.
_capped_body = capped_body


def _require_control(
    request: Request, settings: Settings, token: str | None, authorization: str | None
) -> None:
    if not has_control(token or bearer(authorization), settings):
        raise HTTPException(
            403, "this server needs a token for this: ?token=… or Authorization: Bearer …"
        )


#: The least a Share link costs its address's budget, s (its own work: 0.04 ms for one body,
#: ~1.2 ms for 64): 20 links in a burst, then 5 a second, where 300 in 1.6 s pushed every
#: earlier link out of the store.
SHARE_COST = 0.05


@router.post("/rooms/{room}/share")
async def share(
    request: Request,
    room: str,
    what: Annotated[Kind, Query(description="start, now or recording")] = "now",
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """A snapshot of the room for a Share link (server/snapshots.py): {"id", "what", "t"};
    the page opens `?room=NEW&snapshot=ID`, which makes room NEW from it (never an existing
    room). `recording` needs the token if the server has one, as the recording does.

    Anyone may share `start` and `now`; each link costs the address at least SHARE_COST s
    of its budget (429 once spent), and watchers' links are kept apart from the token
    holders', so a flood of them pushes out no lecturer's link."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not share rooms (see --allow-origin)")
    if what == "recording":
        _require_control(request, settings, token, authorization)
    by_watcher = not has_control(token or bearer(authorization), settings)
    sim = _room(request, room).sim
    budget = admit(request, "share", SHARE_COST)
    snapshots: Snapshots = request.app.state.snapshots
    with charged(budget, SHARE_COST) as meter:
        with meter.here(), sim.lock:
            keyframe = sim.keyframe("shared")
            recording = sim.recording.copy() if what == "recording" and sim.recording else None
        try:  # encoded and written (a transaction, synced) in the requests' pool
            sid = await off_loop(snapshots.put, what, keyframe, recording, by_watcher)
        except StoreError as exc:
            raise store_refusal(exc) from None
    t = keyframe["t_base"] + keyframe["n_steps"] * keyframe["step_size"]
    return {"id": sid, "what": what, "t": 0.0 if what == "start" else t}


@router.get("/presets")
async def list_presets() -> list[PresetInfo]:
    """[{"name", "title", "caption", "question", "flip_axis"}] of every preset."""
    return presets.infos()


@router.get("/presets/{name}", response_model=Scenario)
async def get_preset(name: str) -> Scenario:
    """The preset's scenario (404 naming the presets if there is none)."""
    try:
        return presets.scenario(name)
    except Refusal as exc:
        raise HTTPException(404, exc.message) from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HTTPException(503, f"{path} is missing: run `make setup`") from None
    except ValueError as exc:
        raise HTTPException(500, f"{path} is not valid JSON: {exc}") from None


@router.get("/meshes")
async def meshes(request: Request) -> JSONResponse:
    """The shipped meshes (meshes/meshes.json) and the material table (materials.json)."""
    folder = request.app.state.settings.meshes_path()
    listed = _read_json(folder / "meshes.json")
    materials = _read_json(folder / "materials.json")
    if isinstance(listed, dict) and "meshes" in listed:
        listed = listed["meshes"]
    if isinstance(materials, dict) and "materials" in materials:
        materials = materials["materials"]
    return JSONResponse({"meshes": listed, "materials": materials})
