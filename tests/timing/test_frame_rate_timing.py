"""A room's pace on the clock: 60 frames a second by the server's own clock (within 10 %),
simulated time keeping pace with wall time (within 5 %), for one client and for fifty with one
that never reads. The live tier checks what the frames carry; these are the rates, which a
loaded machine bends."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from support.serving import Served, scenario_file
from websockets.sync.client import connect

FRAME_RATE = 60.0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(scenario=scenario_file(tmp_path_factory.mktemp("rate")))
    yield server
    server.stop()


def pace(server: Served, room: str, seconds: float) -> tuple[float, float]:
    """(frames per second, simulated s per wall s) of `room` by the server's clock."""
    before = server.get_json(f"/api/rooms/{room}/stats")
    time.sleep(seconds)  # the window measured: a figure of the timing tier
    after = server.get_json(f"/api/rooms/{room}/stats")
    wall = after["ticked_at"] - before["ticked_at"]
    return (after["seq"] - before["seq"]) / wall, (after["t"] - before["t"]) / wall


def test_a_watched_room_ticks_at_60_hz_in_real_time(served: Served) -> None:
    with connect(f"{served.ws_url}?room=paced", max_size=None) as ws:
        while json.loads(ws.recv(timeout=30))["type"] != "state":
            pass
        rate, rtf = pace(served, "paced", 2.0)
    print(f"{rate:.1f} frames/s, {rtf:.3f} simulated s per s")
    assert abs(rate - FRAME_RATE) < 0.1 * FRAME_RATE, rate
    assert abs(rtf - 1.0) < 0.05, rtf
