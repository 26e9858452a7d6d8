"""Students' answers to a room's prediction question and the lecturer's tally
(server/answers.py, classroom.py), and a lesson stepped through from the lecturer's view:
watchers answer, one answer per connection per question, an answer to an old question is
refused, and a lesson step's question reaches every viewer in its hello."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app

TOKEN = "lecturer"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg


def reply_to(ws: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Send `msg` with an id; the ack or error that answers it."""
    ws.send_json({**msg, "id": "x"})
    while True:
        got = ws.receive_json()
        if got["type"] in ("ack", "error") and got.get("id") == "x":
            return got


def act(client: TestClient, rooms: list[str], message: dict[str, Any]) -> Any:
    return client.post("/api/class/act", json={"rooms": rooms, "message": message}, headers=AUTH)


def tile(client: TestClient, room: str) -> dict[str, Any]:
    tiles = client.get(f"/api/class/rooms?prefix={room}", headers=AUTH).json()["rooms"]
    return dict(tiles[0])


def test_watchers_answer_the_preset_question_and_the_tile_tallies_them() -> None:
    with TestClient(create_app(Settings(token=TOKEN))) as client:
        pages = [client.websocket_connect("/ws?room=group-a") for _ in range(4)]
        try:
            for ws in pages:
                ws.__enter__()
                assert until(ws, "hello")["can_control"] is False
            no_question = reply_to(pages[0], {"type": "answer", "question": 1, "text": "flip"})
            assert no_question["type"] == "error" and "asks no question" in no_question["message"]
            reply = act(client, ["group-a"], {"type": "load_scenario", "preset": "tennis_racket"})
            assert reply.json()["results"]["group-a"]["type"] == "ack"
            asked = [until(ws, "hello")["question"] for ws in pages]
            assert asked[0]["preset"] == "tennis_racket"
            assert asked[0]["text"] == PRESETS["tennis_racket"].question != ""
            assert all(q == asked[0] for q in asked)
            qid = asked[0]["id"]
            texts = ["It flips over.", "it  flips over", "Nothing", "stays"]
            for ws, text in zip(pages, texts, strict=True):
                assert (
                    reply_to(ws, {"type": "answer", "question": qid, "text": text})["type"] == "ack"
                )
            # one answer per page: the last page changes its mind, counted once
            assert (
                reply_to(pages[3], {"type": "answer", "question": qid, "text": "Nothing!"})["type"]
                == "ack"
            )
            stale = reply_to(pages[0], {"type": "answer", "question": qid + 5, "text": "x"})
            assert stale["type"] == "error" and stale["field"] == "question"
            empty = reply_to(pages[0], {"type": "answer", "question": qid, "text": " ?! "})
            assert empty["type"] == "error" and empty["field"] == "text"
            answers = tile(client, "group-a")["answers"]
            assert answers["question"]["id"] == qid and answers["answers"] == 4
            assert answers["tally"] == [["it flips over", 2], ["nothing", 2]]
            assert answers["others"] == 0
            # the next scenario without a question: the tally goes with the question
            free = PRESETS["free_fall"].scenario().model_dump(mode="json")
            assert (
                act(client, ["group-a"], {"type": "load_scenario", "scenario": free}).status_code
                == 200
            )
            assert until(pages[0], "hello")["question"] is None
            assert tile(client, "group-a")["answers"] is None
        finally:
            for ws in pages:
                ws.__exit__(None, None, None)


def test_the_lecturer_steps_the_rooms_through_a_lesson(tmp_path: Path) -> None:
    app = create_app(Settings(token=TOKEN, data=str(tmp_path)))
    with TestClient(app) as client:
        with client.websocket_connect(f"/ws?room=src&token={TOKEN}") as src:
            until(src, "state")
            reply_to(src, {"type": "load_scenario", "preset": "spin_up"})
            link = client.post("/api/rooms/src/share?what=now", headers=AUTH).json()["id"]
        saved = client.post(
            "/api/scenarios", json=PRESETS["projectile"].scenario().model_dump(mode="json"),
            headers=AUTH,
        ).json()["id"]  # fmt: skip
        lesson = {"title": "Spin", "steps": [
            {"preset": "tennis_racket", "question": "Which way will the handle turn?"},
            {"preset": "free_fall"},
            {"scenario": saved, "question": "Where does it land?"},
            {"share": link, "question": "How fast will it spin at 10 s?"},
        ]}  # fmt: skip
        lid = client.post("/api/lessons", json=lesson, headers=AUTH).json()["id"]
        rooms = ["group-a", "group-b"]
        pages = [client.websocket_connect(f"/ws?room={r}") for r in rooms]
        try:
            for ws in pages:
                ws.__enter__()
                until(ws, "hello")
            seen = []
            for i in range(4):
                reply = act(client, rooms, {"type": "lesson_step", "lesson": lid, "step": i})
                assert reply.status_code == 200, reply.text
                assert all(r["type"] == "ack" for r in reply.json()["results"].values())
                hellos = [until(ws, "hello") for ws in pages]
                assert hellos[0]["question"] == hellos[1]["question"]
                seen.append((hellos[0]["scenario"]["name"], hellos[0]["question"]))
            names = [PRESETS[p].scenario().name for p in ("tennis_racket", "free_fall",
                                                         "projectile", "spin_up")]  # fmt: skip
            assert [name for name, _ in seen] == names
            questions = [q and (q["text"], q["preset"]) for _, q in seen]
            assert questions == [
                ("Which way will the handle turn?", None),  # the step's own, as written
                (PRESETS["free_fall"].question, "free_fall"),  # the preset's own
                ("Where does it land?", None),
                ("How fast will it spin at 10 s?", None),
            ]
            missing = act(client, rooms, {"type": "lesson_step", "lesson": "nope", "step": 0})
            assert missing.status_code == 404
            past = act(client, rooms, {"type": "lesson_step", "lesson": lid, "step": 4})
            assert past.status_code == 422 and "steps 0 to 3" in past.text
        finally:
            for ws in pages:
                ws.__exit__(None, None, None)
