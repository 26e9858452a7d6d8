"""A NATS KV listing's first pass (cluster/records.read_listing): nats.py's watcher can put its
end-of-pass marker before the entries it already received (its consumer-info check counts the
entries its callback has run for; on a loaded event loop none yet), and a pool of three
records was once listed as none. A listing that found nothing before the marker takes what
comes within LIST_SETTLE after it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from sixdof.cluster import records


@dataclass
class Entry:
    key: str
    value: bytes


class Watcher:
    """nats.py's watcher as far as a listing uses it: `updates(timeout)`, in order."""

    def __init__(self, *updates: Entry | None) -> None:
        self.queue: asyncio.Queue[Entry | None] = asyncio.Queue()
        for u in updates:
            self.queue.put_nowait(u)
        self.waited = 0.0

    async def updates(self, timeout: float) -> Entry | None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        finally:
            self.waited += loop.time() - start


def listing(watcher: Watcher) -> dict[str, bytes]:
    return asyncio.run(records.read_listing(watcher))


def test_the_entries_before_the_marker_are_the_listing_at_once() -> None:
    w = Watcher(Entry("a", b"1"), Entry("b", b"2"), None, Entry("c", b"3"))
    assert listing(w) == {"a": b"1", "b": b"2"}  # c came after the pass: a later put
    assert w.waited < records.LIST_SETTLE / 2


def test_entries_handed_over_after_an_early_marker_are_taken() -> None:
    w = Watcher(None, Entry("k3", b"x"), Entry("k4", b"x"), Entry("k5", b"x"))
    assert listing(w) == {"k3": b"x", "k4": b"x", "k5": b"x"}


def test_a_deleted_key_is_left_out_and_an_empty_listing_ends() -> None:
    w = Watcher(None, Entry("gone", b""))
    assert listing(w) == {}
    assert w.waited == pytest.approx(records.LIST_SETTLE, abs=0.2)
