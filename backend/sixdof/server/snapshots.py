"""Shared snapshots: what a Share link recreates in a new room.

A snapshot is taken of a room (POST /api/rooms/{room}/share) and kept here under a random
id; a page opened with `?room=NEW&snapshot=ID` makes room NEW from it, and only if NEW does
not exist yet, so a link never overwrites anyone's room. Three kinds:

- `start`: the room's scenario with its current parameters, from t = 0;
- `now`: the room as it is (scenario, state, inputs, time), paused there;
- `recording`: as `now`, with the room's recording, so the new room's timeline holds the
  past too (needs the token when the server has one, as the recording does).

The store is bounded in count and bytes; the oldest snapshot goes first. Links shared by
watchers (clients without the token, on a server that has one) are kept apart, with caps
of their own: a watcher may share, and a flood of watchers' links pushes out only other
watchers' links, never the lecturer's. (Sharing costs the address's budget too: rest.py.)
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


class _Kept:
    """Snapshots in the order they came, at most `max_count` and about `max_bytes`."""

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self.max_count = max_count
        self.max_bytes = max_bytes
        self.items: OrderedDict[str, Snapshot] = OrderedDict()
        self.nbytes = 0

    def add(self, snapshot: Snapshot) -> None:
        self.items[snapshot.id] = snapshot
        self.nbytes += snapshot.nbytes
        while len(self.items) > 1 and (
            len(self.items) > self.max_count or self.nbytes > self.max_bytes
        ):
            _, old = self.items.popitem(last=False)
            self.nbytes -= old.nbytes


class Snapshots:
    """Snapshots by id: the token holders' at most `max_count` and about `max_bytes`, the
    watchers' at most `max_watcher_count` and `max_watcher_bytes` (oldest dropped first,
    each among its own)."""

    def __init__(
        self,
        max_count: int = 256,
        max_bytes: int = 64 * 1024 * 1024,
        max_watcher_count: int = 64,
        max_watcher_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        self._held = _Kept(max_count, max_bytes)
        self._watched = _Kept(max_watcher_count, max_watcher_bytes)

    def __len__(self) -> int:
        return len(self._held.items) + len(self._watched.items)

    @property
    def nbytes(self) -> int:
        return self._held.nbytes + self._watched.nbytes

    def put(
        self,
        kind: Kind,
        keyframe: dict[str, Any],
        recording: Recording | None,
        by_watcher: bool = False,
    ) -> str:
        """Keep a snapshot; its id. `by_watcher`: shared by a client without the token."""
        size = len(json.dumps(keyframe)) + (recording.nbytes if recording is not None else 0)
        sid = secrets.token_urlsafe(9)
        (self._watched if by_watcher else self._held).add(
            Snapshot(kind, keyframe, recording, size, sid)
        )
        return sid

    def get(self, sid: str) -> Snapshot | None:
        return self._held.items.get(sid) or self._watched.items.get(sid)

    async def fetch(self, sid: str) -> Snapshot | None:
        """`get`, as the websocket endpoint asks for it (a gateway's store is on the bus)."""
        return self.get(sid)
