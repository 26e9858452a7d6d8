"""The store's contract: records of a kind, by key, in pools with caps of their own.

A record is bytes under (kind, key), e.g. ("share", id) or ("mesh", sha256). Records of one
kind sit in pools ("held" and "watched" Share links), each bounded in count and bytes: a
put past a cap drops that pool's oldest unpinned records in the same transaction, so the
store never holds more than its caps plus what is pinned. Pinned records (a lesson's steps)
are never dropped; they are bounded by the pinning record's own caps.

Every call blocks (disk I/O): the server calls them in its requests' pool, never on the
event loop (server/pools.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

#: The location that keeps records in memory only (tests, a throwaway server).
MEMORY = ":memory:"


class StoreError(Exception):
    """The store cannot do what was asked; the message says where and why."""


class StoreRefused(StoreError):
    """The data directory's database is not one this version may open (foreign, corrupt,
    newer schema): refused at start, left as it is."""


class StoreFull(StoreError):
    """The disk (or the database's size limit) is full: nothing new is written; what is
    there stays readable, and the rooms go on."""


class StoreMissing(StoreError):
    """A change that needs a record (a pin) found none: nothing of its batch was written."""

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(f"no {kind} record {key!r}")
        self.kind, self.key = kind, key


@dataclass(frozen=True)
class Caps:
    """A pool's bounds: at most `max_count` unpinned records and about `max_bytes`."""

    max_count: int
    max_bytes: int


@dataclass(frozen=True)
class RecordInfo:
    kind: str
    key: str
    pool: str
    nbytes: int
    pinned: bool
    created: float  # Unix time


@dataclass(frozen=True)
class Put:
    """Write a record (as `Store.put`)."""

    kind: str
    key: str
    value: bytes
    pool: str = ""
    pinned: bool = False


@dataclass(frozen=True)
class Pin:
    """Pin or unpin a record; pinning one that is not there is StoreMissing (a lesson must
    not be kept without what it names), unpinning it is nothing."""

    kind: str
    key: str
    pinned: bool = True


@dataclass(frozen=True)
class Delete:
    """Delete a record if there is one."""

    kind: str
    key: str


#: One change of a batch (`Store.apply`).
Change = Put | Pin | Delete


class Store(Protocol):
    """Records by (kind, key). `location` names where they live (a path, or MEMORY)."""

    location: str

    def limit(self, kind: str, pool: str, caps: Caps) -> None:
        """Bound the unpinned records of `kind` in `pool` from now on."""

    def put(
        self, kind: str, key: str, value: bytes, *, pool: str = "", pinned: bool = False
    ) -> None:
        """Write the record (replacing one of the same key) atomically, then trim its pool
        to its caps, oldest unpinned first, in the same transaction. StoreFull if the disk
        is full."""

    def get(self, kind: str, key: str) -> bytes | None: ...

    def info(self, kind: str, pool: str | None = None) -> list[RecordInfo]:
        """The records of `kind` (of `pool` if given), oldest first, without their values."""

    def delete(self, kind: str, key: str) -> bool: ...

    def pin(self, kind: str, key: str, pinned: bool) -> bool:
        """Pin or unpin a record (False if there is none)."""

    def usage(self, kind: str, pool: str | None = None) -> tuple[int, int]:
        """(count, bytes) of the records of `kind` (of `pool` if given)."""

    def apply(self, changes: Sequence[Change]) -> None:
        """Make every change, in order, in one transaction: all of them or none (a crash,
        a full disk or a StoreMissing part way leaves the store as it was)."""

    def close(self) -> None: ...
