"""`sixdof gateway`: the page, REST and `/ws` of `sixdof serve`, with the rooms on workers.

The app is `sixdof serve`'s (the same page, websocket endpoint, admission, token, limits and
budgets), with two things swapped: `app.state.rooms` is a `RemoteRooms` (remote.py), whose
rooms relay the frames a worker publishes to this gateway's viewers (each frame made into a
websocket frame once, then written to every socket as `sixdof serve` does) and forward
control messages as requests; and REST requests under /api/rooms/<room>/ that name one of
a room's routes go to the room's owner (relay.py, routes.py). Any gateway can serve any
room, so the load balancer in front needs no affinity.

Its own event loop is watched by `sixdof serve`'s loop probe (server/loop_probe.py, started
by the app's lifespan): `/api/probe` on a gateway is the gateway's; `/api/rooms/<room>/probe`
goes, as every route there does, to the room's worker, which answers with its own.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from ..server.app import create_app
from ..server.settings import Settings
from . import bus
from .classes import Classes
from .records import NatsStore
from .relay import RoomRequests
from .remote import RemoteRoom, RemoteRooms
from .shares import SharedSnapshots
from .urls import parse_urls

__all__ = ["RemoteRoom", "RemoteRooms", "RoomRequests", "create_gateway_app"]


def create_gateway_app(
    settings: Settings,
    urls: str | Sequence[str],
    gateway_id: str | None = None,
    replicas: int = 1,
) -> FastAPI:
    """`sixdof serve`'s app with its rooms on the workers of the bus at `urls` (the servers
    of one NATS cluster); `replicas`: the buckets' copies, if this gateway makes them."""
    servers = parse_urls(urls)
    name = gateway_id or f"g-{secrets.token_hex(4)}"
    # the cluster's records (lessons, meshes, links), the same through every gateway
    records = NatsStore(servers, replicas, f"sixdof-{name}-store")
    app = create_app(settings, records)
    rooms = RemoteRooms(settings, name)
    snapshots = SharedSnapshots(settings.recording_bytes, records)
    app.state.snapshots = snapshots
    classes = Classes(rooms)  # /api/class: every worker's rooms (classes.py)
    app.state.class_relay = classes
    served = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[Any]:
        await rooms.connect(servers)
        assert rooms.nc is not None
        classes.leases, _, snapshots.bucket = await bus.open_buckets(rooms.nc, replicas)
        app.state.rooms = rooms
        try:
            async with served(app_) as state:
                yield state
        finally:
            await rooms.close()

    app.router.lifespan_context = lifespan
    app.add_middleware(RoomRequests, rooms=rooms, settings=settings)
    return app
