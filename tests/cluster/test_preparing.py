"""A worker whose numba cache is cold (a fresh install) is on the bus at once and answers
`sixdof.preparing` while it compiles; the gateway passes that message on, so a viewer
through the gateway hears within 2 s why it waits, as with `sixdof serve` (issue 32), and
so does a second viewer of the same room who comes while the first waits."""

from __future__ import annotations

import json
import time
from pathlib import Path

from websockets.sync.client import ClientConnection, connect

from sixdof.server.protocol import server_message_adapter

from .conftest import Cluster, needs_the_bus, running

needs_the_bus()

FIRST_MESSAGE_S = 2.0
COMPILE_S = 240.0  # a cold compile on a loaded test machine (~10 s when idle)


def first(ws: ClientConnection) -> tuple[dict[str, object], float]:
    opened = time.monotonic()
    msg = json.loads(ws.recv(timeout=FIRST_MESSAGE_S))
    server_message_adapter.validate_python(msg)
    return msg, time.monotonic() - opened


def test_a_cold_worker_says_through_the_gateway_that_it_is_preparing(tmp_path: Path) -> None:
    cluster = Cluster(tmp_path, workers=1, gateways=1,
                      env={"NUMBA_CACHE_DIR": str(tmp_path / "numba")})  # fmt: skip
    base = cluster.gateways[0].replace("http", "ws")
    with running(cluster):
        with connect(f"{base}ws?room=cold", open_timeout=10) as a:
            msg, took = first(a)
            assert msg["type"] == "preparing", msg
            assert msg["cold"] is True, msg
            assert "preparing the physics" in str(msg["message"])
            with connect(f"{base}ws?room=cold", open_timeout=10) as b:  # while a waits
                msg_b, took_b = first(b)
                assert msg_b["type"] == "preparing", msg_b
            kinds = []
            deadline = time.monotonic() + COMPILE_S
            while "state" not in kinds:  # compiled: the room opens and runs
                left = deadline - time.monotonic()
                assert left > 0, f"no state frame within {COMPILE_S} s: {kinds}"
                reply = json.loads(a.recv(timeout=left))
                server_message_adapter.validate_python(reply)
                kinds.append(reply["type"])
            assert kinds[0] == "hello", kinds
            ready = time.monotonic() - deadline + COMPILE_S
        print(f"preparing after {took:.2f} s (a second viewer {took_b:.2f} s), "
              f"frames after {ready:.1f} s")  # fmt: skip
        assert cluster.workers[0].wait_for(r"numba's cache is cold")
        with connect(f"{base}ws?room=later", open_timeout=10) as c:  # ready now: no preparing
            assert json.loads(c.recv(timeout=10))["type"] == "hello"
