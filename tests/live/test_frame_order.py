"""A change's ack and hello come before any frame of the world after it, never a frame of the
world before it: the room's frames are made in a worker thread while a change may be carried
out in another (issue 40), and a frame made meanwhile is dropped, not sent after the ack."""

from __future__ import annotations

import json
from typing import Any

from support.serving import Served
from websockets.sync.client import connect


def world(n: int) -> dict[str, Any]:
    return {"name": f"w{n}", "bodies": [{"Name": f"B{i}", "Gravity": 0.0, "Pos": [i, 0, 0]}
                                          for i in range(n)]}  # fmt: skip


def test_no_frame_of_the_world_before_comes_after_a_loads_ack() -> None:
    server = Served()
    try:
        with connect(f"{server.ws_url}?room=order", max_size=None, max_queue=None) as ws:
            stale = 0
            for k in range(40):  # the race is a matter of timing: many loads, each checked
                n = 1 + k % 2 * 63  # 1, 64, 1, 64, ... bodies: a load of some ms
                ws.send(json.dumps({"type": "load_scenario", "scenario": world(n), "id": k}))
                acked = hello = False
                frames_after = 0
                while frames_after < 3:
                    msg = json.loads(ws.recv(timeout=30))
                    if msg["type"] == "ack" and msg.get("id") == k:
                        acked = True
                    elif msg["type"] == "hello" and acked:
                        hello = msg["scenario"]["name"] == f"w{n}"
                    elif msg["type"] == "state" and hello:
                        frames_after += 1
                        stale += len(msg["bodies"]) != n
                    elif msg["type"] == "error":
                        raise AssertionError(msg)
            assert stale == 0, f"{stale} frames of the world before came after a load's hello"
    finally:
        server.stop()
