"""Lessons and saved scenarios over REST (server/lessons.py): token-gated, checked when
saved, what they name pinned against the store's caps, kept in the data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app
from sixdof.store import Caps

TOKEN = "lecturer"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _share(client: TestClient, room: str = "r") -> str:
    reply = client.post(f"/api/rooms/{room}/share?what=now", headers=AUTH)
    assert reply.status_code == 200, reply.text
    return str(reply.json()["id"])


def _room(client: TestClient) -> Any:
    ws = client.websocket_connect(f"/ws?room=r&token={TOKEN}")
    return ws


def test_a_lesson_is_saved_listed_read_and_its_links_kept(tmp_path: Path) -> None:
    app = create_app(Settings(token=TOKEN, data=str(tmp_path)))
    inline = PRESETS["tennis_racket"].scenario().model_dump(mode="json")
    with TestClient(app) as client, _room(client) as ws:
        while ws.receive_json()["type"] != "state":
            pass
        app.state.store.limit("share", "held", Caps(max_count=2, max_bytes=10**9))
        saved = client.post("/api/scenarios", json=inline, headers=AUTH)
        assert saved.status_code == 200, saved.text
        again = client.post("/api/scenarios", json=inline, headers=AUTH)
        assert again.json()["id"] == saved.json()["id"]  # the same scenario, kept once
        link = _share(client)
        lesson = {"title": "Tennis racket theorem", "steps": [
            {"preset": "spin_up", "question": "Will it stay upright?"},
            {"scenario": saved.json()["id"], "question": "Which axis flips?"},
            {"share": link, "question": "What happens next?"},
            {"scenario": PRESETS["free_fall"].scenario().model_dump(mode="json")},
        ]}  # fmt: skip
        reply = client.post("/api/lessons", json=lesson, headers=AUTH)
        assert reply.status_code == 200, reply.text
        lid = reply.json()["id"]
        assert reply.json()["steps"] == 4
        for _ in range(4):  # newer links push out the oldest unpinned ones, not the lesson's
            _share(client)
        got = client.get(f"/api/lessons/{lid}", headers=AUTH).json()
        assert [s.get("preset") or s.get("scenario") or s.get("share") for s in got["steps"]][
            :3
        ] == ["spin_up", saved.json()["id"], link]
        inline_id = got["steps"][3]["scenario"]
        free_fall = client.get(f"/api/scenarios/{inline_id}", headers=AUTH).json()
        assert (
            free_fall["bodies"] == PRESETS["free_fall"].scenario().model_dump(mode="json")["bodies"]
        )
        with client.websocket_connect(f"/ws?room=copy&snapshot={link}") as c:
            while (msg := c.receive_json())["type"] != "state":
                assert msg["type"] != "error", msg
        listed = client.get("/api/lessons", headers=AUTH).json()
        assert [(x["id"], x["title"], x["steps"]) for x in listed] == [
            (lid, "Tennis racket theorem", 4)
        ]
        # deleting the lesson unpins its link: the next share pushes it out
        assert client.delete(f"/api/lessons/{lid}", headers=AUTH).status_code == 200
        _share(client)
        assert app.state.snapshots.get(link) is None
    # the data directory keeps the saved scenarios across a restart
    with TestClient(create_app(Settings(token=TOKEN, data=str(tmp_path)))) as client:
        ids = [s["id"] for s in client.get("/api/scenarios", headers=AUTH).json()]
        assert saved.json()["id"] in ids and inline_id in ids


def test_lessons_need_the_token_and_name_what_they_cannot_find() -> None:
    with TestClient(create_app(Settings(token=TOKEN))) as client:
        lesson = {"title": "t", "steps": [{"preset": "spin_up"}]}
        for method, path in [("post", "/api/lessons"), ("get", "/api/lessons"),
                             ("get", "/api/lessons/x"), ("delete", "/api/lessons/x"),
                             ("post", "/api/scenarios"), ("get", "/api/scenarios")]:  # fmt: skip
            reply = client.request(method.upper(), path, json=lesson)
            assert reply.status_code == 403, (path, reply.text)
        bad = {"title": "t", "steps": [{"preset": "spin_up"}, {"share": "nope"}]}
        reply = client.post("/api/lessons", json=bad, headers=AUTH)
        assert reply.status_code == 422
        assert reply.json()["detail"][0]["loc"] == ["body", "steps", "1", "share"]
        assert "no Share link 'nope'" in reply.json()["detail"][0]["msg"]
        two = {"title": "t", "steps": [{"preset": "spin_up", "share": "x"}]}
        reply = client.post("/api/lessons", json=two, headers=AUTH)
        assert reply.status_code == 422 and "exactly one" in reply.text
        unknown = {"title": "t", "steps": [{"preset": "no_such_preset"}]}
        reply = client.post("/api/lessons", json=unknown, headers=AUTH)
        assert reply.status_code == 422 and "steps.0.preset" in reply.text
        assert client.get("/api/lessons", headers=AUTH).json() == []
