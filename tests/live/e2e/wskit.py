"""What the end-to-end tests do to a real server: open a room's websocket, read frames over a
span of simulated time, send a message and wait for its answer, read a room's stats, look at
the server process's memory map. Shared here so that no test module imports another."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from .conftest import Served

FRAME_RATE = 60.0

#: a bound on failure, not a figure (how fast frames come is the timing tier's)
WAIT_S = 60.0

IDLE_RSS_LIMIT_KIB = 100 * 1024  # issue 14's goal; numba alone takes ~90 MiB more


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def open_ws(server: Served, room: str, **kwargs: Any) -> ClientConnection:
    ws = await connect(f"{server.ws_url}?room={room}", proxy=None, compression=None, **kwargs)
    hello = json.loads(await ws.recv())
    if hello["type"] == "preparing":  # the server's first join: the physics loads first
        hello = json.loads(await ws.recv())
    assert hello["type"] == "hello" and hello["room"] == room
    return ws


async def next_of(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        msg = json.loads(await ws.recv())
        if msg["type"] == kind:
            return msg


async def frames_for(
    ws: ClientConnection, seconds: float, at_least: int = 1
) -> list[tuple[float, dict]]:
    """(wall time of arrival, state) for the state frames that span `seconds` of simulated
    time, and at least `at_least` of them: a loaded machine sends a client that is behind
    fewer frames (latest-wins), but the same simulated time; bounded at WAIT_S."""
    out: list[tuple[float, dict]] = []
    end = time.monotonic() + WAIT_S
    while not out or out[-1][1]["t"] - out[0][1]["t"] < seconds or len(out) < at_least:
        left = end - time.monotonic()
        assert left > 0, f"{len(out)} frames in {WAIT_S} s"
        msg = json.loads(await asyncio.wait_for(ws.recv(), left))
        if msg["type"] == "state":
            out.append((time.monotonic(), msg))
    return out


async def send(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    """Send `msg` and return its ack or error, skipping the frames between."""
    await ws.send(json.dumps({**msg, "id": "e"}))
    while True:
        reply = json.loads(await ws.recv())
        if reply["type"] in ("ack", "error") and reply.get("id") == "e":
            return reply


def stats(server: Served, room: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{room}/stats", timeout=5) as reply:
        return json.loads(reply.read())


def llvm_mapped(pid: int) -> bool:
    """Whether numba's LLVM library is mapped into process `pid` (it is once numba loads)."""
    return "libllvmlite" in Path(f"/proc/{pid}/maps").read_text()


def numpy_mapped(pid: int) -> bool:
    return "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text()
