"""A room's past over REST: its history as CSV, its recording, and a past frame re-simulated
(docs/recording.md). Each is bounded before it runs: downloads by `max_exports` at once, a
past frame by its address's queue and budget (budget.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import Response, StreamingResponse

from .budget import LOOKBACK_QUEUE, Budgets, WorkBudget, run_pieces
from .errors import Refusal
from .pools import off_loop
from .rest import _require_control, _room
from .rest_budget import client_address
from .settings import Settings

router = APIRouter(prefix="/api")


#: Numbers per piece of a history.csv stream: ~2 ms of formatting on the event loop (50,000
#: took 16 ms, a whole frame period, and two downloads of a 64-body room cost a bystander
#: room 10 of its 60 frames a second under CI load).
EXPORT_PIECE_CELLS = 8_000


@router.get("/rooms/{room}/history.csv")
async def history_csv(
    request: Request,
    room: str,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    """The room's recent history (the last `history_seconds`, at most `history_bytes`), one
    row per frame; needs the token if the server has one. Streamed in pieces; at most
    `max_exports` downloads run at once (429 with Retry-After beyond)."""
    settings: Settings = request.app.state.settings
    _require_control(request, settings, token, authorization)
    target = _room(request, room)
    exports: asyncio.Semaphore = request.app.state.exports
    if exports.locked():
        raise HTTPException(
            429,
            f"history: {settings.max_exports} downloads are running; try again in a second",
            headers={"Retry-After": "1"},
        )
    await exports.acquire()
    try:
        pieces = await off_loop(target.sim.history.csv_pieces, EXPORT_PIECE_CELLS)
    except BaseException:
        exports.release()
        raise

    async def stream() -> AsyncIterator[str]:
        try:  # each piece (~2 ms of formatting) made in the requests' pool
            while (piece := await off_loop(next, pieces, None)) is not None:
                yield piece
        finally:
            exports.release()

    return StreamingResponse(
        stream(),
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="sixdof-{room}-history.csv"'},
    )


@router.get("/rooms/{room}/recording")
async def recording(
    request: Request,
    room: str,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    """The room's recording (docs/recording.md): keyframes and every change at the step it
    took effect; `sixdof run recording.json` re-simulates it. Needs the token if set."""
    settings: Settings = request.app.state.settings
    _require_control(request, settings, token, authorization)
    sim = _room(request, room).sim
    if sim.recording is None:
        raise HTTPException(404, f"room {room!r} keeps no recording")
    return Response(
        await off_loop(_recording_bytes, sim),  # an hour's recording is MBs of JSON
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="sixdof-{room}-recording.json"'},
    )


def _recording_bytes(sim: Any) -> bytes:
    with sim.lock:
        data = sim.recording.to_json()
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


@router.get("/rooms/{room}/recording/frame")
async def recording_frame(
    request: Request,
    room: str,
    t: Annotated[float, Query(allow_inf_nan=False, ge=0.0, description="simulated time, s")],
    offset: Annotated[int, Query(ge=-1000, le=1000, description="frames from there")] = 0,
) -> dict[str, Any]:
    """The room's state at a past time t of its current run, re-simulated from the nearest
    keyframe (not interpolated): the `state` message's {"t", "bodies"} at the last frame at
    or before t (`offset` frames from it: -1 the one before), and "last": whether it is the
    latest recorded frame. Anyone who may watch may ask (it shows what the room showed).

    The work (up to ~40 ms of a core) runs in pieces of ~2 ms with the event loop free
    between them, charged to the client's address as a websocket message's is; an
    address's requests wait their turn one after another (and for its budget to refill)
    rather than run side by side, and are refused at once (429) only when 16 already wait
    or its budget is far overspent; 404 outside the recorded run."""
    budgets: Budgets = request.app.state.budgets
    budget = budgets.of(client_address(request))
    if budget.queued >= LOOKBACK_QUEUE:  # first, before anything else is looked at
        raise _too_many(budget, "recording/frame")
    sim = _room(request, room).sim
    from ..simulation.cost import lookback_seconds
    from ..simulation.replay import past_frame_pieces  # a room exists: its physics are loaded

    try:
        estimate = await off_loop(lookback_seconds, sim, t)
        async with budgets.lookback(budget, "recording/frame", estimate) as reserved:
            frame, _ = await run_pieces(past_frame_pieces(sim, t, offset), budget, reserved)
    except Refusal:
        raise _too_many(budget, "recording/frame") from None
    if frame is None:
        raise HTTPException(404, f"t: no recorded frame at or before {t:g} s in room {room!r}")
    return frame


def _too_many(budget: WorkBudget, kind: str) -> HTTPException:
    """429 for a look back refused before any work: its queue is full or its budget spent."""
    wait = max(budget.wait_for(0.0), 1.0 if budget.queued >= LOOKBACK_QUEUE else 0.0)
    if budget.queued >= LOOKBACK_QUEUE:
        why = f"{budget.queued} requests of your address wait already (at most {LOOKBACK_QUEUE})"
    else:
        why = "your address has spent its computing budget"
    return HTTPException(
        429,
        f"{kind}: {why}; try again in {wait:.2g} s",
        headers={"Retry-After": str(max(1, round(wait)))},
    )
