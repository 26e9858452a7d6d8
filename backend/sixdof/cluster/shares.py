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
from ..store import Store
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


async def find_share(shares: KeyValue, records: Snapshots, sid: str) -> Snapshot | None:
    """A link's snapshot: from the bucket, or (past its TTL) from the cluster's store."""
    found = await fetch_share(shares, sid, records.recording_bytes)
    return found if found is not None else await records.fetch(sid)


class SharedSnapshots(Snapshots):
    """A gateway's snapshot store: what workers put in the `sixdof-shares` bucket, and
    behind it the cluster's store (`records`), where a link outlives the bucket's TTL."""

    def __init__(self, recording_bytes: int, records: Store | None = None) -> None:
        super().__init__(store=records, recording_bytes=recording_bytes)
        self.bucket: KeyValue | None = None

    async def fetch(self, sid: str) -> Snapshot | None:
        found = None
        if self.bucket is not None:
            found = await fetch_share(self.bucket, sid, self.recording_bytes)
        return found if found is not None else await super().fetch(sid)
