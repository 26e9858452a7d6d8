"""Rooms and clients: latest-wins outbox, rate limiter, room lifetime, fault isolation."""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from sixdof.server import Settings, create_app
from sixdof.server.clients import Client, RateLimiter

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient


# --------------------------------------------------------------------------- rate limiter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_rate_limiter_bucket_refill_and_flood() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=200.0, window=2.0, clock=clock)
    assert [limiter.admit() for _ in range(200)] == ["ok"] * 200
    assert limiter.admit() == "limited"
    clock.now += 0.05  # 10 tokens back
    assert [limiter.admit() for _ in range(11)] == ["ok"] * 10 + ["limited"]
    clock.now += 10.0  # a quiet spell forgets old refusals and refills the burst only
    assert [limiter.admit() for _ in range(201)].count("ok") == 200
    # a flood: 200 more refusals within the window close the connection
    verdicts = [limiter.admit() for _ in range(200)]
    assert verdicts[:198] == ["limited"] * 198 and verdicts[-1] == "flood"


def test_rate_limiter_steady_200_per_second_is_never_refused() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=200.0, window=2.0, clock=clock)
    for _ in range(2000):  # 10 s at exactly the limit
        clock.now += 1 / 200
        assert limiter.admit() == "ok"


# --------------------------------------------------------------------------- outbox


class SlowSocket:
    """Stands in for a websocket whose peer reads only when `gate` is set."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.gate = asyncio.Event()
        self.writing = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.writing.set()  # a send has begun (and waits for the gate)
        await self.gate.wait()
        self.sent.append(message["text"])

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def test_slow_client_gets_only_the_newest_frame_and_every_reply_in_order() -> None:
    async def scenario() -> tuple[SlowSocket, Client]:
        ws = SlowSocket()
        client = Client(ws, can_control=True, max_pending=8)  # type: ignore[arg-type]
        client.start()
        client.offer_frame("frame-0")
        await asyncio.wait_for(ws.writing.wait(), 1.0)  # the sender is now stuck on frame-0
        for i in range(1, 1000):
            client.offer_frame(f"frame-{i}")
        client.send_reply("ack-1")
        client.send_reply("hello-old", "hello")
        client.send_reply("ack-2")
        client.send_reply("hello-new", "hello")  # replaces hello-old, keeps its order slot
        ws.gate.set()
        for _ in range(1000):  # until everything offered so far is written
            if len(ws.sent) == 5:
                break
            await asyncio.sleep(0)
        await client.stop()
        return ws, client

    ws, client = asyncio.run(scenario())
    assert ws.sent == ["frame-0", "ack-1", "ack-2", "hello-new", "frame-999"]
    assert client.frames_offered == 1000 and client.frames_sent == 2
    assert client.frames_dropped == 998
    assert not client.overflowed


def test_replies_are_bounded_and_overflow_is_flagged() -> None:
    async def scenario() -> Client:
        ws = SlowSocket()
        client = Client(ws, can_control=True, max_pending=8)  # type: ignore[arg-type]
        client.start()
        for i in range(20):
            client.send_reply(f"ack-{i}")
        await asyncio.wait_for(ws.writing.wait(), 1.0)  # the sender took the first reply
        await client.stop()
        return client

    client = asyncio.run(scenario())
    assert client.overflowed
    assert len(client._replies) <= 8


def test_close_after_replies_sends_them_first() -> None:
    async def scenario() -> SlowSocket:
        ws = SlowSocket()
        ws.gate.set()
        client = Client(ws, can_control=True, max_pending=8)  # type: ignore[arg-type]
        client.start()
        client.offer_frame("frame")
        client.send_reply("error")
        client.close_after_replies(1009, "too large")
        await asyncio.wait_for(client.closed.wait(), 1.0)
        return ws

    ws = asyncio.run(scenario())
    assert ws.sent == ["error"] and ws.closed == (1009, "too large")


# --------------------------------------------------------------------------- rooms


@contextmanager
def server(**overrides: Any) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(**overrides))) as client:
        yield client


def next_of(ws: Any, kind: str, limit: int = 300) -> dict[str, Any]:
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind}")


def rooms_listed(client: TestClient) -> list[str]:
    return [r["room"] for r in client.get("/api/rooms").json()]


def room_stats(client: TestClient, room: str) -> dict[str, Any]:
    stats: dict[str, Any] = client.get(f"/api/rooms/{room}/stats").json()
    return stats


def left_alone(client: TestClient, room: str) -> dict[str, Any]:
    """The room's stats once the server has taken in that its last client left (its removal
    is counted down from then)."""
    for _ in range(1000):
        stats = room_stats(client, room)
        if stats["expires_in"] is not None:
            return stats
    raise AssertionError(f"{room}: its countdown never started")


def test_a_room_nobody_watches_stops_ticking_and_a_rejoin_restarts_its_countdown() -> None:
    """Read on the server's own numbers, not on sleeps: while a watched room (the witness) runs
    0.5 s of simulated time, the unwatched one stays where it stopped; someone back finds the
    same simulation, and when they leave the countdown starts again from `room_ttl`."""
    ttl = 60.0
    with server(room_ttl=ttl) as client:
        with client.websocket_connect("/ws?room=lab") as ws:
            next_of(ws, "hello")
            while next_of(ws, "state")["t"] < 0.2:
                pass
            assert room_stats(client, "lab")["expires_in"] is None  # watched: no countdown
        first = left_alone(client, "lab")
        assert 0.0 < first["expires_in"] <= ttl
        with client.websocket_connect("/ws?room=witness") as witness:
            start = next_of(witness, "state")["t"]
            while next_of(witness, "state")["t"] < start + 0.5:
                pass
            # a tick already under way may still add its frame; ticking on it would be 0.5 s on
            assert room_stats(client, "lab")["t"] < first["t"] + 0.25
            stopped = room_stats(client, "lab")["t"]
            with client.websocket_connect("/ws?room=lab") as ws:  # back within the ttl
                t = next_of(ws, "state")["t"]
                assert stopped <= t < stopped + 0.25  # the same simulation, from where it stopped
            again = left_alone(client, "lab")
        # restarted: as much left as the first countdown had when it began; the first would
        # now have 0.5 s less at most (the witness's 0.5 s of simulated time took at least
        # that much of the clock's)
        assert again["expires_in"] > first["expires_in"] - 0.25


def test_room_is_removed_ttl_after_its_last_client_leaves() -> None:
    with server(room_ttl=0.3) as client:
        with client.websocket_connect("/ws?room=lab") as ws:
            next_of(ws, "hello")
            while (t_left := next_of(ws, "state")["t"]) < 0.2:
                pass
        left_alone(client, "lab")
        deadline = time.monotonic() + 10.0  # a bound on failure, not a figure
        while rooms_listed(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert rooms_listed(client) == []
        assert client.get("/api/health").json()["rooms"] == 0
        with client.websocket_connect("/ws?room=lab") as ws:  # a new room starts afresh
            assert next_of(ws, "state")["t"] < t_left


def test_a_fault_in_one_room_pauses_it_with_a_reason_and_spares_the_others() -> None:
    with server() as client:
        with (
            client.websocket_connect("/ws?room=bad") as bad,
            client.websocket_connect("/ws?room=good") as good,
        ):
            next_of(bad, "hello"), next_of(good, "hello")
            room = client.app.state.rooms.get("bad")  # type: ignore[attr-defined]

            def broken(now: float) -> int:
                raise RuntimeError("physics on fire")

            room.sim.owed = broken  # a fault in this room's part of the engine's tick
            error = next_of(bad, "error")
            assert error["code"] == "internal" and "physics on fire" in error["message"]
            status = next_of(bad, "state")["status"]
            assert status["running"] is False and "physics on fire" in status["paused_reason"]
            t_good = [next_of(good, "state")["t"] for _ in range(10)]
            assert t_good[-1] > t_good[0]  # the other room runs on
            assert client.get("/api/rooms/bad/stats").json()["fault"].startswith("RuntimeError")
            del room.sim.owed  # repaired: resume clears the reason
            # a tick already in the physics thread may still hold the broken `owed` and pause
            # the room again after a resume: resume once a tick begun after the repair has sent
            # its frame (seq counts the ticks that made one; the one after the next began
            # after now)
            seq = client.get("/api/rooms/bad/stats").json()["seq"]
            while next_of(bad, "state")["seq"] < seq + 2:
                pass
            bad.send_text(json.dumps({"type": "resume"}))
            next_of(bad, "ack")
            frames = [next_of(bad, "state") for _ in range(10)]
            assert frames[-1]["status"]["paused_reason"] is None
            assert frames[-1]["t"] > frames[0]["t"]


def test_divergence_pauses_the_room_and_says_so() -> None:
    with server() as client, client.websocket_connect("/ws?room=boom") as ws:
        next_of(ws, "hello")
        for msg in (
            {"type": "pause"},
            {"type": "set_params", "Mass": 1e-6, "Gravity": 0.0},
            {"type": "set_input", "Force": [1e7, 0.0, 0.0]},
            {"type": "step", "n": 100},
        ):
            ws.send_text(json.dumps(msg))
            assert next_of(ws, "ack")["of"] == msg["type"]
        error = next_of(ws, "error")
        assert error["code"] == "diverged" and "body 'B'" in error["message"]
        status = next_of(ws, "state")["status"]
        assert status["running"] is False and status["paused_reason"] == error["message"]


def test_too_many_rooms_are_refused() -> None:
    with server(max_rooms=1) as client, client.websocket_connect("/ws?room=a") as first:
        next_of(first, "hello")
        with client.websocket_connect("/ws?room=b") as second:
            reply = second.receive_json()
            assert (reply["code"], reply["field"]) == ("forbidden", "room")
            with pytest.raises(WebSocketDisconnect) as closed:
                second.receive_json()
            assert closed.value.code == 1008
        assert rooms_listed(client) == ["a"]


def test_a_room_that_cannot_be_opened_now_is_said_and_the_connection_closed_try_again() -> None:
    """A store or bus that does not answer while a viewer comes in (a cluster's NATS node lost,
    its buckets electing leaders) was an uncaught exception: uvicorn dropped the connection
    without a close frame. Now the viewer hears why and the code says: try again later."""
    with server() as client:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]

        async def not_now(*_: Any) -> Any:
            raise TimeoutError("the bucket did not answer")

        rooms.enter = not_now
        with client.websocket_connect("/ws?room=a") as ws:
            reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == "internal", reply
            assert "TimeoutError" in reply["message"] and "try again" in reply["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1013
        assert client.get("/api/health").status_code == 200
