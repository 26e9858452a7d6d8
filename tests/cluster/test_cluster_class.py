"""The lecturer's view through a gateway (cluster/classes.py): /api/class on a gateway shows
the rooms of every worker, not only those it has viewers in; a lesson step saved through the
gateway (in the cluster's store) is loaded into rooms on two workers; watchers' answers
through the gateway are kept by each room's worker and tallied on its tile; a watcher's
token-less request and a wrong token get 403."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from support.adversary import wait_until
from websockets.sync.client import connect

from .conftest import FLOAT, Cluster, needs_the_bus, running

needs_the_bus()

TOKEN = "class-tok"
ROOMS = ["group-a", "group-b", "group-c"]


def _request(base: str, method: str, path: str, body: Any = None, token: str = TOKEN) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data, method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def _status(base: str, path: str, token: str) -> int:
    try:
        _request(base, "GET", path, token=token)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def _until(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of `kind` (an error, unless one is awaited, fails the test)."""
    while True:
        msg = json.loads(ws.recv(timeout=60))
        if msg["type"] == kind:
            return msg  # type: ignore[no-any-return]
        assert msg["type"] != "error", msg


def test_the_class_view_through_a_gateway_reaches_every_workers_rooms(tmp_path: Path) -> None:
    # every request and page here comes from one address: its budget fits them all (the
    # lesson's save is charged its wall time, the store's round trips on a loaded machine)
    limits = ("work_rate=50", "work_burst=50")
    with running(Cluster(tmp_path, workers=2, gateways=1, token=TOKEN, gateway_limits=limits,
                         worker_limits=limits)) as cluster:  # fmt: skip
        gate = cluster.gateways[0]
        for room in ROOMS:  # each opened by a request, on whichever worker takes it
            _request(gate, "PUT", f"api/rooms/{room}/scenario", FLOAT.model_dump(mode="json"))
        _request(gate, "PUT", "api/rooms/other/scenario", FLOAT.model_dump(mode="json"))
        tiles = _request(gate, "GET", "api/class/rooms?prefix=group-")["rooms"]
        assert [t["room"] for t in tiles] == ROOMS and all(t["bodies"] for t in tiles)
        with urllib.request.urlopen(gate + "class/", timeout=30) as page:  # the view's page
            assert b'id="select-all"' in page.read()
        assert _status(gate, "api/class/rooms", "") == 403
        assert _status(gate, "api/class/rooms", "wrong") == 403

        lesson = {"title": "Spin", "steps": [{"preset": "gyroscope", "question": "Up or down?"}]}
        lid = _request(gate, "POST", "api/lessons", lesson)["id"]
        with ExitStack() as stack:
            ws_url = gate.replace("http", "ws") + "ws?room="
            watchers = [stack.enter_context(connect(ws_url + room, open_timeout=60))
                        for room in ROOMS[:2]]  # fmt: skip
            for ws in watchers:
                _until(ws, "hello")
            step = {"type": "lesson_step", "lesson": lid, "step": 0}
            results = _request(gate, "POST", "api/class/act", {"rooms": ROOMS, "message": step})
            assert [results["results"][r]["type"] for r in ROOMS] == ["ack"] * 3, results
            for ws, text in zip(watchers, ("Down.", "up"), strict=True):
                hello = _until(ws, "hello")
                assert hello["question"]["text"] == "Up or down?", hello.get("question")
                ws.send(json.dumps({"type": "answer", "question": hello["question"]["id"],
                                    "text": text, "id": "a"}))  # fmt: skip
                assert _until(ws, "ack")["of"] == "answer"
                ws.send(json.dumps({"type": "pause", "id": "p"}))  # a watcher controls nothing
                assert _until(ws, "error")["code"] == "forbidden"
        want = [[["down", 1]], [["up", 1]], []]  # each room's worker tallied its own

        def tallies() -> list[Any]:
            tiles = _request(gate, "GET", "api/class/rooms?prefix=group-")["rooms"]
            return [t["answers"]["tally"] for t in tiles]

        assert wait_until(lambda: tallies() == want, 30), tallies()
