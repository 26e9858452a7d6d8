"""What a worker's room sends, on the bus: its `BusViewer`, and its snapshot for failover."""

from __future__ import annotations

import itertools
import logging
from typing import Any, Protocol

from ..server.rooms import Room
from ..server.wire import Wire
from ..simulation.recording import Recording, RecordingFormatError
from . import bus
from .shares import RECORDING_BYTES


class Publisher(Protocol):
    """What a viewer needs of its worker (worker.Worker): a way onto the bus."""

    def publish(self, subject: str, data: bytes) -> None: ...


log = logging.getLogger("sixdof.worker")

_viewer_ids = itertools.count(1)
SNAPSHOT_MAX_BYTES = 900 * 1024  # NATS's default max_payload is 1 MiB


class BusViewer:
    """A room's client that publishes what it is sent on the room's subjects (JSON frames,
    or binary ones), for every gateway at once."""

    def __init__(self, worker: Publisher, room: str, binary: bool) -> None:
        self.id = next(_viewer_ids)
        self.worker = worker
        self.can_control = True  # the gateways know who may; the hello says it per viewer
        self.binary = binary
        self.wire: Wire | None = None
        self.last_message_at = -1e9
        self.lacks_frame = True  # the gateways give a viewer who joins the last frame they had
        self._state = bus.room_subject(room, "bin" if binary else "state")
        self._hello = bus.room_subject(room, "hello")
        self._event = bus.room_subject(room, "event")

    @property
    def frames_dropped(self) -> int:
        return 0

    def offer(self, text: str | bytes, wire_frame: bytes | None, now: float) -> None:
        self.lacks_frame = False
        self.worker.publish(self._state, text if isinstance(text, bytes) else text.encode())

    def send_hello(self, text: str, frame: bytes) -> None:
        self.lacks_frame = True
        if not self.binary:  # the gateways make every variant from the JSON viewer's hello
            self.worker.publish(self._hello, text.encode())

    def send_reply(self, text: str, kind: str = "reply") -> None:
        if kind == "hello":
            self.lacks_frame = True
        if self.binary:
            return  # the JSON viewer sends the same, once
        subject = self._hello if kind == "hello" else self._event
        self.worker.publish(subject, text.encode())


def snapshot_of(room: Room) -> bytes:
    """The room as another worker resumes it: its keyframe (scenario, state, inputs, time),
    its frame counter, and as much of its recording's latest segments as keeps the message
    under NATS's default 1 MB limit (the keyframe itself is at most ~100 kB)."""
    sim = room.sim
    snapshot: dict[str, Any] = {"keyframe": sim.keyframe("snapshot"), "seq": room.seq}
    if sim.recording is not None:
        snapshot["recording"] = sim.recording.tail_json(RECORDING_BYTES)
    data = bus.encode(snapshot)
    if len(data) > SNAPSHOT_MAX_BYTES:  # a recording with huge events: the state alone
        del snapshot["recording"]
        data = bus.encode(snapshot)
    return data


def resume(room: Room, snapshot: dict[str, Any]) -> None:
    """Put `room` where its failover `snapshot` (snapshot_of) left it: paused there,
    resumed if it was running, its recent past on the timeline, its frame counter."""
    keyframe = snapshot["keyframe"]
    recording = None
    if snapshot.get("recording") and room.sim.recording is not None:
        try:
            recording = Recording.from_json(
                snapshot["recording"], max_bytes=room.sim.recording.max_bytes
            )
        except (RecordingFormatError, KeyError, TypeError, ValueError) as exc:
            log.warning("room %s: the snapshot's recording is unreadable: %s", room.name, exc)
    room.sim.restore(keyframe, recording)
    room.sim.set_time_scale(float(keyframe.get("time_scale", 1.0)))
    if keyframe.get("running", True):
        room.sim.resume()
    room.seq = int(snapshot.get("seq", 0))
