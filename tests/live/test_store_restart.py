"""Records kept in the data directory (sixdof.store) outlive the server: a real `sixdof
serve` is killed with SIGKILL in the middle of a burst of shares, lessons and mesh uploads
and started again on the same --data; every link acknowledged before the kill opens the room
it was made of, every lesson and mesh acknowledged is there as it was sent, and the database
passes `PRAGMA integrity_check`. The store's writes stay off the event loop."""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from support.meshes import box, stl_bytes
from support.serving import FLOAT, MAX_HELD_S, HeldLoop, Served, scenario_file
from websockets.sync.client import connect

from sixdof.server import Settings, create_app
from sixdof.server.snapshots import Snapshots
from sixdof.store import DB_NAME, open_store

ROOM = "lecture"
#: Enough budget for a burst of shares from one address (each costs at least 0.05 s of it).
LIMITS = ("--limit", "work_rate=50", "--limit", "work_burst=50")


TOKEN = "store-restart-token"


def call(server: Served, method: str, path: str, body: bytes = b"") -> Any:
    """The JSON (or bytes) answer of a request with the token."""
    request = urllib.request.Request(
        f"{server.url}{path}", body, method=method,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as reply:
        data = reply.read()
        return json.loads(data) if reply.headers["Content-Type"] == "application/json" else data


def share(server: Served, what: str = "now") -> dict[str, Any]:
    return call(server, "POST", f"/api/rooms/{ROOM}/share?what={what}")  # type: ignore[no-any-return]


def make_room(server: Served) -> None:
    call(
        server,
        "PUT",
        f"/api/rooms/{ROOM}/scenario",
        json.dumps(FLOAT.model_dump(mode="json")).encode(),
    )


def lesson(k: int) -> dict[str, Any]:
    return {"title": f"Lesson {k}", "steps": [{"preset": "gyroscope", "question": f"Q{k}?"}]}


def mesh(k: int) -> bytes:
    return stl_bytes(box(1.0 + k / 64, 0.25, 0.125))


def opened(server: Served, room: str, sid: str) -> dict[str, Any]:
    """The first state of a new room `room` made from link `sid`."""
    with connect(f"{server.ws_url}?room={room}&snapshot={sid}&token={TOKEN}", max_size=None) as ws:
        while True:
            msg = json.loads(ws.recv(timeout=30))
            assert msg["type"] != "error", msg
            if msg["type"] == "state":
                return msg


def burst(server: Served, acked: list[dict[str, Any]], stop: threading.Event) -> None:
    """Share until the server is gone (or `stop`), keeping what was acknowledged."""
    while not stop.is_set():
        try:
            acked.append(share(server))
        except (urllib.error.URLError, ConnectionError, OSError, http.client.HTTPException):
            return  # the server is gone; an answer cut short by the kill was not an ack


def records(server: Served, kept: dict[str, list[tuple[str, Any]]], stop: threading.Event) -> None:
    """Save lessons and upload meshes in turn until the server is gone (or `stop`), keeping
    each acknowledged one's id with what was sent."""
    k = 0
    while not stop.is_set():
        try:
            sent = lesson(k)
            kept["lessons"].append(
                (call(server, "POST", "/api/lessons", json.dumps(sent).encode())["id"], sent)
            )
            body = mesh(k)
            kept["meshes"].append(
                (call(server, "POST", f"/api/meshes?name=part{k}.stl", body)["id"], body)
            )
        except (urllib.error.URLError, ConnectionError, OSError, http.client.HTTPException):
            return  # the server is gone; an answer cut short by the kill was not an ack
        k += 1


def test_links_acknowledged_before_a_kill_9_open_the_same_room_after(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = Served("--data", str(data), *LIMITS, scenario=scenario_file(tmp_path, FLOAT),
                    token=TOKEN)  # fmt: skip
    try:
        make_room(server)
        with HeldLoop(server) as held:  # the store's writes do not hold the loop
            acked: list[dict[str, Any]] = []
            stop = threading.Event()
            workers = [threading.Thread(target=burst, args=(server, acked, stop)) for _ in "abc"]
            for w in workers:
                w.start()
            while len(acked) < 30:
                workers[0].join(0.05)
            stop.set()
            for w in workers:
                w.join(30)
        assert held.longest <= MAX_HELD_S, (held.longest, held.beats)

        acked.clear()
        stop = threading.Event()
        kept: dict[str, list[tuple[str, Any]]] = {"lessons": [], "meshes": []}
        workers = [threading.Thread(target=burst, args=(server, acked, stop)) for _ in "abc"]
        workers.append(threading.Thread(target=records, args=(server, kept, stop)))
        for w in workers:
            w.start()
        while len(acked) < 40 or len(kept["meshes"]) < 3:
            workers[0].join(0.02)
        server.kill()  # SIGKILL, mid-burst: requests are in flight
        server.stop()  # its output read to the end (nothing is left to stop)
        for w in workers:
            w.join(30)
        seen = list(acked)
        assert len(seen) >= 40
        lessons, meshes = list(kept["lessons"]), list(kept["meshes"])
        assert len(meshes) >= 3
        con = sqlite3.connect(data / DB_NAME)
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        con.close()

        server.start()  # the same --data, the same port
        for i, link in enumerate(seen):
            state = opened(server, f"copy-{i}", link["id"])
            assert state["t"] == link["t"] and not state["status"]["running"], (link, state)
        for lid, sent in lessons:
            got = call(server, "GET", f"/api/lessons/{lid}")
            assert got["title"] == sent["title"], (lid, got)
            assert [st["question"] for st in got["steps"]] == [
                st["question"] for st in sent["steps"]
            ]
        for mid, body in meshes:
            assert call(server, "GET", f"/api/meshes/{mid}") == body, mid
        assert server.get_json("/api/health")["status"] == "ok"
    finally:
        server.stop()
    server.check_log(TOKEN)


def test_a_full_disk_refuses_a_share_with_507_and_the_room_goes_on(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    pages = sqlite3.connect(tmp_path / DB_NAME).execute("PRAGMA page_count").fetchone()[0]
    app = create_app(Settings())
    full = open_store(tmp_path, max_page_count=pages + 16)  # ~64 KiB, then a full disk
    app.state.snapshots = Snapshots(store=full)
    with TestClient(app) as client, client.websocket_connect("/ws?room=r") as ws:
        while ws.receive_json()["type"] != "state":  # the room is there
            pass
        first = client.post("/api/rooms/r/share?what=recording")
        assert first.status_code == 200, first.text
        ws.send_json({"type": "step", "n": 3000, "id": 1})  # a recording that fills the disk
        while ws.receive_json().get("id") != 1:
            pass
        statuses = [client.post("/api/rooms/r/share?what=recording") for _ in range(8)]
        refused = [r for r in statuses if r.status_code != 200]
        assert refused and refused[0].status_code == 507, [r.status_code for r in statuses]
        assert "the disk is full" in refused[0].json()["detail"]
        ws.send_json({"type": "step", "n": 10, "id": 2})  # the room goes on
        while (msg := ws.receive_json()).get("id") != 2:
            pass
        assert msg["type"] == "ack"
        with client.websocket_connect(f"/ws?room=copy&snapshot={first.json()['id']}") as c:
            while (msg := c.receive_json())["type"] != "state":
                assert msg["type"] != "error", msg
