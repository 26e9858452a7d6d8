"""Shared snapshots: what a Share link recreates in a new room.

A snapshot is taken of a room (POST /api/rooms/{room}/share) and kept here under a random
id; a page opened with `?room=NEW&snapshot=ID` makes room NEW from it, and only if NEW does
not exist yet, so a link never overwrites anyone's room. Three kinds:

- `start`: the room's scenario with its current parameters, from t = 0;
- `now`: the room as it is (scenario, state, inputs, time), paused there;
- `recording`: as `now`, with the room's recording, so the new room's timeline holds the
  past too (needs the token when the server has one, as the recording does).

Snapshots are kept in the server's store (sixdof.store: SQLite in the data directory, or
in memory), so a link outlives a restart. The store is bounded in count and bytes; the
oldest unpinned snapshot goes first (a lesson's are pinned). Links shared by watchers
(clients without the token, on a server that has one) are kept apart, with caps of their
own: a watcher may share, and a flood of watchers' links pushes out only other watchers'
links, never the lecturer's. (Sharing costs the address's budget too: rest.py.)

`put` and `get` block on the store: the server calls them in its requests' pool
(`fetch` does so itself), never on the event loop.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from ..simulation.recording import Recording, RecordingFormatError
from ..store import MEMORY, Caps, Store, open_store
from ..store.kinds import SHARE
from .pools import off_loop

Kind = Literal["start", "now", "recording"]
KINDS: tuple[Kind, ...] = ("start", "now", "recording")
#: The store's kind of record for a Share link, and its two pools.
HELD, WATCHED = "held", "watched"
#: A link's id: secrets.token_urlsafe(9), 12 characters; longer ones are not looked up.
MAX_ID_CHARS = 64


@dataclass
class Snapshot:
    kind: Kind
    keyframe: dict[str, Any]  # the room's keyframe when shared (`start` uses its scenario)
    recording: Recording | None
    nbytes: int
    id: str = ""


def encode(kind: Kind, keyframe: dict[str, Any], recording: Recording | None) -> bytes:
    """A snapshot as the store keeps it: JSON of its kind, keyframe and recording."""
    return json.dumps({
        "kind": kind,
        "keyframe": keyframe,
        "recording": None if recording is None else recording.to_json(),
    }).encode()  # fmt: skip


def decode(sid: str, data: bytes, recording_bytes: int) -> Snapshot | None:
    """The Snapshot of a stored record, or None if it cannot be read back."""
    try:
        obj = json.loads(data)
        recording = None
        if obj.get("recording") is not None:
            recording = Recording.from_json(obj["recording"], max_bytes=recording_bytes)
        if obj["kind"] not in KINDS or not isinstance(obj["keyframe"], dict):
            return None
        return Snapshot(obj["kind"], obj["keyframe"], recording, len(data), sid)
    except (RecordingFormatError, KeyError, TypeError, ValueError):
        return None


class Snapshots:
    """Snapshots by id in `store`: the token holders' at most `max_count` and about
    `max_bytes`, the watchers' at most `max_watcher_count` and `max_watcher_bytes` (oldest
    dropped first, each among its own)."""

    def __init__(
        self,
        max_count: int = 256,
        max_bytes: int = 64 * 1024 * 1024,
        max_watcher_count: int = 64,
        max_watcher_bytes: int = 16 * 1024 * 1024,
        *,
        store: Store | None = None,
        recording_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self.store: Store = store if store is not None else open_store(MEMORY)
        self.store.limit(SHARE, HELD, Caps(max_count, max_bytes))
        self.store.limit(SHARE, WATCHED, Caps(max_watcher_count, max_watcher_bytes))
        self.recording_bytes = recording_bytes

    def __len__(self) -> int:
        return self.store.usage(SHARE)[0]

    @property
    def nbytes(self) -> int:
        return self.store.usage(SHARE)[1]

    def put(
        self,
        kind: Kind,
        keyframe: dict[str, Any],
        recording: Recording | None,
        by_watcher: bool = False,
    ) -> str:
        """Keep a snapshot; its id once it is stored (StoreFull if the disk is full).
        `by_watcher`: shared by a client without the token."""
        sid = secrets.token_urlsafe(9)
        data = encode(kind, keyframe, recording)
        self.store.put(SHARE, sid, data, pool=WATCHED if by_watcher else HELD)
        return sid

    def get(self, sid: str) -> Snapshot | None:
        if not sid or len(sid) > MAX_ID_CHARS:
            return None
        data = self.store.get(SHARE, sid)
        return None if data is None else decode(sid, data, self.recording_bytes)

    async def fetch(self, sid: str) -> Snapshot | None:
        """`get`, as the websocket endpoint asks for it: off the event loop (a gateway's
        store is on the bus)."""
        return await off_loop(self.get, sid)
