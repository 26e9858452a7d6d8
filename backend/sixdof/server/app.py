"""The FastAPI application: REST under /api, the websocket at /ws, meshes and the page.

`create_app(settings)` is the only way to make one; it holds no global state, so tests make
as many independent apps as they like.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import FastAPI
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .. import __version__
from ..meshstore import use_store
from ..store import Store
from ..store.meshes import StoredMeshes
from . import lessons, presets
from .bem import router as bem_router
from .budget import Budgets
from .classroom import rooms_router as class_rooms_router
from .classroom import router as class_router
from .gyro import router as gyro_router
from .hydro import router as hydro_router
from .lesson_routes import router as lessons_router
from .loop_probe import LoopProbe
from .meshes import router as meshes_router
from .past_routes import router as past_router
from .pools import off_loop
from .registry import Rooms
from .rest import router
from .settings import Settings
from .snapshots import Snapshots
from .stored import open_settings_store
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


#: The built page's files under assets/ are named by their content's hash (Vite's
#: `[name]-[hash]`): a name never changes meaning, so a browser keeps one a year without asking
#: again. The pages (index.html, class/index.html) name the current ones and are asked for at
#: every load (`no-cache`: kept, but revalidated), so a new build reaches every student.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


class PageFiles(OptionalStaticFiles):
    """The built page, with each file's Cache-Control (IMMUTABLE under assets/)."""

    def file_response(
        self, full_path: Any, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        hashed = Path(full_path).relative_to(self.path).parts[0] == "assets"
        response.headers["Cache-Control"] = IMMUTABLE if hashed else REVALIDATE
        return response


async def _first_uses() -> None:
    """What the first streamed response would otherwise do on the event loop while rooms
    tick: Starlette streams through an anyio task group, whose first use imports anyio's
    asyncio backend (15 ms of the loop's CPU, measured in the first `history.csv`)."""
    async with anyio.create_task_group():
        pass


#: A path no route answers: a request to it passes every route before the page's files.
NO_ROUTE = "/api/.start"


async def _pass_every_route(app: FastAPI) -> None:
    """FastAPI builds an included router's routes the first time a request passes them
    (~1 ms of the loop's CPU a route: 9-12 ms for the first websocket, measured, when the
    lessons' routes came before it). One request through all of them, at start, before any
    room ticks, instead of a viewer's or the lecturer's first."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": NO_ROUTE, "raw_path": NO_ROUTE.encode(), "root_path": "",
        "query_string": b"", "headers": [], "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0), "state": {},
    }  # fmt: skip

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_: object) -> None:
        pass

    await app(scope, receive, send)


def create_app(settings: Settings | None = None, records: Store | None = None) -> FastAPI:
    """A new app serving the live simulation described by `settings`, keeping its records
    in `records` (a cluster's, on the bus), else in the store of `settings.data`. The app
    closes the store when it shuts down."""
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
    # a foreign or newer database: refused here
    store = records if records is not None else open_settings_store(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # uploaded meshes outlive a restart: while it serves, the process's mesh store is
        # this server's store (the one before comes back after: a test's next app, a closed
        # database never asked)
        before = use_store(StoredMeshes(store))
        await _first_uses()
        await _pass_every_route(app)
        probe.start()
        yield
        probe.stop()
        await rooms.close()
        use_store(before)
        await off_loop(store.close)  # after the last request that could write

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
    app.state.class_relay = None  # a gateway's way to every worker's rooms (cluster)
    app.state.server_id = None  # a cluster worker names itself here (cluster/worker.py)
    app.state.budgets = Budgets(settings.work_rate, settings.work_burst)
    app.state.exports = asyncio.Semaphore(settings.max_exports)
    app.state.store = store
    lessons.prepare(store)
    app.state.snapshots = Snapshots(store=store, recording_bytes=settings.recording_bytes)
    # /ws first: FastAPI builds a route's state when a request first passes it, so a
    # websocket matched after the REST routes paid for all of them on the event loop
    # (~1 ms a route, measured when the lessons' routes came: the first Share link's
    # websocket held the loop 12 ms instead of 5)
    app.add_api_websocket_route("/ws", websocket_endpoint)
    app.include_router(router)
    app.include_router(past_router)  # a room's history.csv, recording and past frames
    app.include_router(gyro_router)  # POST /api/rooms/{room}/gyro
    app.include_router(bem_router)  # POST, GET /api/rooms/{room}/bem: a BEM job
    app.include_router(hydro_router)  # GET /api/rooms/{room}/hydrodynamics: the card's data
    app.include_router(lessons_router)  # lessons and saved scenarios in the store
    app.include_router(class_router)  # the lecturer's view: /api/class
    app.include_router(class_rooms_router)  # a room's tile and action, as gateways ask them
    app.include_router(meshes_router)  # POST /api/meshes, GET /api/meshes/{id}
    meshes_dir = settings.meshes_path()
    missing_meshes = JSONResponse({"detail": f"{meshes_dir} is missing: run `make setup`"}, 503)
    app.mount(
        "/meshes",
        OptionalStaticFiles(meshes_dir, html=False, missing=missing_meshes),
        name="meshes",
    )
    web_dir = settings.web_path()
    not_built = HTMLResponse(NOT_BUILT.format(path=web_dir), status_code=503)
    app.mount("/", PageFiles(web_dir, html=True, missing=not_built), name="page")
    return app
