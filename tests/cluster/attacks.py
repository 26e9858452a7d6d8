"""Hostile requests against a cluster, and the one-gateway cluster they run on: room names and
Share ids with NATS subject characters, messages larger than the bus. Used by the cluster tier
and the timing tier's figures of the same attacks."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from sixdof.scenario import BodySpec, Scenario

from .conftest import FLOAT, Cluster, http, running

TOKEN = "T-bus"
MAX_PAYLOAD = 32 * 1024
HOSTILE = ["a.b", "*", ">", "a b", "lab.cmd", "a*", "x.>", "\t", "a\r\nPUB x 1", "é"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    # NATS carries at most 32 KiB a message here (1 MiB by default): a 64-body room's
    # answers outgrow it at once, and a body under the gateway's 64 KiB limit may not fit
    c = Cluster(tmp_path_factory.mktemp("attacks"), 1, 1, token=TOKEN,
                nats_max_payload=MAX_PAYLOAD)  # fmt: skip
    with running(c, "lost its NATS server"):
        yield c


def hostile_requests(base: str) -> None:
    """Every hostile room name through gateway `base`'s websocket and four REST calls, and
    hostile Share link ids: each refused naming the field, before the bus."""
    for name in HOSTILE:
        quoted = urllib.parse.quote(name, safe="")
        ws_url = base.replace("http", "ws") + f"ws?room={quoted}&token={TOKEN}"
        with connect(ws_url, open_timeout=30) as ws:
            error = json.loads(ws.recv(timeout=30))
            assert error["type"] == "error" and error["field"] == "room", (name, error)
        for method, path, body in (
            ("GET", "stats", None),
            ("GET", "history.csv", None),
            ("PUT", "scenario", json.dumps(FLOAT.model_dump(mode="json")).encode()),
            ("POST", "share", b"{}"),
        ):
            status, answer = http(method, f"{base}api/rooms/{quoted}/{path}?token={TOKEN}",
                                  body)  # fmt: skip
            # refused naming the room, as `sixdof serve` does, before the bus
            assert status in (404, 422), (name, method, path, status, answer)
            if status == 422:
                assert answer["detail"][0]["loc"] == ["path", "room"], answer
    # a Share link's id is checked before it becomes a key
    for sid in ("*", ">", "a.b", "x" * 5000):
        query = urllib.parse.urlencode({"room": "share-attack", "snapshot": sid})
        with connect(base.replace("http", "ws") + f"ws?{query}", open_timeout=30) as ws:
            error = json.loads(ws.recv(timeout=30))
            assert error["type"] == "error" and error["field"] == "snapshot", error


def many_bodies(n: int) -> dict[str, Any]:
    body = FLOAT.bodies[0]
    bodies = [BodySpec(**{**body.model_dump(), "Name": f"B{i}"}) for i in range(n)]
    # defaults left out: with every field written out (the body's mesh and mass fields grew)
    # 64 bodies no longer fit the gateway's message for a scenario on this 32 KiB bus
    scenario = Scenario(**{**FLOAT.model_dump(), "bodies": bodies})
    return scenario.model_dump(mode="json", exclude_defaults=True)
