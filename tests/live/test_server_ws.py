"""The websocket protocol through FastAPI's TestClient: every message type, every bad input.

Each refused message is checked three ways: the `error` reply (code, field, the range in
the message, the echoed id), the simulation unchanged (paused, so the next state frame must
equal the one before, and the scenario over REST too), and the connection still usable.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from sixdof.scenario import BodySpec, Scenario
from sixdof.server import Settings, create_app
from sixdof.server import ws as ws_module
from sixdof.server.protocol import SERVER_MESSAGES, server_message_adapter

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

H = 1e-3  # the presets' step, s


@contextmanager
def server(**overrides: Any) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(**overrides))) as client:
        yield client


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with server(room_ttl=1.0) as c:  # rooms of finished tests go away
        yield c


def recv(ws: Any, *types: str, limit: int = 400) -> dict[str, Any]:
    """The next message of one of `types`, skipping others; each is checked against its model."""
    for _ in range(limit):
        msg = ws.receive_json()
        server_message_adapter.validate_python(msg)
        if msg["type"] in types:
            return msg
    raise AssertionError(f"no {types} within {limit} messages")


def send(ws: Any, payload: dict[str, Any] | str) -> dict[str, Any]:
    """Send one message and return its ack or error."""
    ws.send_text(payload if isinstance(payload, str) else json.dumps(payload))
    return recv(ws, "ack", "error")


def paused_frame(ws: Any) -> dict[str, Any]:
    """Pause and return a state frame taken after the pause took effect."""
    assert send(ws, {"type": "pause"})["type"] == "ack"
    # a frame encoded by the tick just before the pause may still be on its way after the ack
    for _ in range(3):
        frame = recv(ws, "state")
        if frame["status"]["running"] is False:
            return frame
    raise AssertionError(f"still running three frames after the pause: {frame['status']}")


def assert_unchanged(ws: Any, client: TestClient, before: dict[str, Any], scenario: Any) -> None:
    after = recv(ws, "state")
    assert after["seq"] > before["seq"]
    assert after["t"] == before["t"]
    assert after["bodies"] == before["bodies"]
    assert after["status"] == before["status"]
    assert client.get("/api/rooms/main/scenario").json() == scenario


@pytest.fixture()
def room(client: TestClient) -> Iterator[tuple[Any, dict[str, Any], Any]]:
    """A fresh hover room, paused: (ws, frame before, scenario before)."""
    with client.websocket_connect("/ws?room=main") as ws:
        hello = recv(ws, "hello")
        assert hello["room"] == "main" and hello["can_control"] is True
        assert send(ws, {"type": "load_scenario", "preset": "hover"})["type"] == "ack"
        assert send(ws, {"type": "set_time_scale", "time_scale": 1.0})["type"] == "ack"
        before = paused_frame(ws)
        yield ws, before, client.get("/api/rooms/main/scenario").json()


# --------------------------------------------------------------------------- bad input

BAD = [
    ("{not json", "bad_json", None, "not valid JSON"),
    ('"just a string"', "invalid", "type", "JSON object"),
    ({"Mass": 2.0}, "invalid", "type", "'type' is required"),
    ({"type": "fly"}, "unknown_type", "type", "set_input, set_params"),
    ({"type": "set_input", "Force": [1.0, 2.0]}, "invalid", "Force", "too few numbers"),
    ({"type": "set_input", "Moment": [1, 2, 3, 4]}, "invalid", "Moment", "list of 3 numbers"),
    ('{"type":"set_input","Force":[0,0,NaN]}', "invalid", "Force", "finite"),
    ('{"type":"set_input","Force":[0,0,Infinity]}', "invalid", "Force", "finite"),
    ('{"type":"set_params","Mass":1e999}', "invalid", "Mass", "finite"),
    ({"type": "set_input", "Force": [0, 0, 2e7]}, "out_of_range", "Force", "[-1e+07, 1e+07] N"),
    ({"type": "set_input", "Force": ["1", 0, 0]}, "invalid", "Force", "must be a number"),
    ({"type": "set_input", "frame": "ned"}, "invalid", "frame", "'global' or 'body'"),
    ({"type": "set_params", "Mass": -1}, "out_of_range", "Mass", "[1e-06, 1e+06] kg, got -1"),
    ({"type": "set_params", "Gravity": 500}, "out_of_range", "Gravity", "[-100, 100] m/s²"),
    ({"type": "set_params", "InertiaRadi": [0.1, 0, 0.1]}, "out_of_range", "InertiaRadi",
     "[0.0001, 1000] m"),
    ({"type": "set_params", "Mass": 5.0, "CGOffset": [0, 0, 5e3]}, "out_of_range", "CGOffset",
     "[-1000, 1000] m"),
    ({"type": "set_params", "mass": 5.0}, "invalid", "mass", "unknown field"),
    ({"type": "set_params"}, "invalid", None, "at least one"),
    ({"type": "set_params", "step": 0.03}, "unstable_step", "step", "0.02785"),
    ({"type": "set_params", "integrator": "euler", "step": 0.025}, "unstable_step", "step",
     "0.02"),
    ({"type": "set_params", "integrator": "radau"}, "invalid", "integrator",
     "'rk4', 'geometric' or 'exact'"),
    ({"type": "set_params", "step": 1e-6}, "out_of_range", "step", "[1e-05, 1] s"),
    ({"type": "set_params", "body": "Nobody", "Mass": 2.0}, "unknown_body", "body", "Nobody"),
    ({"type": "set_input", "body": "Nobody"}, "unknown_body", "body", "bodies are ['B']"),
    ({"type": "step", "n": 0}, "out_of_range", "n", "[1, 10000] steps"),
    ({"type": "step", "n": 2.5}, "invalid", "n", "integer"),
    ({"type": "set_time_scale", "time_scale": 1000}, "out_of_range", "time_scale",
     "[0.01, 100]"),
    ({"type": "set_time_scale"}, "invalid", "time_scale", "required"),
    ({"type": "reset", "state": {"Quater": [0, 0, 0, 0]}}, "out_of_range", "state.Quater",
     "norm must be in [0.5, 2]"),
    ({"type": "reset", "state": {"Quater": [1, 0, 0, 1e200]}}, "out_of_range", "state.Quater",
     "must be in [-2, 2]"),
    ({"type": "reset", "state": {"Pos": [0, 0]}}, "invalid", "state.Pos", "too few numbers"),
    ({"type": "load_scenario", "preset": "moon_landing"}, "unknown_preset", "preset", "hover"),
    ({"type": "load_scenario"}, "invalid", None, "exactly one"),
    ({"type": "load_scenario", "scenario": {"bodies": [{"Mass": -2}]}}, "out_of_range",
     "scenario.bodies[0].Mass", "must be in [1e-06, 1e+06] kg, got -2"),
    ({"type": "load_scenario", "scenario": {"integration": {"stepsize": 0.5}}},
     "unstable_step", "scenario.integration.stepsize", "stability limit"),
]  # fmt: skip


@pytest.mark.parametrize(("payload", "code", "field", "text"), BAD)
def test_bad_input_gets_an_error_and_changes_nothing(
    room: tuple[Any, dict[str, Any], Any],
    client: TestClient,
    payload: Any,
    code: str,
    field: str | None,
    text: str,
) -> None:
    ws, before, scenario = room
    typed = isinstance(payload, dict) and "type" in payload
    if typed:
        payload = {**payload, "id": "q1"}
    reply = send(ws, payload if isinstance(payload, str) else json.dumps(payload))
    assert reply["type"] == "error", reply
    assert (reply["code"], reply["field"]) == (code, field), reply
    assert text in reply["message"], reply
    assert reply["id"] == ("q1" if typed else None)
    assert_unchanged(ws, client, before, scenario)
    assert send(ws, {"type": "pause", "id": 9}) == {"type": "ack", "id": 9, "of": "pause"}


def test_set_params_is_all_or_nothing(room: tuple[Any, dict[str, Any], Any], client: TestClient):
    ws, before, scenario = room
    reply = send(ws, {"type": "set_params", "Mass": 7.0, "InertiaRadi": [0.3, 0.3, 2e3]})
    assert (reply["code"], reply["field"]) == ("out_of_range", "InertiaRadi")
    assert_unchanged(ws, client, before, scenario)
    assert scenario["bodies"][0]["Mass"] == 2.0


def test_binary_frame_is_refused(room: tuple[Any, dict[str, Any], Any], client: TestClient):
    ws, before, scenario = room
    ws.send_bytes(b'{"type":"pause"}')
    reply = recv(ws, "error")
    assert reply["code"] == "invalid" and "text frames" in reply["message"]
    assert_unchanged(ws, client, before, scenario)


def test_oversize_message_gets_too_large_then_close_1009(client: TestClient) -> None:
    with client.websocket_connect("/ws?room=big") as ws:
        recv(ws, "hello")
        before = paused_frame(ws)
        scenario = client.get("/api/rooms/big/scenario").json()
        big = json.dumps({"type": "set_params", "Mesh": "x" * (65 * 1024)})
        ws.send_text(big)
        reply = recv(ws, "error")
        assert reply["code"] == "too_large"
        assert "65536 bytes" in reply["message"] and str(len(big)) in reply["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            recv(ws, "hello")  # only states may come before the close
        assert closed.value.code == 1009
    assert client.get("/api/rooms/big/scenario").json() == scenario
    assert before["bodies"][0]["Name"] == "B"


def test_a_message_just_under_the_limit_is_judged_on_its_content(client: TestClient) -> None:
    with client.websocket_connect("/ws?room=big2") as ws:
        recv(ws, "hello")
        reply = send(ws, json.dumps({"type": "set_params", "Mesh": "x" * 60_000}))
        assert (reply["code"], reply["field"]) == ("invalid", "Mesh")
        assert "128 characters" in reply["message"]


class FrozenClock:
    """A clock that stands still unless told: the token bucket refills only when we say."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def frozen(monkeypatch: pytest.MonkeyPatch) -> FrozenClock:
    clock = FrozenClock()
    real = ws_module.RateLimiter

    def make(rate: float, window: float) -> Any:
        return real(rate, window, clock=clock)

    monkeypatch.setattr(ws_module, "RateLimiter", make)
    return clock


def test_rate_limit_refuses_excess_messages_and_keeps_the_connection(
    frozen: FrozenClock,
) -> None:
    with server(rate_limit=20.0) as client:
        with client.websocket_connect("/ws") as ws:
            recv(ws, "hello")
            for _ in range(20):
                ws.send_text(json.dumps({"type": "set_time_scale", "time_scale": 1.0}))
            msg = {"type": "set_time_scale", "time_scale": 3.0, "id": "x"}
            ws.send_text(json.dumps(msg))
            replies = [recv(ws, "ack", "error") for _ in range(21)]
            assert [r["type"] for r in replies] == ["ack"] * 20 + ["error"]
            assert (replies[-1]["code"], replies[-1]["id"]) == ("rate_limited", None)
            assert "more than 20 messages per second" in replies[-1]["message"]
            assert recv(ws, "state")["status"]["time_scale"] == 1.0  # unchanged
            frozen.now += 0.1  # two tokens come back
            assert send(ws, msg) == {"type": "ack", "id": "x", "of": "set_time_scale"}
            assert recv(ws, "state")["status"]["time_scale"] == 3.0


def test_default_rate_limit_is_200_per_second(client: TestClient, frozen: FrozenClock) -> None:
    """The default bucket holds 200 and refills at 200 a second: its clock still, 200 of 400."""
    with client.websocket_connect("/ws?room=rate") as ws:
        recv(ws, "hello")
        for _ in range(400):
            ws.send_text('{"type":"pause"}')
        replies = [recv(ws, "ack", "error") for _ in range(400)]
        assert sum(r["type"] == "ack" for r in replies) == 200
        assert {r["code"] for r in replies if r["type"] == "error"} == {"rate_limited"}
        assert recv(ws, "state")["type"] == "state"  # still open


def test_sustained_flood_closes_1008(frozen: FrozenClock) -> None:
    with server(rate_limit=10.0, flood_window=5.0) as client:
        with client.websocket_connect("/ws") as ws:
            recv(ws, "hello")
            for _ in range(40):
                ws.send_text('{"type":"pause"}')
            codes = []
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(400):
                    msg = ws.receive_json()
                    if msg["type"] == "error":
                        codes.append(msg["code"])
            assert closed.value.code == 1008
            # 10 accepted, 10 refused with an error, the 11th refusal closes (after its error)
            assert codes == ["rate_limited"] * 11


# --------------------------------------------------------------------------- every message


def test_set_input_constant_is_kept_in_the_scenario_and_resent_in_hello(
    room: tuple[Any, dict[str, Any], Any], client: TestClient
) -> None:
    ws, _, _ = room
    force = [1.0, -2.0, -19.62]
    reply = send(ws, {"type": "set_input", "id": 3, "body": "B", "Force": force})
    assert reply == {"type": "ack", "id": 3, "of": "set_input"}
    hello = recv(ws, "hello")
    assert hello["scenario"]["bodies"][0]["Force"] == force
    frame = recv(ws, "state")
    assert frame["bodies"][0]["Force"] == pytest.approx(force, abs=1e-12)
    assert client.get("/api/rooms/main/scenario").json()["bodies"][0]["Force"] == force


def test_set_input_push_in_body_axes_at_a_point_adds_force_and_moment(
    room: tuple[Any, dict[str, Any], Any],
) -> None:
    ws, before, _ = room
    constant = before["bodies"][0]["Force"]
    msg = {
        "type": "set_input",
        "channel": "push",
        "frame": "body",
        "Force": [5.0, 0.0, 0.0],
        "point": [0.0, 0.5, 0.0],
    }
    assert send(ws, msg)["type"] == "ack"
    body = recv(ws, "state")["bodies"][0]
    push = [f - c for f, c in zip(body["Force"], constant, strict=True)]
    # |R F_body| = |F_body|; moment about the CG = R (point × F) with |point × F| = 2.5 N·m
    assert math.dist(push, [0, 0, 0]) == pytest.approx(5.0, rel=1e-9)
    assert math.dist(body["Moment"], [0, 0, 0]) == pytest.approx(2.5, rel=1e-9)
    assert send(ws, {"type": "set_input", "channel": "push"})["type"] == "ack"
    assert recv(ws, "state")["bodies"][0]["Force"] == pytest.approx(constant, abs=1e-12)


def test_set_params_changes_mass_and_every_client_gets_a_new_hello(client: TestClient) -> None:
    with (
        client.websocket_connect("/ws?room=two") as a,
        client.websocket_connect("/ws?room=two") as b,
    ):
        recv(a, "hello"), recv(b, "hello")
        reply = send(
            a, {"type": "set_params", "id": "m", "Mass": 3.5, "InertiaRadi": [1, 1.2, 1.5]}
        )
        assert reply == {"type": "ack", "id": "m", "of": "set_params"}
        for ws in (a, b):
            spec = recv(ws, "hello")["scenario"]["bodies"][0]
            assert spec["Mass"] == 3.5 and spec["InertiaRadi"] == [1.0, 1.2, 1.5]
        assert client.get("/api/rooms/two/scenario").json()["bodies"][0]["Mass"] == 3.5


def test_set_params_integrator_and_step(room: tuple[Any, dict[str, Any], Any]) -> None:
    ws, _, _ = room
    assert send(ws, {"type": "set_params", "integrator": "euler", "step": 0.002})["type"] == "ack"
    hello = recv(ws, "hello")
    assert (hello["integrator"], hello["step"]) == ("euler", 0.002)
    status = recv(ws, "state")["status"]
    assert (status["integrator"], status["step"]) == ("euler", 0.002)


def test_pause_step_resume(room: tuple[Any, dict[str, Any], Any]) -> None:
    ws, before, _ = room
    assert recv(ws, "state")["t"] == before["t"]  # paused: time stands still
    assert send(ws, {"type": "step", "n": 25})["type"] == "ack"
    assert recv(ws, "state")["t"] == pytest.approx(before["t"] + 25 * H, abs=1e-12)
    assert send(ws, {"type": "resume"})["type"] == "ack"
    running = [recv(ws, "state") for _ in range(12)]
    assert running[-1]["status"]["running"] is True
    assert running[-1]["t"] > running[0]["t"] > before["t"]


def test_reset_all_and_one_body(room: tuple[Any, dict[str, Any], Any]) -> None:
    ws, _, _ = room
    assert send(ws, {"type": "step", "n": 50})["type"] == "ack"
    assert send(ws, {"type": "reset", "state": None})["type"] == "ack"
    frame = recv(ws, "state")
    assert frame["t"] == 0.0 and frame["bodies"][0]["Pos"] == [0.0, 0.0, 0.0]
    state = {"Pos": [1.0, 2.0, -3.0], "AngVel": [0.0, 0.0, 0.0]}
    assert send(ws, {"type": "reset", "body": "B", "state": state})["type"] == "ack"
    body = recv(ws, "state")["bodies"][0]
    assert body["Pos"] == [1.0, 2.0, -3.0] and body["AngVel"] == [0.0, 0.0, 0.0]


def test_set_time_scale(room: tuple[Any, dict[str, Any], Any]) -> None:
    ws, _, _ = room
    assert send(ws, {"type": "set_time_scale", "time_scale": 0.25})["type"] == "ack"
    assert recv(ws, "state")["status"]["time_scale"] == 0.25


def test_load_scenario_preset_and_object(room: tuple[Any, dict[str, Any], Any]) -> None:
    ws, _, _ = room
    assert send(ws, {"type": "load_scenario", "preset": "tennis_racket"})["type"] == "ack"
    assert recv(ws, "hello")["scenario"]["name"] == "tennis_racket"
    custom = Scenario(name="pair", bodies=[BodySpec(Name="A"), BodySpec(Name="C", Mass=3.0)])
    msg = {"type": "load_scenario", "scenario": custom.model_dump(mode="json")}
    assert send(ws, msg)["type"] == "ack"
    hello = recv(ws, "hello")
    assert hello["scenario"]["name"] == "pair"
    assert [b["Name"] for b in recv(ws, "state")["bodies"]] == ["A", "C"]


def test_every_server_message_type_was_seen_and_validates(client: TestClient) -> None:
    seen: set[str] = set()
    with client.websocket_connect("/ws?room=types") as ws:
        for _ in range(3):
            seen.add(ws.receive_json()["type"])
        seen.add(send(ws, {"type": "pause"})["type"])
        seen.add(send(ws, {"type": "pause", "id": [1]})["type"])
    # `preparing` comes only before the process's physics is loaded (e2e/test_cold_start.py)
    assert seen - {"preparing"} == set(SERVER_MESSAGES) - {"preparing"}


def test_a_server_fault_in_a_handler_costs_one_reply_not_the_connection(
    client: TestClient,
) -> None:
    with client.websocket_connect("/ws?room=faulty") as ws:
        recv(ws, "hello")
        room = client.app.state.rooms.get("faulty")  # type: ignore[attr-defined]

        def boom(_: float) -> None:
            raise RuntimeError("kaboom")

        room.sim.set_time_scale = boom
        reply = send(ws, {"type": "set_time_scale", "time_scale": 2.0, "id": 5})
        assert (reply["code"], reply["id"]) == ("internal", 5) and "kaboom" in reply["message"]
        del room.sim.set_time_scale
        assert send(ws, {"type": "set_time_scale", "time_scale": 2.0})["type"] == "ack"


# --------------------------------------------------------------------------- admission


def test_token_lets_anyone_watch_but_only_holders_control() -> None:
    with server(token="s3cret") as client:
        with client.websocket_connect("/ws?room=class") as watcher:
            assert recv(watcher, "hello")["can_control"] is False
            with client.websocket_connect("/ws?room=class&token=s3cret") as teacher:
                assert recv(teacher, "hello")["can_control"] is True
                assert send(teacher, {"type": "pause"})["type"] == "ack"
            before = recv(watcher, "state")
            while before["status"]["running"]:
                before = recv(watcher, "state")
            scenario = client.get("/api/rooms/class/scenario").json()
            reply = send(watcher, {"type": "set_params", "Mass": 9.0, "id": 1})
            assert (reply["code"], reply["field"], reply["id"]) == ("forbidden", "token", 1)
            assert "token" in reply["message"] and "watch" in reply["message"]
            after = recv(watcher, "state")
            assert after["bodies"] == before["bodies"] and after["t"] == before["t"]
            assert client.get("/api/rooms/class/scenario").json() == scenario
        with client.websocket_connect("/ws?room=class&token=wrong") as ws:
            assert recv(ws, "hello")["can_control"] is False
            assert send(ws, {"type": "resume"})["code"] == "forbidden"


def test_foreign_origin_is_refused_unless_allowed() -> None:
    with server(allowed_origins=["http://lab.example:9000"]) as client:
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect("/ws", headers={"origin": "http://evil.example"}):
                pass
        assert refused.value.code == 1008
        for origin in ("http://lab.example:9000", None):
            headers = {"origin": origin} if origin else {}
            with client.websocket_connect("/ws", headers=headers) as ws:
                assert recv(ws, "hello")["type"] == "hello"
        # the page's own origin: Origin names the Host, and the Host is an address or localhost
        for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "192.168.1.20:8000"):
            headers = {"origin": f"http://{host}", "host": host}
            with client.websocket_connect("/ws", headers=headers) as ws:
                assert recv(ws, "hello")["type"] == "hello"
        # DNS rebinding: a foreign name pointed at this machine is same-origin only to the browser
        with pytest.raises(WebSocketDisconnect):
            headers = {"origin": "http://rebind.example:8000", "host": "rebind.example:8000"}
            with client.websocket_connect("/ws", headers=headers):
                pass


@pytest.mark.parametrize("name", ["bad name", "x" * 65, "ä", "a/b"])
def test_bad_room_name_gets_an_error_and_close_1008(client: TestClient, name: str) -> None:
    with client.websocket_connect("/ws", params={"room": name}) as ws:
        reply = ws.receive_json()
        assert (reply["type"], reply["code"], reply["field"]) == ("error", "invalid", "room")
        assert "A-Z a-z 0-9 _ -" in reply["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008
    assert name not in client.get("/api/rooms").text


def test_two_clients_in_one_room_see_the_same_frames(client: TestClient) -> None:
    with (
        client.websocket_connect("/ws?room=shared") as a,
        client.websocket_connect("/ws?room=shared") as b,
    ):
        recv(a, "hello"), recv(b, "hello")
        ta = {m["seq"]: m["t"] for m in (recv(a, "state") for _ in range(20))}
        tb = {m["seq"]: m["t"] for m in (recv(b, "state") for _ in range(20))}
        common = set(ta) & set(tb)
        assert len(common) >= 10
        assert all(ta[s] == tb[s] for s in common)
