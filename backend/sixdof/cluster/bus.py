"""The bus between workers and gateways: NATS subjects, JetStream key-value buckets, timings.

Subjects (core NATS; `<room>` is the room name, which `check_room` keeps to [A-Za-z0-9_-]):

- `sixdof.open` (request, queue group `workers`): a gateway asks some worker to open a
  room nobody owns; the worker that claims its lease answers.
- `room.<room>.join` (request): a gateway with viewers there; the owner answers the hello.
- `room.<room>.cmd` (request): a viewer's control message, already authorised and
  validated by the gateway; the owner answers the replies (ack or error).
- `room.<room>.http` (request): a REST request under /api/rooms/<room>/, run by the owner.
- `room.<room>.state` / `room.<room>.bin`: each tick's state frame, JSON / binary layout.
- `room.<room>.hello`, `room.<room>.event`: a new hello, a message for every viewer.
- `sixdof.presence`: each gateway, every second, the rooms it has viewers in.

Buckets (JetStream key-value, one value per key):

- `sixdof-leases`: room → the id of the worker that owns it. Created with `create` (fails
  if anyone has it), renewed every LEASE_RENEW s with a compare-and-set `update`; a lease
  not renewed for LEASE_TIMEOUT s is taken over, again by compare-and-set, so exactly one
  worker wins it.
- `sixdof-shares`: Share link id → the shared snapshot (kind, keyframe, and for `recording`
  the recording's latest segments), written by the worker that made it, read by whichever
  gateway opens the link; kept SHARE_TTL s.
- `sixdof-snapshots`: room → the owner's keyframe (scenario, state, inputs, time) and its
  recording's latest segments, written every SNAPSHOT_EVERY s; a worker that takes a lease
  over resumes the room from it.
"""

from __future__ import annotations

import json
from typing import Any

from nats.js.kv import KeyValue

OPEN = "sixdof.open"
WORKERS = "workers"  # the queue group of sixdof.open
PRESENCE = "sixdof.presence"
LEASES = "sixdof-leases"
SNAPSHOTS = "sixdof-snapshots"
SHARES = "sixdof-shares"
SHARE_TTL = 7 * 24 * 3600.0  # s a Share link works
SHARES_MAX_BYTES = 256 * 1024 * 1024

LEASE_RENEW = 0.5  # s between an owner's renewals
LEASE_TIMEOUT = 1.5  # s without a renewal before another worker takes the room over
SNAPSHOT_EVERY = 1.0  # s between snapshots of a room
PRESENCE_EVERY = 1.0  # s between a gateway's presence messages
PRESENCE_TIMEOUT = 3.5  # s without presence before a worker counts a gateway gone
BUCKET_TTL = 3600.0  # s: a key nobody writes is dropped (a room left by every worker)


async def open_buckets(js: Any) -> tuple[KeyValue, KeyValue, KeyValue]:
    """The leases, snapshots and shares buckets (made by whoever comes first)."""
    leases = await js.create_key_value(bucket=LEASES, history=1, ttl=BUCKET_TTL)
    snapshots = await js.create_key_value(bucket=SNAPSHOTS, history=1, ttl=BUCKET_TTL)
    shares = await js.create_key_value(
        bucket=SHARES, history=1, ttl=SHARE_TTL, max_bytes=SHARES_MAX_BYTES
    )
    return leases, snapshots, shares


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
