"""The websocket endpoint: admission (Origin, room, token), then one receive loop per client.

Every client message is size-checked and rate-limited, then read as strict JSON; only a
client that may control gets it validated against the protocol models (a scenario is the
costly part) and applied to the room (rooms.py). Each message's computing time is charged
to its address's budget (budget.py), and long work (`step`) runs in slices of at most
`slice_seconds` with the event loop free in between, so no message holds other rooms' ticks.
Bad input gets an `error` reply and changes nothing; the connection stays open except for an
oversize message (close 1009) and a sustained flood (close 1008).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import time
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.websockets import WebSocket

from .budget import Budgets, WorkBudget
from .clients import Client, RateLimiter
from .errors import Refusal, read_client_message, validate_client_message
from .protocol import Ack, Auth, Step
from .rooms import Room, Rooms
from .settings import Settings
from .snapshots import Snapshots

log = logging.getLogger("sixdof.server")

CLOSE_POLICY = 1008  # flood, room refused
CLOSE_TOO_BIG = 1009
CLOSE_WAIT = 2.0  # s to flush the last error before closing


def origin_allowed(headers: Headers, settings: Settings) -> bool:
    """Browsers send Origin; allow the server's own host, listed origins, or no Origin at all
    (non-browser clients). This stops other web sites from driving a local server.

    "Own host" means Origin names the Host the request came to, and that host is an IP
    address, localhost or the bound host name: a site that re-points its own DNS name at
    127.0.0.1 (DNS rebinding) is same-origin to the browser but not to us.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    allowed = {o.rstrip("/").lower() for o in settings.allowed_origins}
    if "*" in allowed or origin.rstrip("/").lower() in allowed:
        return True
    host = headers.get("host", "").lower()
    if not host or urlsplit(origin).netloc.lower() != host:
        return False
    name = urlsplit(f"//{host}").hostname or ""
    return name in ("localhost", settings.host.lower()) or _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header, or None."""
    if authorization is None or not authorization.startswith("Bearer "):
        return None
    return authorization.removeprefix("Bearer ").strip() or None


def has_control(token: str | None, settings: Settings) -> bool:
    if settings.token is None:
        return True
    return token is not None and hmac.compare_digest(token.encode(), settings.token.encode())


async def _close_with(client: Client, refusal: Refusal, code: int) -> None:
    client.send_reply(refusal.text())
    client.close_after_replies(code, refusal.message)
    try:
        await asyncio.wait_for(client.closed.wait(), CLOSE_WAIT)
    except asyncio.TimeoutError:
        pass


async def websocket_endpoint(ws: WebSocket) -> None:
    settings: Settings = ws.app.state.settings
    rooms: Rooms = ws.app.state.rooms
    if not origin_allowed(ws.headers, settings):
        log.warning(
            "refused websocket from Origin %r (allow it with --allow-origin)",
            ws.headers.get("origin"),
        )
        await ws.close(CLOSE_POLICY)  # before accept: the browser sees HTTP 403
        return
    await ws.accept()
    query = ws.query_params
    token = query.get("token") or bearer(ws.headers.get("authorization"))
    frames = query.get("frames", "json")
    client = Client(
        ws,
        can_control=has_control(token, settings),
        max_pending=settings.max_pending_replies,
        wire=ws.scope.get("extensions", {}).get("sixdof.wire"),
        binary=frames == "binary",
    )
    client.start()
    try:
        if frames not in ("json", "binary"):
            raise Refusal(
                "invalid", f"frames: must be json or binary, got {frames[:32]!r}", "frames"
            )
        snapshot = None
        if "snapshot" in query:
            snapshots: Snapshots = ws.app.state.snapshots
            snapshot = snapshots.get(query["snapshot"])
            if snapshot is None:
                raise Refusal(
                    "invalid",
                    "snapshot: no such snapshot (they are kept while the server runs, the "
                    "oldest dropped first); ask for a new Share link",
                    "snapshot",
                )
        await rooms.physics_ready()
        room = rooms.join(query.get("room", "main"), client, snapshot)
    except Refusal as refusal:
        await _close_with(client, refusal, CLOSE_POLICY)
        await client.stop()
        return
    address = ws.client.host if ws.client else "unknown"
    budgets: Budgets = ws.app.state.budgets
    try:
        await _receive_loop(ws, client, room, settings, budgets.of(address))
    finally:
        rooms.leave(room, client)
        await client.stop()


async def _receive_loop(
    ws: WebSocket, client: Client, room: Room, settings: Settings, budget: WorkBudget
) -> None:
    limiter = RateLimiter(settings.rate_limit, settings.flood_window)
    limit = settings.max_message_bytes
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text: str | None = message.get("text")
        data: bytes | None = message.get("bytes")
        size = len(text.encode()) if text is not None else len(data or b"")
        if size > limit:
            await _close_with(
                client,
                Refusal(
                    "too_large",
                    f"message: {size} bytes is over the "
                    f"limit of {limit} bytes ({limit // 1024} KiB)",
                ),
                CLOSE_TOO_BIG,
            )
            return
        verdict = limiter.admit()
        if verdict != "ok":
            rate = f"{settings.rate_limit:g}"
            refusal = Refusal(
                "rate_limited",
                f"message: more than {rate} messages per second; "
                f"this one was dropped (limit: {rate}/s)",
            )
            if verdict == "flood":
                log.warning("room %s: client %d flooding, closed", room.name, client.id)
                await _close_with(client, refusal, CLOSE_POLICY)
                return
            client.send_reply(refusal.text())
            continue
        started = time.perf_counter()
        client.last_message_at = time.monotonic()
        for reply in await _handle(text, client, room, settings, budget):
            client.send_reply(*reply)
        room.sync_hello()
        budget.charge(time.perf_counter() - started)
        if client.overflowed:
            log.warning(
                "room %s: client %d does not read its replies, closed", room.name, client.id
            )
            return
        await asyncio.sleep(0)  # messages already queued wait for the other rooms' ticks


Reply = tuple[str, str]  # (text, kind) for Client.send_reply


async def _handle(
    text: str | None, client: Client, room: Room, settings: Settings, budget: WorkBudget
) -> list[Reply]:
    """Validate and carry out one message; the replies (ack or error, and a hello after a
    successful auth). Never raises."""
    mid = None
    try:
        if text is None:
            raise Refusal("invalid", "message: send JSON text frames, not binary ones")
        obj, kind, mid = read_client_message(text)  # strict JSON, cheap
        left = budget.left()
        if left <= 0.0:
            raise _over_budget(kind, 0.0, left, settings, mid)
        if kind == "auth":
            return _authorise(validate_client_message(obj, kind, mid), client, room, settings)
        if not client.can_control:
            raise Refusal(
                "forbidden",
                "token: this server needs a token to control the simulation "
                '(/ws?room=…&token=…, or send {"type": "auth", "token": …} first); '
                "without one you can watch",
                "token",
                mid,
            )
        msg = validate_client_message(obj, kind, mid)  # the costly half: pydantic
        if isinstance(msg, Step):
            estimate = room.step_cost() * msg.n
            if estimate > left:
                raise _over_budget(kind, estimate, left, settings, mid)
            await _step_in_slices(room, msg.n, settings.slice_seconds)
        else:
            room.apply(msg)
        return [(Ack(id=mid, of=msg.type).model_dump_json(), "reply")]
    except Refusal as refusal:
        return [(refusal.text(), "reply")]
    except Exception as exc:  # a bug must cost one reply, not the connection or the room
        log.exception("room %s: error handling a message", room.name)
        return [
            (Refusal("internal", f"server error: {type(exc).__name__}: {exc}", None, mid).text(),
             "reply")
        ]  # fmt: skip


def _authorise(msg: object, client: Client, room: Room, settings: Settings) -> list[Reply]:
    assert isinstance(msg, Auth)
    if not has_control(msg.token, settings):
        raise Refusal("forbidden", "token: wrong token; you can watch", "token", msg.id)
    client.can_control = True
    return [
        (Ack(id=msg.id, of="auth").model_dump_json(), "reply"),
        (room.hello(True), "hello"),
    ]


def _over_budget(
    kind: str, estimate: float, left: float, settings: Settings, mid: str | int | None
) -> Refusal:
    rate, burst = settings.work_rate, settings.work_burst
    need = f"about {estimate:.3g} s of computing; " if estimate > 0 else ""
    wait = (max(estimate, 0.0) - left) / rate
    return Refusal(
        "rate_limited",
        f"{kind}: {need}your address has {max(left, 0.0):.3g} s left of its budget "
        f"(it refills at {rate:g} s per s, up to {burst:g} s); try again in {wait:.2g} s",
        "n" if kind == "step" else None,
        mid,
    )


async def _step_in_slices(room: Room, n: int, slice_seconds: float) -> None:
    """`n` steps of the room's simulation, in slices of whole history rows lasting about
    `slice_seconds` each, yielding to the event loop between slices. The history gets the
    same rows as one `sim.step(n)`."""
    per_row = room.sim.steps_per_row()
    left, k = n, per_row
    while left > 0:
        take = min(left, k)
        started = time.perf_counter()
        done = room.sim.step(take)
        elapsed = time.perf_counter() - started
        room.note_step_cost(elapsed / max(done, 1))
        left -= take
        if done < take:  # diverged: paused at the last good state
            return
        if left:
            fits = int(slice_seconds / max(room.step_cost(), 1e-9))
            k = max(per_row, fits // per_row * per_row)
            await asyncio.sleep(0)
