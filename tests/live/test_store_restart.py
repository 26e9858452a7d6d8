"""Share links kept in the data directory (sixdof.store) outlive the server: a real `sixdof
serve` is killed with SIGKILL in the middle of a burst of shares and started again on the
same --data; every link acknowledged before the kill opens the room it was made of, and the
database passes `PRAGMA integrity_check`. The store's writes stay off the event loop."""

from __future__ import annotations

import json
import sqlite3
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from support.serving import FLOAT, MAX_HELD_S, HeldLoop, Served, scenario_file
from websockets.sync.client import connect

from sixdof.server import Settings, create_app
from sixdof.server.snapshots import Snapshots
from sixdof.store import DB_NAME, open_store

ROOM = "lecture"
#: Enough budget for a burst of shares from one address (each costs at least 0.05 s of it).
LIMITS = ("--limit", "work_rate=50", "--limit", "work_burst=50")


def share(server: Served, what: str = "now") -> dict[str, Any]:
    request = urllib.request.Request(f"{server.url}/api/rooms/{ROOM}/share?what={what}", b"")
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())  # type: ignore[no-any-return]


def make_room(server: Served) -> None:
    body = json.dumps(FLOAT.model_dump(mode="json")).encode()
    request = urllib.request.Request(
        f"{server.url}/api/rooms/{ROOM}/scenario", body, method="PUT",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as reply:
        assert reply.status == 200


def opened(server: Served, room: str, sid: str) -> dict[str, Any]:
    """The first state of a new room `room` made from link `sid`."""
    with connect(f"{server.ws_url}?room={room}&snapshot={sid}", max_size=None) as ws:
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
        except (urllib.error.URLError, ConnectionError, OSError):
            return


def test_links_acknowledged_before_a_kill_9_open_the_same_room_after(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = Served("--data", str(data), *LIMITS, scenario=scenario_file(tmp_path, FLOAT))
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
        workers = [threading.Thread(target=burst, args=(server, acked, stop)) for _ in "abcd"]
        for w in workers:
            w.start()
        while len(acked) < 40:
            workers[0].join(0.02)
        server.kill()  # SIGKILL, mid-burst: requests are in flight
        server.stop()  # its output read to the end (nothing is left to stop)
        for w in workers:
            w.join(30)
        seen = list(acked)
        assert len(seen) >= 40
        con = sqlite3.connect(data / DB_NAME)
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        con.close()

        server.start()  # the same --data, the same port
        for i, link in enumerate(seen):
            state = opened(server, f"copy-{i}", link["id"])
            assert state["t"] == link["t"] and not state["status"]["running"], (link, state)
        assert server.get_json("/api/health")["status"] == "ok"
    finally:
        server.stop()
    server.check_log()


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
