"""Classroom mode: a token from SIXDOF_TOKEN, the control and watch URLs, rooms per group,
and the Origin rule behind a reverse proxy (docs/deploy.md).

That a watch-only client's commands are refused with a clear error (code `forbidden`,
field `token`, nothing changes) while the token holder's are accepted is tested message by
message in test_server_ws.py::test_token_lets_anyone_watch_but_only_holders_control; here
the same rule is followed through what a class actually does: the printed URLs, a room
per group, and a proxy in front.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect

from sixdof.cli import TOKEN_ENV, main
from sixdof.server import Settings, create_app
from sixdof.server.launch import announcement

TOKEN = "s3cret-Token"
SITE = "https://lab.example.org"
#: What nginx sends for the snippet in docs/deploy.md (Host kept, X-Forwarded-* added).
PROXIED = {
    "host": "lab.example.org",
    "origin": SITE,
    "x-forwarded-for": "10.0.0.7",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "lab.example.org",
}


def _fake_launch(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    fake = types.ModuleType("sixdof.server.launch")
    fake.serve = lambda **kw: calls.append(kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sixdof.server.launch", fake)
    return calls


def test_serve_takes_its_token_from_sixdof_token(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_launch(monkeypatch)
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    assert main(["serve"]) == 0 and calls[-1]["token"] == TOKEN
    assert main(["serve", "--token", "other"]) == 0 and calls[-1]["token"] == "other"
    assert main(["serve", "--token", ""]) == 0 and calls[-1]["token"] is None  # explicit: none
    monkeypatch.setenv(TOKEN_ENV, "")  # docker-compose passes an unset variable as ""
    assert main(["serve"]) == 0 and calls[-1]["token"] is None
    monkeypatch.delenv(TOKEN_ENV)
    assert main(["serve"]) == 0 and calls[-1]["token"] is None
    assert len(calls) == 5


def test_the_announcement_gives_control_and_watch_urls() -> None:
    hidden = announcement("0.0.0.0", 8000, TOKEN, lan="192.168.1.20", reveal=False)
    assert TOKEN not in "".join(hidden) and hidden[0].endswith("/?token=%2A%2A%2A")
    lines = announcement("0.0.0.0", 8000, TOKEN, lan="192.168.1.20")
    assert lines[0] == f"sixdof: serving http://127.0.0.1:8000/?token={TOKEN}"
    control = next(line for line in lines if line.startswith("sixdof: control"))
    watch = next(line for line in lines if line.startswith("sixdof: watch"))
    assert control.endswith(f"http://192.168.1.20:8000/?token={TOKEN}")
    assert watch.endswith("http://192.168.1.20:8000/") and "token" not in watch
    assert any("?room=NAME" in line for line in lines)
    assert not any("anyone can control" in line for line in lines)
    # no token on a wildcard bind: a warning, and the address others open
    open_lines = announcement("0.0.0.0", 8000, None, lan="192.168.1.20")
    assert "sixdof: on other machines: http://192.168.1.20:8000/" in open_lines
    assert any("anyone can control it" in line for line in open_lines)
    # no address found (e.g. in a container): the loopback URL is still there, no LAN line
    assert not any("192.168" in line for line in announcement("0.0.0.0", 8000, TOKEN, lan=None))
    # a local server says nothing about other machines
    local = announcement("127.0.0.1", 8123, None)
    assert local[0] == "sixdof: serving http://127.0.0.1:8123/" and len(local) == 2


@contextmanager
def _client(**settings: Any) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(host="0.0.0.0", token=TOKEN, **settings))) as client:
        yield client


def _next(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(400):
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind}")


def _reply(ws: Any, payload: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps(payload))
    for _ in range(400):
        msg = ws.receive_json()
        if msg["type"] in ("ack", "error"):
            return msg
    raise AssertionError("no reply")


def test_behind_a_proxy_the_site_origin_must_be_allowed() -> None:
    """A proxy that keeps Host: Origin and Host agree, but a DNS name is not trusted by
    itself (DNS rebinding), so the site must be named with --allow-origin."""
    with _client() as client:
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect("/ws?room=g1", headers=PROXIED):
                pass
        assert refused.value.code == 1008
    with _client(allowed_origins=[SITE]) as client:
        with client.websocket_connect("/ws?room=g1", headers=PROXIED) as ws:
            assert _next(ws, "hello")["can_control"] is False


def test_a_room_per_group_lecturer_steers_students_watch() -> None:
    with _client(allowed_origins=[SITE]) as client:
        lecturer = f"/ws?room=group1&token={TOKEN}"
        with (
            client.websocket_connect("/ws?room=group1", headers=PROXIED) as student,
            client.websocket_connect(lecturer, headers=PROXIED) as teacher,
            client.websocket_connect("/ws?room=group2", headers=PROXIED) as other,
        ):
            assert _next(teacher, "hello")["can_control"] is True
            hello = _next(student, "hello")
            assert (hello["can_control"], hello["room"]) == (False, "group1")
            refused = _reply(student, {"type": "pause", "id": 3})
            assert (refused["code"], refused["field"], refused["id"]) == ("forbidden", "token", 3)
            assert "token" in refused["message"] and "watch" in refused["message"]
            assert _next(student, "state")["status"]["running"] is True
            assert _reply(teacher, {"type": "pause", "id": 4})["type"] == "ack"
            frame = _next(student, "state")
            while frame["status"]["running"]:
                frame = _next(student, "state")
            # group2 is another simulation: the lecturer's pause in group1 did not touch it
            assert _next(other, "state")["status"]["running"] is True
        rooms = client.get("/api/health").json()["rooms"]
        assert rooms == 2


URL = re.compile(r"http://127\.0\.0\.1:\d+/\S*")


def test_serve_prints_urls_that_control_and_watch() -> None:
    """A real `sixdof serve` with SIXDOF_TOKEN: its printed control URL controls, its watch
    URL watches."""
    env = {**os.environ, TOKEN_ENV: TOKEN, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0"]
    # A terminal, as the lecturer's: the token is shown there (in a log it would be ***).
    terminal, its_end = pty.openpty()
    proc = subprocess.Popen(cmd, env=env, stdout=its_end, stderr=its_end)
    os.close(its_end)
    lines: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        with open(terminal, encoding="utf-8", errors="replace") as out:
            try:
                for line in out:
                    lines.append(line.replace("\r", ""))
                    if line.startswith("sixdof: watch"):
                        ready.set()
            except OSError:  # EIO: the server's end of the terminal closed
                pass

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        assert ready.wait(90.0), "".join(lines)
        control = URL.search(next(x for x in lines if x.startswith("sixdof: control"))).group()  # type: ignore[union-attr]
        watch = URL.search(next(x for x in lines if x.startswith("sixdof: watch"))).group()  # type: ignore[union-attr]
        assert parse_qs(urlsplit(control).query) == {"token": [TOKEN]}
        assert urlsplit(watch).query == ""
        for url, allowed in ((control, True), (watch, False)):
            parts = urlsplit(url)
            query = f"room=cls&{parts.query}" if parts.query else "room=cls"
            with connect(f"ws://{parts.netloc}/ws?{query}", open_timeout=30) as ws:
                hello = json.loads(ws.recv(timeout=30))
                if hello["type"] == "preparing":  # the first join: the physics loads first
                    hello = json.loads(ws.recv(timeout=60))
                assert hello["type"] == "hello" and hello["can_control"] is allowed
                ws.send(json.dumps({"type": "pause", "id": 1}))
                reply = json.loads(ws.recv(timeout=30))
                while reply["type"] not in ("ack", "error"):
                    reply = json.loads(ws.recv(timeout=30))
                assert reply["type"] == ("ack" if allowed else "error")
    finally:
        proc.terminate()
        proc.wait(15)
        reader.join(5)
    assert "Traceback" not in "".join(lines)
