"""A worker whose numba cache is cold (a fresh install) is on the bus at once and answers
`sixdof.preparing` while it compiles; the gateway passes that message on, so a viewer
through the gateway hears within 2 s why it waits, as with `sixdof serve` (issue 32), and
so does a second viewer of the same room who comes while the first waits."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest
from support.coldcache import held_compile, partly_cold
from websockets.sync.client import ClientConnection, connect

from sixdof.server.protocol import server_message_adapter

from .conftest import Cluster, needs_the_bus, running

needs_the_bus()

#: A failure bound, not a figure: how soon the first message comes is the timing tier's.
WAIT_S = 300.0


def first(ws: ClientConnection) -> tuple[dict[str, object], float]:
    opened = time.monotonic()
    msg = json.loads(ws.recv(timeout=WAIT_S))
    server_message_adapter.validate_python(msg)
    return msg, time.monotonic() - opened


def test_a_cold_worker_says_through_the_gateway_that_it_is_preparing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    partly_cold(tmp_path / "numba", monkeypatch)
    with contextlib.ExitStack() as hold:
        # the worker starts its compile at start-up: held from then on, not from the first
        # viewer's connection, which a loaded machine let come after the compile had ended
        def hold_the_compile(c: Cluster) -> None:
            hold.enter_context(held_compile(c.workers[0].pid))

        cluster = Cluster(tmp_path, workers=1, gateways=1, after_workers=hold_the_compile)
        base = cluster.gateways[0].replace("http", "ws")
        with running(cluster):
            with connect(f"{base}ws?room=cold", open_timeout=WAIT_S) as a:
                msg, took = first(a)
                assert msg["type"] == "preparing", msg
                assert msg["cold"] is True, msg
                assert "preparing the physics" in str(msg["message"])
                with connect(f"{base}ws?room=cold", open_timeout=WAIT_S) as b:  # while a waits
                    msg_b, took_b = first(b)
                    assert msg_b["type"] == "preparing", msg_b
                hold.close()  # the compile goes on
                kinds = []
                started = time.monotonic()
                while "state" not in kinds:  # compiled: the room opens and runs
                    reply = json.loads(a.recv(timeout=WAIT_S))
                    server_message_adapter.validate_python(reply)
                    kinds.append(reply["type"])
                assert kinds[0] == "hello", kinds
                ready = time.monotonic() - started
            print(f"preparing after {took:.2f} s (a second viewer {took_b:.2f} s), "
                  f"frames after {ready:.1f} s")  # fmt: skip
            assert cluster.workers[0].wait_for(r"numba's cache is cold")
            with connect(f"{base}ws?room=later", open_timeout=10) as c:  # ready now: no preparing
                assert json.loads(c.recv(timeout=10))["type"] == "hello"
