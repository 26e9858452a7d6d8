"""The FastAPI application: REST under /api, the websocket at /ws, meshes and the page.

`create_app(settings)` is the only way to make one; it holds no global state, so tests make
as many independent apps as they like.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from fastapi import FastAPI
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .. import __version__
from . import presets
from .budget import Budgets
from .gyro import router as gyro_router
from .loop_probe import LoopProbe
from .registry import Rooms
from .rest import router
from .settings import Settings
from .snapshots import Snapshots
from .ws import websocket_endpoint

if TYPE_CHECKING:
    from ..simulation.live import LiveSimulation

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sixdof: page not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>The sixdof page is not built yet</h1>
<p>The server is running, but <code>{path}</code> does not exist.
Run <code>make setup</code> in the repository (it runs <code>npm ci</code> and
<code>npm run build</code> in <code>frontend/</code>), then reload this page.</p>
<p>The API works already: <a href="/docs">/docs</a>, <a href="/api/health">/api/health</a>.</p>
</body></html>
"""


class OptionalStaticFiles(StaticFiles):
    """StaticFiles whose directory may appear later; until then every request gets `missing`."""

    def __init__(self, directory: Path, *, html: bool, missing: Response) -> None:
        super().__init__(directory=directory, html=html, check_dir=False)
        self.path = directory
        self.missing = missing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.path.is_dir():
            await self.missing(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


async def _first_uses() -> None:
    """What the first streamed response would otherwise do on the event loop while rooms
    tick: Starlette streams through an anyio task group, whose first use imports anyio's
    asyncio backend (15 ms of the loop's CPU, measured in the first `history.csv`)."""
    async with anyio.create_task_group():
        pass


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app serving the live simulation described by `settings`."""
    settings = settings or Settings()

    def make_sim() -> LiveSimulation:
        # imported with the first room (numpy, the engine), not while the server starts
        from ..simulation.live import LiveSimulation

        scenario = settings.scenario or presets.default_scenario()
        return LiveSimulation(
            scenario.model_copy(deep=True),
            frame_rate=settings.frame_rate,
            history_seconds=settings.history_seconds,
            history_bytes=settings.history_bytes,
            history_precision=settings.history_precision,
            recording_bytes=settings.recording_bytes,
            # every room's physics of one tick shares this much wall time (engine rounds)
            max_compute=max(1e-3, settings.tick_budget / settings.frame_rate),
        )

    rooms = Rooms(settings, make_sim)
    probe = LoopProbe()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await _first_uses()
        probe.start()
        yield
        probe.stop()
        await rooms.close()

    app = FastAPI(
        title="sixdof",
        version=__version__,
        summary="A live 6-DOF rigid body: REST API (the websocket protocol is at /ws, "
        "described by /api/protocol.schema.json and docs/protocol.md)",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.rooms = rooms
    app.state.probe = probe
    app.state.server_id = None  # a cluster worker names itself here (cluster/worker.py)
    app.state.budgets = Budgets(settings.work_rate, settings.work_burst)
    app.state.exports = asyncio.Semaphore(settings.max_exports)
    app.state.snapshots = Snapshots()
    app.include_router(router)
    app.include_router(gyro_router)  # POST /api/rooms/{room}/gyro
    app.add_api_websocket_route("/ws", websocket_endpoint)
    meshes_dir = settings.meshes_path()
    missing_meshes = JSONResponse({"detail": f"{meshes_dir} is missing: run `make setup`"}, 503)
    app.mount(
        "/meshes",
        OptionalStaticFiles(meshes_dir, html=False, missing=missing_meshes),
        name="meshes",
    )
    web_dir = settings.web_path()
    not_built = HTMLResponse(NOT_BUILT.format(path=web_dir), status_code=503)
    app.mount("/", OptionalStaticFiles(web_dir, html=True, missing=not_built), name="page")
    return app
