"""What a browser sees through a gateway is what `sixdof serve` shows: the token, watchers,
auth, REST under /api/rooms/<room>/, binary frames; and a room nobody watches closes.

One cluster (nats-server, two workers, two gateways, token `T`, rooms closing 1 s after
their last viewer) for the module."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from sixdof.server.binary import decode_state

from .conftest import Cluster, needs_the_bus, running

needs_the_bus()

TOKEN = "T-cluster"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("cluster"), 2, 2, token=TOKEN, room_ttl=1.0)
    with running(c, TOKEN):  # the token never in a log line
        yield c


def ws(base: str, query: str) -> ClientConnection:
    return connect(base.replace("http", "ws") + f"ws?{query}", open_timeout=30).__enter__()


def until(conn: ClientConnection, kind: str, timeout: float = 15.0) -> Any:
    """The next message of `kind` (JSON type, or "binary" for a binary frame)."""
    deadline = time.monotonic() + timeout
    while True:
        data = conn.recv(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(data, bytes):
            if kind == "binary":
                return data
            continue
        msg = json.loads(data)
        if msg["type"] == kind:
            return msg


def put(base: str, room: str, scenario: dict[str, Any], token: str | None) -> int:
    query = f"?token={token}" if token else ""
    request = urllib.request.Request(
        f"{base}api/rooms/{room}/scenario{query}", data=json.dumps(scenario).encode(),
        method="PUT", headers={"Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


def test_a_watcher_watches_and_the_token_controls(lab: Cluster) -> None:
    watcher = ws(lab.gateways[0], "room=auth")
    try:
        hello = until(watcher, "hello")
        assert hello["can_control"] is False and hello["room"] == "auth"
        watcher.send(json.dumps({"type": "pause", "id": 1}))
        error = until(watcher, "error")
        assert (error["code"], error["id"]) == ("forbidden", 1)
        watcher.send(json.dumps({"type": "auth", "id": 2, "token": TOKEN}))
        assert until(watcher, "ack")["of"] == "auth"
        assert until(watcher, "hello")["can_control"] is True
        watcher.send(json.dumps({"type": "pause", "id": 3}))
        assert until(watcher, "ack")["id"] == 3
        frame = until(watcher, "state")
        assert frame["status"]["running"] is False  # the worker paused it
    finally:
        watcher.close()


def test_rest_reaches_the_rooms_worker_after_the_gateway_checks_the_token(lab: Cluster) -> None:
    scenario = {"name": "heavy", "bodies": [{"Name": "H", "Mass": 7.0, "Gravity": 0.0}]}
    assert put(lab.gateways[0], "rest", scenario, None) == 403
    assert not any("room rest" in p.output for p in lab.workers)  # no worker was asked
    viewer = ws(lab.gateways[1], f"room=rest&token={TOKEN}")
    try:
        assert until(viewer, "hello")["scenario"]["name"] == "float"
        assert put(lab.gateways[0], "rest", scenario, TOKEN) == 200  # via the other gateway
        hello = until(viewer, "hello")
        assert hello["scenario"]["name"] == "heavy" and hello["scenario"]["bodies"][0]["Mass"] == 7
        with urllib.request.urlopen(f"{lab.gateways[0]}api/rooms/rest/scenario") as r:
            assert json.loads(r.read())["name"] == "heavy"
        with urllib.request.urlopen(
            f"{lab.gateways[1]}api/rooms/rest/history.csv?token={TOKEN}"
        ) as r:
            header = r.read().split(b"\n", 1)[0]
        assert header.startswith(b"Time,H.Pos[0]")
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{lab.gateways[0]}api/rooms/nobody/stats")
        assert missing.value.code == 404
        missing.value.close()
    finally:
        viewer.close()


def test_binary_frames_through_a_gateway(lab: Cluster) -> None:
    plain = ws(lab.gateways[0], "room=bin")
    packed = ws(lab.gateways[1], "room=bin&frames=binary")
    try:
        assert until(plain, "hello")["frames"] == "json"
        assert until(packed, "hello")["frames"] == "binary"
        times_json = {until(plain, "state")["t"] for _ in range(30)}
        times_bin = {decode_state(until(packed, "binary"))["t"] for _ in range(30)}
        assert len(times_json & times_bin) >= 5  # the same frames of the one simulation
    finally:
        plain.close()
        packed.close()


def test_a_room_nobody_watches_closes_on_its_worker(lab: Cluster) -> None:
    viewer = ws(lab.gateways[0], "room=brief")
    until(viewer, "state")
    owner = lab.owner("brief")
    viewer.close()
    # presence stops: the worker counts the gateway gone (3.5 s), waits room_ttl (1 s)
    owner.wait_for(r"worker w-\w+ left room brief", timeout=15)
    # its lease and snapshot went with it: a new viewer opens it afresh, from t = 0
    again = ws(lab.gateways[1], "room=brief")
    try:
        assert until(again, "state")["t"] < 1.0
    finally:
        again.close()


def test_a_share_link_made_through_one_gateway_opens_through_another(lab: Cluster) -> None:
    origin = ws(lab.gateways[0], f"room=orig&token={TOKEN}")
    try:
        until(origin, "hello")
        origin.send(json.dumps({"type": "set_input", "id": 1, "body": "B", "Force": [0, 4, 0]}))
        assert until(origin, "ack")["id"] == 1
        until(origin, "state")
        origin.send(json.dumps({"type": "pause", "id": 2}))
        assert until(origin, "ack")["id"] == 2
        request = urllib.request.Request(f"{lab.gateways[0]}api/rooms/orig/share?what=now",
                                         method="POST")  # fmt: skip
        with urllib.request.urlopen(request, timeout=30) as r:
            shared = json.loads(r.read())
        assert shared["t"] > 0
    finally:
        origin.close()
    copy = ws(lab.gateways[1], f"room=copy&snapshot={shared['id']}")
    try:
        hello = until(copy, "hello")
        assert hello["scenario"]["bodies"][0]["Force"] == [0, 4, 0]  # the constant input came
        frame = until(copy, "state")
        assert frame["t"] == pytest.approx(shared["t"], abs=1e-9)  # paused where it was shared
        assert frame["status"]["running"] is False
    finally:
        copy.close()
    for bad in ("nosuchsnapshot", "..%2Fx"):  # unknown, and not even a key
        refused = ws(lab.gateways[1], f"room=copy2&snapshot={bad}")
        try:
            error = until(refused, "error")
            assert error["field"] == "snapshot" and "no such snapshot" in error["message"]
        finally:
            refused.close()
