"""A room driven over the websocket, its recording exported by REST and re-simulated by
`sixdof run`: the re-simulation equals the room's history.csv to ≤ 1e-9."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from websockets.asyncio.client import connect

from .conftest import Served


async def drive(server: Served, room: str) -> None:
    async with connect(f"{server.ws_url}?room={room}", proxy=None, max_queue=None) as ws:
        ids = iter(range(1, 10_000))

        async def send(msg: dict[str, Any], frames: int = 0) -> None:
            mid = next(ids)
            await ws.send(json.dumps({**msg, "id": mid}))
            seen = 0
            while True:  # the ack, then `frames` state frames
                reply = json.loads(await ws.recv())
                if reply["type"] == "error" and reply.get("id") == mid:
                    raise AssertionError(reply)
                if reply["type"] == "ack" and reply.get("id") == mid:
                    mid = -1
                if reply["type"] == "state" and mid == -1:
                    seen += 1
                if mid == -1 and seen >= frames:
                    return

        await send({"type": "set_input", "Force": [1, 0, 0], "Moment": [0, 0, 0.1]}, 20)
        for k in range(15):  # a drag: a spring toward a target that moves every frame
            spring = {"target": [0.3, 0.02 * k, 0], "stiffness": 30, "damping": 3,
                      "max_force": 40}  # fmt: skip
            await send({"type": "set_input", "channel": "push", "point": [0.2, 0, 0],
                        "spring": spring}, 1)  # fmt: skip
        await send({"type": "set_input", "channel": "push"}, 10)  # released
        await send({"type": "set_params", "Mass": 3.0}, 15)
        await send({"type": "set_params", "model": "fhsim"}, 15)
        await send({"type": "reset", "body": "B", "state": {"AngVel": [0.5, 1, 0]}}, 15)
        await send({"type": "step", "n": 300}, 5)
        await send({"type": "pause"})


def get(server: Served, path: str) -> bytes:
    with urllib.request.urlopen(f"{server.url}{path}", timeout=30) as reply:
        return reply.read()


def table(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.strip().splitlines()
    return lines[0].split(","), np.array([[float(v) for v in ln.split(",")] for ln in lines[1:]])


def test_a_driven_rooms_recording_resimulates_to_its_history(
    live_server: Served, tmp_path: Path
) -> None:
    asyncio.run(drive(live_server, "recorded"))
    recording = get(live_server, "/api/rooms/recorded/recording")
    history = get(live_server, "/api/rooms/recorded/history.csv").decode()
    path = tmp_path / "recorded.json"
    path.write_bytes(recording)
    run = subprocess.run(
        [sys.executable, "-m", "sixdof.cli", "run", "--input-file", str(path),
         "--output-file", str(tmp_path / "again.csv")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    live_header, live = table(history)
    header, again = table((tmp_path / "again.csv").read_text())
    assert header == live_header
    assert len(again) >= len(live) > 100  # the history keeps the last 60 s, the recording all
    again = again[-len(live) :]
    assert np.max(np.abs(again[:, 0] - live[:, 0])) <= 1e-12  # the same frame times
    assert np.max(np.abs(again - live)) <= 1e-9
    kinds = {i["kind"] for s in json.loads(recording)["segments"] for i in s["items"]}
    assert {"set_input", "set_params", "reset", "pause", "frame"} <= kinds
