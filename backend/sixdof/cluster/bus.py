"""The bus between workers and gateways: NATS subjects, JetStream key-value buckets, timings,
and the one way both connect to it (several servers of a NATS cluster, reconnecting).

Subjects (core NATS; `<room>` is the room name, which `check_room` keeps to [A-Za-z0-9_-],
so it is always one subject token: no `.`, `*`, `>` or space reaches a subject):

- `sixdof.open` (request, queue group `workers`): a gateway asks some worker to open a
  room nobody owns; the worker that claims its lease answers. Only workers whose physics is
  loaded listen here. A room is a watcher's (capped apart) unless the request proves that
  its viewer may control (proof.py).
- `sixdof.preparing` (request, queue group `workers`): asked when nobody answers
  `sixdof.open`; a worker still loading (or compiling) its physics answers the `preparing`
  message the gateway passes on to its viewer, who would otherwise wait in silence.
- `room.<room>.join` (request): a gateway with viewers there; the owner answers the hello.
- `room.<room>.cmd` (request): a viewer's control message, validated by the gateway, with
  the gateway's proof that the viewer may control (proof.py), which the owner checks
  itself; the owner answers the replies (ack or error).
- `room.<room>.http` (request): a REST request under /api/rooms/<room>/, run by the owner.
  An answer larger than one NATS message (`max_payload`) comes in pieces: the first reply
  holds its head, its first bytes and where to ask for the rest (`more`), and the gateway
  asks `sixdof.answer.<worker id>` for each next piece by its offset while it writes them
  to its client (at most `max_answer_bytes` in all, 64 MiB by default: 413 beyond).
- `room.<room>.state` / `room.<room>.bin`: each tick's state frame, JSON / binary layout.
- `room.<room>.hello`, `room.<room>.event`: a new hello, a message for every viewer.
- `sixdof.presence`: each gateway, every second, the rooms it has viewers in.

Buckets (JetStream key-value, one value per key):

- `sixdof-leases`: room → the id of the worker that owns it, made with `create` (fails if
  anyone has it); and `worker.<id>` (never a room: room names have no `.`) → that worker's
  heartbeat, rewritten every LEASE_RENEW s. The rooms of a worker whose heartbeat has not
  changed for LEASE_TIMEOUT s are taken over by compare-and-set on each room's key, so
  exactly one worker wins each (leases.py).
- `sixdof-shares`: Share link id → the shared snapshot (kind, keyframe, and for `recording`
  the recording's latest segments), written by the worker that made it, read by whichever
  gateway opens the link; kept SHARE_TTL s.
- `sixdof-snapshots`: room → the owner's keyframe (scenario, state, inputs, time) and its
  recording's latest segments, written every SNAPSHOT_EVERY s; a worker that takes a lease
  over resumes the room from it.

The store's records (links, lessons, meshes) have buckets of their own: records.py.

All three are created with `--nats-replicas` copies (1 on one server, 3 on a cluster of
three: any one server may then be lost without losing a lease or a snapshot).
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from nats.aio.client import Client as Nats
from nats.errors import Error as NatsError
from nats.js.errors import APIError
from nats.js.kv import KeyValue

from .login import login

log = logging.getLogger("sixdof.bus")

OPEN = "sixdof.open"
PREPARING = "sixdof.preparing"
WORKERS = "workers"  # the queue group of sixdof.open
PRESENCE = "sixdof.presence"
ANSWERS = "sixdof.answer"  # + .<worker id>: the next piece of a large REST answer
ANSWER_TTL = 30.0  # s a worker keeps a large answer after the last piece was asked for
ANSWERS_KEPT = 8  # large answers a worker keeps at once; more wait (503) for one to go
LEASES = "sixdof-leases"
SNAPSHOTS = "sixdof-snapshots"
SHARES = "sixdof-shares"
SHARE_TTL = 7 * 24 * 3600.0  # s a Share link works
SHARES_MAX_BYTES = 256 * 1024 * 1024

LEASE_RENEW = 0.5  # s between a worker's heartbeats
LEASE_TIMEOUT = 1.5  # s without a heartbeat before other workers take its rooms over
SNAPSHOT_EVERY = 1.0  # s between snapshots of a room
PRESENCE_EVERY = 1.0  # s between a gateway's presence messages
PRESENCE_TIMEOUT = 3.5  # s without presence before a worker counts a gateway gone
BUCKET_TTL = 3600.0  # s: a key nobody writes is dropped (a room left by every worker)
MAX_REPLICAS = 5  # JetStream's own limit on a stream's copies

# A JetStream call (a renewal, a snapshot) gives up after this long: while a NATS node is
# lost the buckets on it take no writes until their copies elect a new leader (4-7 s
# measured with nats-server 2.15), and a worker must not sit in one call meanwhile.
JS_TIMEOUT = 1.0
RECONNECT_WAIT = 0.25  # s before trying a server of the pool again
PING_EVERY = 2  # s between pings: a server gone silently (a lost machine) is left after ~6 s
CONNECT_WAIT = 30.0  # s a worker or gateway waits at start for a server and its JetStream


class GaveUp(ConnectionError):
    """No connection to the bus: its servers refused this process's credentials, or none
    answered within CONNECT_WAIT s."""


async def connect(
    urls: Sequence[str],
    name: str,
    on_reconnect: Callable[[], Awaitable[None]] | None = None,
) -> Nats:
    """A connection to whichever of `urls` answers, failing over to the others (and to the
    servers the cluster announces) whenever its server goes, for ever. Subscriptions are
    made again by nats-py after a reconnection; `on_reconnect` is for the rest (watches,
    leases). Logs in as login.py says (credentials, TLS). Waits up to CONNECT_WAIT s for a
    first server; credentials a server refuses end the wait at once."""
    how = login(urls)
    servers = ", ".join(how.urls)
    connecting = True
    last = "no answer"

    async def on_error(exc: Exception) -> None:
        nonlocal last
        last = str(exc) or type(exc).__name__
        # nats-py's default prints a traceback per failed attempt: one line says it all
        log.warning("%s: nats: %s", name, last)
        # nats-py tries again for ever (max_reconnect_attempts -1), also on its first
        # connection: raised from here, the error ends that (nc.connect raises it)
        if connecting and isinstance(exc, ssl.SSLError):
            raise GaveUp(
                f"--nats: TLS with {servers} failed ({exc}); SIXDOF_NATS_CA names the CA "
                "that signed the server's certificate (docs/scaling.md)"
            )
        if connecting and "authorization violation" in str(exc).lower():
            raise GaveUp(
                f"--nats: {servers} refused {name}'s credentials ({how.how}): give the "
                "bus's user and password in SIXDOF_NATS_USER and SIXDOF_NATS_PASSWORD "
                "(docs/scaling.md)"
            )
        if connecting and time.monotonic() > deadline:
            raise GaveUp(
                f"--nats: no NATS server answered within {CONNECT_WAIT:g} s at {servers} "
                f"({exc or type(exc).__name__})"
            )

    async def on_disconnect() -> None:
        if not (nc.is_closed or nc.is_draining):  # not our own drain at shutdown
            log.warning("%s: lost its NATS server; reconnecting", name)

    async def on_reconnected() -> None:
        url = nc.connected_url
        log.warning("%s: reconnected to NATS at %s", name, url.netloc if url else "?")
        if on_reconnect is not None:
            await on_reconnect()

    deadline = time.monotonic() + CONNECT_WAIT
    while True:
        nc = Nats()
        options: dict[str, Any] = {  # nats-py's annotation says int; a float is what it uses
            "reconnect_time_wait": RECONNECT_WAIT,
        }
        try:  # bounded: nats-py would try for ever
            await asyncio.wait_for(nc.connect(
                servers=how.urls,
                name=name,
                max_reconnect_attempts=-1,
                ping_interval=PING_EVERY,
                max_outstanding_pings=3,  # a loop stalled by load is not a lost server
                error_cb=on_error,
                disconnected_cb=on_disconnect,
                reconnected_cb=on_reconnected,
                **options,
                **how.options,
            ), max(1.0, deadline - time.monotonic()))  # fmt: skip
            connecting = False
            return nc
        except (GaveUp, asyncio.TimeoutError) as exc:
            try:  # bounded: after a failed TLS handshake its socket never says it closed
                await asyncio.wait_for(nc.close(), 2.0)
            except Exception:  # never connected: nothing to close
                pass
            if isinstance(exc, GaveUp):
                raise
            raise GaveUp(
                f"--nats: no NATS server answered within {CONNECT_WAIT:g} s at {servers} ({last})"
            ) from None
        except (NatsError, OSError) as exc:
            if time.monotonic() > deadline:
                raise ConnectionError(
                    f"--nats: no NATS server answered within {CONNECT_WAIT:g} s at "
                    f"{servers} ({exc})"
                ) from None
            log.warning("%s: no NATS server at %s yet (%s)", name, servers, exc)
            await asyncio.sleep(1.0)


async def try_login(urls: Sequence[str], name: str) -> None:
    """Connect to the bus once and leave: raises GaveUp (one line, no traceback) where a
    worker or gateway would not get on it, before the gateway's web server starts."""
    nc = await connect(urls, name)
    await nc.close()


async def open_buckets(nc: Nats, replicas: int = 1) -> tuple[KeyValue, KeyValue, KeyValue]:
    """The leases, snapshots and shares buckets, each with `replicas` copies (made by
    whoever comes first). A NATS cluster that has just started takes a few seconds to
    elect its JetStream leaders: retried meanwhile, up to CONNECT_WAIT s."""
    js = nc.jetstream(timeout=JS_TIMEOUT)
    specs = ((LEASES, BUCKET_TTL, -1), (SNAPSHOTS, BUCKET_TTL, -1),
             (SHARES, SHARE_TTL, SHARES_MAX_BYTES))  # fmt: skip
    buckets = []
    deadline = time.monotonic() + CONNECT_WAIT
    for bucket, ttl, max_bytes in specs:
        while True:
            try:
                kv = await js.create_key_value(
                    bucket=bucket, history=1, ttl=ttl, max_bytes=max_bytes, replicas=replicas
                )
                break
            except APIError as exc:
                if exc.err_code == 10058:  # it exists, made otherwise: use it as it is
                    info = await js.stream_info(f"KV_{bucket}")
                    log.warning(
                        "bucket %s exists with %d replicas (asked: %d); used as it is "
                        "(`nats stream edit KV_%s --replicas %d` changes it)",
                        bucket, info.config.num_replicas or 1, replicas, bucket, replicas,
                    )  # fmt: skip
                    kv = await js.key_value(bucket)
                    break
                error: Exception = exc
            except NatsError as exc:
                error = exc
            if time.monotonic() > deadline:
                raise ConnectionError(
                    f"--nats: JetStream did not make bucket {bucket} with {replicas} "
                    f"replicas within {CONNECT_WAIT:g} s ({error!r}; is every server started "
                    "with -js, and are there at least as many as --nats-replicas?)"
                )
            await asyncio.sleep(0.5)
        buckets.append(kv)
    return buckets[0], buckets[1], buckets[2]


def valid_key(key: str) -> bool:
    """Whether `key` (from a URL: hostile) is a key the buckets can hold."""
    return 0 < len(key) <= 64 and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)


def room_subject(room: str, kind: str) -> str:
    return f"room.{room}.{kind}"


def encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def decode(data: bytes) -> Any:
    return json.loads(data)


def pack_http(head: dict[str, Any], body: bytes) -> bytes:
    """A REST request or response on the bus: a JSON head, a newline, the raw body."""
    return encode(head) + b"\n" + body


def unpack_http(data: bytes) -> tuple[dict[str, Any], bytes]:
    head, _, body = data.partition(b"\n")
    return decode(head), body
