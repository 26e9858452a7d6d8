"""A cluster on three NATS nodes, and waiting on its buckets' replicas and a worker's
heartbeats."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Cluster, running

NODES = 3
BUCKETS = ("KV_sixdof-leases", "KV_sixdof-snapshots", "KV_sixdof-shares")


@pytest.fixture
def three(tmp_path: Path) -> Iterator[Cluster]:
    with running(Cluster(tmp_path, workers=2, gateways=1, nats_nodes=NODES)) as c:
        yield c


async def replicated(urls: list[str], timeout: float = 60.0) -> None:
    """Wait until every bucket has NODES replicas, a leader, and its other copies current
    (a node started again has caught up: losing the next one keeps a majority)."""
    import nats

    nc = await nats.connect(servers=urls, reconnect_time_wait=0.2)  # type: ignore[arg-type]
    js = nc.jetstream(timeout=1.0)
    deadline = time.monotonic() + timeout
    try:
        while True:
            states = []
            for name in BUCKETS:
                try:
                    info = await js.stream_info(name)
                except Exception as exc:  # no leader yet
                    states.append(f"{name}: {exc!r}")
                    continue
                assert info.config.num_replicas == NODES, info.config  # --nats-replicas 3
                peers = info.cluster.replicas if info.cluster else None
                if info.cluster and info.cluster.leader and peers and len(peers) == NODES - 1:
                    if all(p.current and not p.offline for p in peers):
                        continue
                states.append(f"{name}: {info.cluster}")
            if not states:
                return
            assert time.monotonic() < deadline, f"buckets not replicated: {states}"
            await asyncio.sleep(0.2)  # polling the servers' own view of the copies
    finally:
        await nc.close()


async def beating(urls: list[str], room: str, owner: str, times: int, timeout: float) -> float:
    """Wait (watching its heartbeat key) until worker `owner` has beaten `times` more times
    (its heartbeats go through: the buckets have their leaders again); assert that the
    lease of `room` is still its own. The seconds that took."""
    import nats

    started = time.monotonic()
    nc = await nats.connect(servers=urls, reconnect_time_wait=0.2)  # type: ignore[arg-type]
    try:
        while True:  # the watch itself needs the bucket's leader: tried until it has one
            try:
                kv = await nc.jetstream(timeout=1.0).key_value("sixdof-leases")
                watcher = await kv.watch(f"worker.{owner}")
                break
            except Exception:
                assert time.monotonic() - started < timeout, "the lease bucket never came back"
                await asyncio.sleep(0.2)
        seen = -1  # the current value comes first: not a new beat
        while seen < times:
            left = timeout - (time.monotonic() - started)
            assert left > 0, f"{owner} beat {max(seen, 0)} times, not {times}"
            try:
                entry = await watcher.updates(timeout=left)
            except nats.errors.TimeoutError:
                continue
            if entry is not None and entry.value:
                seen += 1
        await watcher.stop()
        lease = await kv.get(room)
        assert lease.value is not None and lease.value.decode() == owner, lease.value
        return time.monotonic() - started
    finally:
        await nc.close()
