"""`sixdof serve`: build the app, start uvicorn, print the URL (the physics loads with the
first room: `Rooms.physics_ready`; a cold numba cache is filled at once by a child process:
`Rooms.prepare_in_background`)."""

from __future__ import annotations

import gc
import logging
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import uvicorn
from fastapi import FastAPI

from ..scenario import Scenario
from ..store import MEMORY
from .app import create_app
from .guard import protocols, scrub_logs
from .log_thread import logs_off_loop, own_stderr
from .registry import Rooms
from .settings import Settings

log = logging.getLogger("sixdof.server")

#: Frames above this are refused by the websocket layer itself (close 1009) before the app
#: sees them; the app's own limit (64 KiB) answers with an error first.
WS_MAX_SIZE = 1024 * 1024
#: Kernel send buffer per connection, bytes (Linux doubles it for bookkeeping).
SEND_BUFFER = 32 * 1024


def page_url(host: str, port: int, token: str | None = None, room: str | None = None) -> str:
    """The URL to open; a wildcard bind is shown as loopback, which always works locally."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    query = {k: v for k, v in (("room", room), ("token", token)) if v}
    return f"http://{shown}:{port}/" + (f"?{urlencode(query)}" if query else "")


def lan_address() -> str | None:
    """This machine's address on the network its default route leads to, or None.

    Connecting a UDP socket sends nothing; it only makes the kernel pick the source
    address it would use, which is what another machine on that network can reach.
    Inside a container that address is the container's own, which nobody outside opens
    (they open the published port on the host), so there is none to show.
    """
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        return None
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere for real
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def announcement(
    host: str,
    port: int,
    token: str | None,
    lan: str | bool | None = True,
    *,
    reveal: bool = True,
) -> list[str]:
    """The lines `sixdof serve` prints once it listens.

    The first is always `sixdof: serving URL` with a URL that works on this machine
    (tests and scripts read it). With a token come the two classroom URLs: control (token
    in it) and watch (without). A wildcard bind (0.0.0.0, ::) shows this machine's network
    address there, which is what other machines open. lan: True looks it up, a string
    uses that address, None/False shows none. reveal False writes the token as `***` (the
    output is a log, e.g. `docker logs`, not a terminal the lecturer is looking at).
    """
    if token and not reveal:
        token = "***"
    lines = [f"sixdof: serving {page_url(host, port, token)}"]
    wildcard = host in ("0.0.0.0", "::", "")
    local = host in ("127.0.0.1", "localhost", "::1")
    address = (lan_address() if lan is True else lan or None) if wildcard else None
    shared = address or (None if wildcard else host)
    if token:
        where = shared or host
        lines.append(f"sixdof: control (keep it to yourself): {page_url(where, port, token)}")
        lines.append(f"sixdof: watch (anyone, cannot steer):  {page_url(where, port)}")
    elif not local and shared:
        lines.append(f"sixdof: on other machines: {page_url(shared, port)}")
    lines.append(
        "sixdof: rooms: add ?room=NAME to share one simulation per room "
        f"(default 'main'); API docs at {page_url(host, port)}docs"
    )
    if not local:
        lines.append(
            f"sixdof: listening on {host or '0.0.0.0'}: reachable from other machines"
            + ("" if token else "; anyone can control it (use --token or SIXDOF_TOKEN)")
        )
    return lines


#: The longest a stopping server waits for requests and websockets still being handled, s.
SHUTDOWN_SECONDS = 1


def listening_socket(config: uvicorn.Config) -> socket.socket:
    """uvicorn's listening socket, with a small kernel send buffer that accepted sockets inherit.

    Linux grows a socket's send buffer up to 4 MiB: a client that reads slowly would first
    get minutes of stale frames queued in the kernel before latest-wins could drop any.
    With SEND_BUFFER the data waiting for one client stays near 100 KiB (kernel plus
    transport), i.e. about a second of single-body frames, after which newer frames replace
    older ones. 64 KiB in flight still moves 60 MB/s at 1 ms round trip.
    """
    sock = config.bind_socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
    return sock


def quiet_garbage_collector() -> None:
    """Keep full garbage collections out of the live loop.

    After start-up the heap holds ~190k long-lived objects (numba/LLVM, pydantic, FastAPI);
    a full collection walked them all in 130-150 ms every ~2 s with 200 rooms, freeing
    almost nothing, and every such pause dropped simulated time in every room
    (benchmarks/run_all.py). Freezing them moves them out of the collector's sight; the
    higher first threshold makes young collections rarer while frames churn small objects.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 10)


class _Server(uvicorn.Server):
    """uvicorn's server, announcing the URL once it is listening (port 0 gets its real port)."""

    def __init__(self, config: uvicorn.Config, settings: Settings, open_browser: bool) -> None:
        super().__init__(config)
        self.settings = settings
        self.open_browser = open_browser

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.should_exit or not getattr(self, "servers", None):
            return
        rooms = getattr(getattr(self.config.app, "state", None), "rooms", None)
        if isinstance(rooms, Rooms):  # not a gateway's: it has no physics
            rooms.prepare_in_background()  # a cold numba cache starts compiling now
        port = self.servers[0].sockets[0].getsockname()[1]
        reveal = sys.stdout.isatty()  # a log (docker logs, a file) must not keep the token
        for line in announcement(self.settings.host, port, self.settings.token, reveal=reveal):
            print(line, flush=True)
        if self.open_browser:
            url = page_url(self.settings.host, port, self.settings.token)
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop a cold start's compilation first: a viewer waiting for it kept the server
        alive until it finished (17 s after SIGTERM, measured), since uvicorn waits for the
        connections' handlers before the app's own shutdown."""
        rooms = getattr(getattr(self.config.app, "state", None), "rooms", None)
        if isinstance(rooms, Rooms):
            await rooms.stop_preparing()
        await super().shutdown(sockets=sockets)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    scenario: Scenario | None = None,
    token: str | None = None,
    allowed_origins: list[str] | None = None,
    open_browser: bool = False,
    *,
    frame_rate: float = 60.0,
    room_ttl: float = 300.0,
    log_level: str = "info",
    limits: dict[str, Any] | None = None,
    make_app: Callable[[Settings], FastAPI] = create_app,
    data: str = MEMORY,
) -> None:
    """Serve the live lab until interrupted (Ctrl-C).

    host: interface to bind (127.0.0.1 unless told). port: 0 picks a free one. scenario: the
    scenario of new rooms (default: the default preset). token: if given, controlling needs
    ?token=… while anyone may watch. allowed_origins: extra browser Origins allowed to open
    the websocket. open_browser: open the page once the server listens. limits: other
    Settings fields (max_connections_per_ip, work_rate, …; docs/security.md). make_app: the
    app for those settings (`sixdof gateway` serves its rooms from workers). data: the data
    directory of Share links and lessons, or ":memory:" (StoreRefused, before anything
    listens, if its database may not be opened).
    """
    settings = Settings(
        host=host,
        port=port,
        scenario=scenario,
        token=token,
        allowed_origins=list(allowed_origins or []),
        data=data,
        # a --limit of the same name wins over the argument's default
        **{"frame_rate": frame_rate, "room_ttl": room_ttl, **(limits or {})},
    )
    app = make_app(settings)
    quiet_garbage_collector()
    http_protocol, ws_protocol = protocols(settings)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=WS_MAX_SIZE,
        http=http_protocol,
        ws=ws_protocol,
        # Compression is per client (deflate state per connection): it cost 70 % more server
        # CPU at 100 clients for ~1 KB frames that a LAN carries easily uncompressed.
        ws_per_message_deflate=False,
        lifespan="on",
        # a stop (Ctrl-C, SIGTERM, docker stop) ends within a second: handlers still running
        # then (a download, a step in slices) are cancelled instead of waited for
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
    scrub_logs()  # after uvicorn.Config, which configures its loggers
    server = _Server(config, settings, open_browser)
    with own_stderr():  # sixdof's warnings too: a refused connection writes one
        writer = logs_off_loop()  # an access line a request, written by a thread (log_thread.py)
        try:
            server.run(sockets=[listening_socket(config)])
        finally:
            writer.stop()
    if not server.started:
        sys.exit(f"sixdof: could not start the server on {host}:{port} (is the port in use?)")
