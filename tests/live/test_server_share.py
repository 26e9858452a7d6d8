"""Share links: snapshots of a room recreated in a new room, never over an existing one."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from sixdof.server import Settings, create_app


def first(ws: Any, kind: str) -> dict:
    while True:
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg


def test_a_share_link_recreates_the_room_in_a_new_room() -> None:
    with TestClient(create_app(Settings())) as client:
        with client.websocket_connect("/ws?room=orig") as ws:
            first(ws, "state")
            for i, msg in enumerate([
                {"type": "load_scenario", "preset": "spin_up"},
                {"type": "set_params", "Mass": 3.0},
                {"type": "step", "n": 1500},
                {"type": "pause"},
            ]):  # fmt: skip
                ws.send_json({**msg, "id": i})
                while ws.receive_json().get("id") != i:
                    pass
            scenario = client.get("/api/rooms/orig/scenario").json()
            shared: dict[str, dict] = {}
            for what in ("start", "now", "recording"):
                reply = client.post(f"/api/rooms/orig/share?what={what}")
                assert reply.status_code == 200, reply.text
                shared[what] = reply.json()
            assert shared["now"]["t"] > 1.4 and shared["start"]["t"] == 0.0
            for what, info in shared.items():
                with client.websocket_connect(f"/ws?room=copy-{what}&snapshot={info['id']}") as c:
                    hello = first(c, "hello")
                    assert hello["scenario"]["bodies"] == scenario["bodies"]  # Mass 3 too
                    state = first(c, "state")
                    if what == "start":
                        assert state["t"] < 0.1
                    else:
                        assert state["t"] == info["t"] and not state["status"]["running"]
                    recorded = state["status"]["recorded_from"]
                    assert recorded == (info["t"] if what == "now" else 0.0)  # the past came too
            # a link to a room that exists joins it as it is: nothing is overwritten
            with client.websocket_connect(f"/ws?room=orig&snapshot={shared['start']['id']}") as c:
                assert first(c, "state")["t"] == shared["now"]["t"]
            with client.websocket_connect("/ws?room=other&snapshot=nope") as c:
                error = c.receive_json()
                assert (error["type"], error["field"]) == ("error", "snapshot")


def test_sharing_the_recording_needs_the_token() -> None:
    with TestClient(create_app(Settings(token="tok"))) as client:
        with client.websocket_connect("/ws?room=r&token=tok") as ws:
            first(ws, "state")
            assert client.post("/api/rooms/r/share?what=recording").status_code == 403
            assert client.post("/api/rooms/r/share?what=recording&token=tok").status_code == 200
            assert client.post("/api/rooms/r/share?what=now").status_code == 200
