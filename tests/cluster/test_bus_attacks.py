"""Attacks on the bus through a gateway (docs/security.md, "On a bus"): room names made of
NATS subject characters, and messages larger than the bus carries. A bystander watches
another room the whole time: the gateway must not lose its NATS connection (a malformed
publish would cost it one, and every viewer's frames would stop until it reconnected), its
event loop must never be held long (its loop probe), and the bystander's frames go on. How
long the bystander's frames paused and how soon a large answer came are figures on the clock:
tests/timing/test_cluster_timing.py.

A room name reaches NATS as one token of `room.<name>.<kind>`; `*` or `>` would make it a
wildcard (a publish to one is a protocol error), `.` another room's subject, a space a
broken protocol line. The gateway refuses them before anything is sent; a subscriber to
every subject (`>`) checks that none of them ever appears."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from .attacks import HOSTILE, MAX_PAYLOAD, TOKEN, hostile_requests, http, lab, many_bodies
from .conftest import CLUSTER_HELD_S, Cluster, Held, needs_the_bus
from .viewers import Viewer

needs_the_bus()

__all__ = ["lab"]  # the fixture, used by name


class BusTap:
    """Every subject published on the bus, from a thread: `subjects`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.subjects: set[str] = set()
        self._ready = threading.Event()
        self._barrier = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._nc: Any = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()
        assert self._ready.wait(30), "the tap did not connect"

    async def _run(self) -> None:
        import nats

        nc = await nats.connect(servers=self.url.split(","))

        async def seen(msg: Any) -> None:
            self.subjects.add(msg.subject)
            if msg.subject == "tap.barrier":
                self._barrier.set()

        await nc.subscribe(">", cb=seen)
        await nc.flush()
        self._loop, self._nc, self._stop = asyncio.get_running_loop(), nc, asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await nc.close()

    def barrier(self) -> None:
        """Wait until the tap hears a message of its own sent now: what reached the NATS
        server before it (a gateway's publishes before its HTTP reply) has been delivered."""
        assert self._loop is not None
        self._barrier.clear()
        asyncio.run_coroutine_threadsafe(self._nc.publish("tap.barrier", b""), self._loop)
        assert self._barrier.wait(30), "the tap's barrier message never came back"
        self.subjects.discard("tap.barrier")

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


def test_room_names_with_subject_characters_never_reach_the_bus(lab: Cluster) -> None:
    base = lab.gateways[0]
    bystander = Viewer(base, "calm")
    tap = BusTap(lab.nats_url)
    try:
        bystander.wait(lambda: len(bystander.frames) > 20, timeout=60)
        with Held(base) as held:
            hostile_requests(base)
            tap.barrier()  # the gateway's messages so far have reached the tap
        # the gateway kept its NATS connection (nats-server drops a client for a malformed
        # publish; nats-py reports an -ERR through its error callback)
        log = lab.gateway_procs[0].output
        assert "lost its NATS server" not in log and ": nats: " not in log, log[-3000:]
        # its loop was never held long: no viewer's frame was held up by the attack
        print(f"{len(HOSTILE)} names × (websocket + 4 REST calls): the gateway's loop held "
              f"{held.longest * 1e3:.1f} ms of CPU at most ({held.beats} beats)")  # fmt: skip
        assert held.longest <= CLUSTER_HELD_S, f"the loop was held {held.longest * 1e3:.1f} ms"
        # the bystander's frames go on, its room's clock never went back
        seen = len(bystander.frames)
        bystander.wait(lambda: len(bystander.frames) >= seen + 20, timeout=60)
        clock = [t for _, t, _ in bystander.frames]
        assert clock == sorted(clock), "the bystander's room went back in time"
        assert not bystander.disconnected, bystander.ended
    finally:
        tap.close()
        bystander.close()
    rooms = {s.split(".")[1] for s in tap.subjects if s.startswith("room.")}
    assert rooms == {"calm"}, rooms  # no other room's subject, not one hostile token
    tokens = {t for s in tap.subjects for t in s.split(".")}
    assert not {"*", ">", "b", "a b", "a*", "x"} & tokens, tap.subjects


def test_messages_larger_than_the_bus_are_refused_at_once(lab: Cluster) -> None:
    base = lab.gateways[0]
    tap = BusTap(lab.nats_url)
    try:
        # over max_message_bytes (64 KiB): refused by the gateway, never sent on
        status, answer = http("PUT", f"{base}api/rooms/big/scenario?token={TOKEN}",
                              b'{"name":"' + b"x" * (2 << 20) + b'"}')  # fmt: skip
        assert status == 413, (status, answer)
        # under it but over what this bus carries (max_payload 32 KiB here): refused too,
        # naming the bus's limit (not a 500 from the NATS client)
        status, answer = http("PUT", f"{base}api/rooms/big/scenario?token={TOKEN}",
                              b'{"name":"' + b"x" * 40_000 + b'"}')  # fmt: skip
        assert status == 413 and "max_payload" in answer["detail"], (status, answer)
        tap.barrier()  # anything the gateway had sent has reached the tap
        assert not any(s.startswith("room.big.") for s in tap.subjects), tap.subjects
    finally:
        tap.close()
    # a 64-body room's recording (~43 KB) does not fit in one message of this bus: it comes
    # in pieces (test_large_answers.py), whole (it was a 502, and before that the gateway's
    # 504 after waiting 30 s for a reply the worker could not send; how soon it comes is
    # the timing tier's)
    status, _ = http("PUT", f"{base}api/rooms/big/scenario?token={TOKEN}",
                     json.dumps(many_bodies(64)).encode())  # fmt: skip
    assert status == 200, status
    status, answer = http("GET", f"{base}api/rooms/big/recording?token={TOKEN}")
    print(f"a recording over the bus's limit: {status}, {len(answer)} bytes")
    assert status == 200, (status, answer)
    assert len(answer) > MAX_PAYLOAD and json.loads(answer)["format"] == "sixdof-recording"
    # the room and the worker go on
    status, stats = http("GET", f"{base}api/rooms/big/stats?token={TOKEN}")
    assert status == 200 and json.loads(stats)["room"] == "big", stats
