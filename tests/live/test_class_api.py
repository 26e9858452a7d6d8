"""The lecturer's view's API (server/classroom.py): tiles of the rooms of a prefix, and one
message carried out in many rooms, each room's viewers getting what its own controller
would have sent them; watchers and wrong tokens get 403."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from sixdof.server import Settings, create_app

TOKEN = "lecturer"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg


def test_tiles_show_the_groups_and_an_action_reaches_every_chosen_room() -> None:
    with TestClient(create_app(Settings(token=TOKEN))) as client:
        names = ["group-a", "group-b", "group-c", "other"]
        viewers = {n: client.websocket_connect(f"/ws?room={n}") for n in names}
        try:
            for ws in viewers.values():
                ws.__enter__()
                until(ws, "state")
            reply = client.get("/api/class/rooms?prefix=group-", headers=AUTH)
            assert reply.status_code == 200, reply.text
            tiles = reply.json()["rooms"]
            assert [t["room"] for t in tiles] == names[:3]
            assert all(t["viewers"] == 1 and t["running"] for t in tiles)
            assert all(len(t["bodies"][0]["Quater"]) == 4 for t in tiles)
            act = {"rooms": [*names[:2], "gone"],
                   "message": {"type": "load_scenario", "preset": "spin_up"}}  # fmt: skip
            reply = client.post("/api/class/act", json=act, headers=AUTH)
            assert reply.status_code == 200, reply.text
            results = reply.json()["results"]
            assert [results[n]["type"] for n in ("group-a", "group-b", "gone")] == [
                "ack", "ack", "error"
            ]  # fmt: skip
            for n in names[:2]:  # every viewer of those rooms gets the new hello
                assert until(viewers[n], "hello")["preset"] == "spin_up"
            tiles = client.get("/api/class/rooms?prefix=group-", headers=AUTH).json()["rooms"]
            pause = {"rooms": [t["room"] for t in tiles], "message": {"type": "pause"}}
            assert client.post("/api/class/act", json=pause, headers=AUTH).status_code == 200
            paused = client.get("/api/class/rooms?prefix=group-", headers=AUTH).json()["rooms"]
            assert not any(t["running"] for t in paused)
            assert client.get("/api/class/rooms?prefix=other", headers=AUTH).json()["rooms"][0][
                "running"
            ]
            bad = {"rooms": ["group-a"], "message": {"type": "set_params", "Mass": 2}}
            assert client.post("/api/class/act", json=bad, headers=AUTH).status_code == 422
            wrong = {"rooms": ["group-a"], "message": {"type": "load_scenario", "preset": "x"}}
            answer = client.post("/api/class/act", json=wrong, headers=AUTH).json()
            assert answer["results"]["group-a"]["type"] == "error"
        finally:
            for ws in viewers.values():
                ws.__exit__(None, None, None)


def test_a_watcher_and_a_wrong_token_get_403() -> None:
    with TestClient(create_app(Settings(token=TOKEN))) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            assert client.get("/api/class/rooms", headers=headers).status_code == 403
            act = {"rooms": ["r"], "message": {"type": "pause"}}
            assert client.post("/api/class/act", json=act, headers=headers).status_code == 403
