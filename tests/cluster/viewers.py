"""A websocket viewer of a room through a gateway, keeping every frame; a push that gives
the floating body of conftest.FLOAT a known trajectory; the room's snapshot on the bus.

The body floats (no gravity, mass 2 kg); after a push of F = 50 N along y its velocity is
v_y = F/m (t − t₀) exactly (RK4 integrates a constant acceleration exactly): what "the
state is continuous" is checked against after a worker or a NATS node is lost.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from websockets.sync.client import ClientConnection, connect

from .conftest import MASS

__all__ = ["FORCE", "MASS", "Viewer", "launch_time", "push", "snapshot_after"]

FORCE = 50.0


class Viewer:
    """A websocket viewer of `room` through gateway `base`, keeping every state frame
    (arrival time, t, v_y) from a thread; `disconnected` if the socket ever closed."""

    def __init__(self, base: str, room: str) -> None:
        url = base.replace("http", "ws") + f"ws?room={room}"
        self.ws: ClientConnection = connect(url, open_timeout=30).__enter__()
        self.frames: list[tuple[float, float, float]] = []
        self.recorded_from: list[float | None] = []  # each frame's status.recorded_from
        self.hello: dict[str, Any] | None = None
        self.acks: list[dict[str, Any]] = []
        self.disconnected = False
        self.ended = "closed"
        self._new = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                msg = json.loads(self.ws.recv())
                with self._new:
                    if msg["type"] == "state":
                        v_y = msg["bodies"][0]["Vel"][1]
                        self.frames.append((time.monotonic(), msg["t"], v_y))
                        self.recorded_from.append(msg["status"]["recorded_from"])
                    elif msg["type"] == "hello":
                        self.hello = msg
                    elif msg["type"] in ("ack", "error"):
                        self.acks.append(msg)
                    self._new.notify_all()
        except Exception as exc:  # the socket closed: say how in a failing wait
            self.ended = repr(exc)
        self.disconnected = True

    def wait(self, condition: Any, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        with self._new:
            while not condition():
                left = deadline - time.monotonic()
                assert left > 0, (
                    f"not in time: {len(self.frames)} frames; "
                    f"ended: {self.disconnected and self.ended}"
                )
                self._new.wait(left)

    def frames_since(self, since: float) -> list[tuple[float, float, float]]:
        with self._new:
            return [f for f in self.frames if f[0] >= since]

    def close(self) -> None:
        self.ws.close()


def push(viewer: Viewer) -> None:
    viewer.ws.send(json.dumps({"type": "set_input", "id": 1, "body": "B", "Force": [0, FORCE, 0]}))
    viewer.wait(lambda: any(a.get("id") == 1 for a in viewer.acks))
    assert viewer.acks[-1]["type"] == "ack", viewer.acks[-1]


async def snapshot_after(url: str, room: str, t: float, timeout: float = 60.0) -> None:
    """Wait until the room's snapshot in the bus's key-value store is later than `t`
    (watching the key: its value now, then each one the owner writes)."""
    import nats

    nc = await nats.connect(servers=url.split(","))
    try:
        watcher = await (await nc.jetstream().key_value("sixdof-snapshots")).watch(room)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "no snapshot after the push"
            try:
                entry = await watcher.updates(timeout=left)
            except nats.errors.TimeoutError:
                continue  # the deadline asserts on the next round
            if entry is None or not entry.value:  # the marker after the current values
                continue
            keyframe = json.loads(entry.value)["keyframe"]
            if keyframe["t_base"] + keyframe["n_steps"] * keyframe["step_size"] > t:
                await watcher.stop()
                return
    finally:
        await nc.close()


def launch_time(frames: list[tuple[float, float, float]]) -> float:
    """t₀ of the push, from two frames after it: v_y = F/m (t − t₀)."""
    (_, t1, v1), (_, t2, v2) = frames[-2], frames[-1]
    a = (v2 - v1) / (t2 - t1)
    assert abs(a - FORCE / MASS) < 1e-6 * FORCE / MASS, a
    return t2 - v2 / a
