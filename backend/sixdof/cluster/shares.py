"""Share links on the bus: a snapshot made by one worker, opened through any gateway.

`sixdof serve` keeps Share snapshots in its own memory (server/snapshots.py). On the bus the
worker whose room was shared also puts the snapshot in the `sixdof-shares` bucket, a
gateway checks a link's id there (`SharedSnapshots`), and the worker that opens the new
room reads it from there. A shared recording keeps its latest segments (~384 KB), to fit
in one NATS message.
"""

from __future__ import annotations

from typing import Any

from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from ..server.snapshots import Snapshot, Snapshots
from ..simulation.recording import Recording, RecordingFormatError
from . import bus

#: Of a shared or a failover snapshot's recording: its latest segments, about this many bytes.
RECORDING_BYTES = 384 * 1024


def encode_share(snapshot: Snapshot) -> bytes:
    recording = snapshot.recording
    return bus.encode({
        "kind": snapshot.kind,
        "keyframe": snapshot.keyframe,
        "recording": None if recording is None else recording.tail_json(RECORDING_BYTES),
    })  # fmt: skip


def decode_share(sid: str, data: bytes, recording_bytes: int) -> Snapshot | None:
    """The Snapshot of bucket value `data`, or None if it cannot be read back."""
    try:
        obj: dict[str, Any] = bus.decode(data)
        recording = None
        if obj.get("recording") is not None:
            recording = Recording.from_json(obj["recording"], max_bytes=recording_bytes)
        return Snapshot(obj["kind"], obj["keyframe"], recording, len(data), sid)
    except (RecordingFormatError, KeyError, TypeError, ValueError):
        return None


async def fetch_share(shares: KeyValue, sid: str, recording_bytes: int) -> Snapshot | None:
    if not bus.valid_key(sid):  # from a URL: checked before it reaches the bus
        return None
    try:
        entry = await shares.get(sid)
    except KeyNotFoundError:
        return None
    return decode_share(sid, entry.value or b"", recording_bytes)


class SharedSnapshots(Snapshots):
    """A gateway's snapshot store: what workers put in the `sixdof-shares` bucket."""

    def __init__(self, recording_bytes: int) -> None:
        super().__init__()
        self.recording_bytes = recording_bytes
        self.bucket: KeyValue | None = None

    async def fetch(self, sid: str) -> Snapshot | None:
        if self.bucket is None:
            return None
        return await fetch_share(self.bucket, sid, self.recording_bytes)
