"""A real `sixdof serve --token` on a loopback port, attacked; a bystander watching another room.

Every attack test runs against the same server process and asserts the defended outcome
while a watcher of room `bystander` (made by the token holder) counts its state frames from
a thread. At the end of the session the server's log must hold no traceback, no HTTP 500
and never the token.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.serving import FLOAT, Served
from websockets.sync.client import connect

TOKEN = "adv-s3cret-token"
BYSTANDER = "bystander"
#: The frame rate the bystander must keep during every attack (the server runs at 60 Hz).
MIN_FPS = 55.0


def put_scenario(server: Served, room: str, scenario: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"{server.url}/api/rooms/{room}/scenario",
        data=json.dumps(scenario).encode(),
        method="PUT",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.status


class Bystander:
    """A watcher of one room, recording the arrival time of each state frame (a thread)."""

    def __init__(self, ws_url: str, room: str = BYSTANDER) -> None:
        self.url = f"{ws_url}?room={room}"
        self.times: list[float] = []
        self.arrived = threading.Condition()  # notified on every state frame
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.started.wait(20), "the bystander got no frame"

    def _run(self) -> None:
        with connect(self.url, max_size=None, max_queue=None) as ws:
            while not self.stop.is_set():
                msg = ws.recv(timeout=10)
                if isinstance(msg, str) and msg.startswith('{"type":"state"'):
                    with self.arrived:
                        self.times.append(time.monotonic())
                        self.arrived.notify_all()
                    self.started.set()

    def fps(self, t0: float, t1: float) -> float:
        return sum(t0 <= t < t1 for t in self.times) / (t1 - t0)

    def during(self, attack: Callable[[], Any], at_least: float = 2.0) -> tuple[Any, float]:
        """Run `attack`; (its result, the bystander's mean fps from its start until the later
        of its end and `at_least` s), once frames after that moment have arrived."""
        t0 = time.monotonic()
        result = attack()
        t1 = max(time.monotonic(), t0 + at_least)
        with self.arrived:  # a frame stamped after t1: the window is complete
            self.arrived.wait_for(lambda: bool(self.times) and self.times[-1] >= t1, at_least + 10)
        fps = self.fps(t0, t1)
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[-1].split(" ")[0]
        print(f"bystander: {fps:.1f} fps over {t1 - t0:.1f} s during {test}")  # -s shows it
        return result, fps


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("adversarial") / "float.json"
    path.write_text(json.dumps(FLOAT.model_dump(mode="json")))
    live = Served("--limit", "max_watcher_rooms=4", scenario=path, token=TOKEN)
    try:
        yield live
    finally:
        live.stop()
        log = "".join(live.lines)
        assert "Traceback" not in log, log[-4000:]
        assert '" 500' not in log, log[-4000:]
        assert TOKEN not in log, "the token reached the log"


@pytest.fixture(scope="session")
def bystander(server: Served) -> Iterator[Bystander]:
    assert put_scenario(server, BYSTANDER, FLOAT.model_dump(mode="json")) == 200
    watcher = Bystander(server.ws_url)
    try:
        yield watcher
    finally:
        watcher.stop.set()
        watcher.thread.join(15)


def rss_mib(server: Served) -> float:
    return server.rss_kib() / 1024


def log_of(server: Served) -> str:
    return "".join(server.lines)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture(scope="session")
def many_bodies() -> dict[str, Any]:
    """64 bodies: the largest scenario a room takes (the costly case of every attack)."""
    return {
        "name": "crowd",
        "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0], "Gravity": 0.0} for i in range(64)],
    }
