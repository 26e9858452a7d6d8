"""Shared snapshots: what a Share link recreates in a new room.

A snapshot is taken of a room (POST /api/rooms/{room}/share) and kept here under a random
id; a page opened with `?room=NEW&snapshot=ID` makes room NEW from it, and only if NEW does
not exist yet, so a link never overwrites anyone's room. Three kinds:

- `start`: the room's scenario with its current parameters, from t = 0;
- `now`: the room as it is (scenario, state, inputs, time), paused there;
- `recording`: as `now`, with the room's recording, so the new room's timeline holds the
  past too (needs the token when the server has one, as the recording does).

The store is bounded in count and bytes; the oldest snapshot goes first.
"""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from ..simulation.recording import Recording

Kind = Literal["start", "now", "recording"]
KINDS: tuple[Kind, ...] = ("start", "now", "recording")


@dataclass
class Snapshot:
    kind: Kind
    keyframe: dict[str, Any]  # the room's keyframe when shared (`start` uses its scenario)
    recording: Recording | None
    nbytes: int
    id: str = ""


class Snapshots:
    """Snapshots by id, at most `max_count` and about `max_bytes` (oldest dropped first)."""

    def __init__(self, max_count: int = 256, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_count = max_count
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, Snapshot] = OrderedDict()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def put(self, kind: Kind, keyframe: dict[str, Any], recording: Recording | None) -> str:
        size = len(json.dumps(keyframe)) + (recording.nbytes if recording is not None else 0)
        sid = secrets.token_urlsafe(9)
        self._items[sid] = Snapshot(kind, keyframe, recording, size, sid)
        self.nbytes += size
        while len(self._items) > 1 and (
            len(self._items) > self.max_count or self.nbytes > self.max_bytes
        ):
            _, old = self._items.popitem(last=False)
            self.nbytes -= old.nbytes
        return sid

    def get(self, sid: str) -> Snapshot | None:
        return self._items.get(sid)

    async def fetch(self, sid: str) -> Snapshot | None:
        """`get`, as the websocket endpoint asks for it (a gateway's store is on the bus)."""
        return self.get(sid)
