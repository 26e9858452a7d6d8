"""Large REST answers through a gateway: a room's history.csv and recording, larger than one
NATS message, come whole (in pieces on the bus), equal row for row to what the room's
worker itself answers; past `max_answer_bytes` they are refused with 413 naming the limit.

Before: history.csv through a gateway was its header line alone (the worker's in-process
client said "disconnected" as soon as the request was read, which ended the streamed
answer after its first piece), and an answer over NATS's max_payload (1 MiB by default)
was a 502. One cluster for the module: one worker, one gateway, NATS carrying at most
128 KiB a message, answers capped at 1 MiB."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from support.adversary import assert_acked, send
from websockets.sync.client import connect

from sixdof.cluster import bus

from .conftest import Cluster, needs_the_bus, running

needs_the_bus()

TOKEN = "T-large"
MAX_PAYLOAD = 128 * 1024
CAP = 1024 * 1024


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    limits = (f"max_answer_bytes={CAP}",)
    c = Cluster(tmp_path_factory.mktemp("large"), 1, 1, token=TOKEN,
                nats_max_payload=MAX_PAYLOAD, worker_limits=limits)  # fmt: skip
    with running(c):
        yield c


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return int(r.status), dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code), dict(exc.headers), exc.read()


def put(base: str, room: str, scenario: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"{base}api/rooms/{room}/scenario?token={TOKEN}", data=json.dumps(scenario).encode(),
        method="PUT", headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as r:
        return int(r.status)


def crowd(n: int) -> dict[str, Any]:
    bodies = [{"Name": f"B{i}", "Pos": [i, 0, 0], "Gravity": 0.0} for i in range(n)]
    return {"name": "crowd", "bodies": bodies}


def control(base: str, room: str, *messages: dict[str, Any]) -> None:
    """Send `messages` to `room` as its controller, each once the one before is acked (sent
    again after the wait a `rate_limited` refusal names: a step's estimate is charged to the
    address's budget before it runs, and a loaded machine's measured step costs more)."""
    url = base.replace("http", "ws") + f"ws?room={room}&token={TOKEN}"
    with connect(url, open_timeout=30, max_size=None) as ws:
        for mid, message in enumerate(messages):
            assert_acked(send(ws, message, mid))


def pause(base: str, room: str) -> None:
    control(base, room, {"type": "pause"})


def run_until(base: str, room: str, t: float) -> None:
    """Until a viewer of the room gets a state frame of simulated time `t` or later."""
    deadline = time.monotonic() + 60
    with connect(base.replace("http", "ws") + f"ws?room={room}", open_timeout=30) as ws:
        while True:
            assert time.monotonic() < deadline, f"{room} never reached t = {t} s"
            msg = json.loads(ws.recv(timeout=10))
            if msg["type"] == "state" and msg["t"] >= t:
                return


def from_the_worker(nats_url: str, room: str, path: str) -> tuple[int, bytes]:
    """GET /api/rooms/<room>/<path> asked of the room's worker itself on the bus (no
    gateway): its answer's status and body, its pieces put together (bus.py, `more`)."""

    async def ask() -> tuple[int, bytes]:
        import nats

        nc = await nats.connect(servers=nats_url.split(","))
        try:
            head = {"method": "GET", "path": f"/api/rooms/{room}/{path}",
                    "query": f"token={TOKEN}", "headers": [], "client": "127.0.0.1"}  # fmt: skip
            reply = await nc.request(bus.room_subject(room, "http"), bus.pack_http(head, b""),
                                     timeout=60)  # fmt: skip
            answer, body = bus.unpack_http(reply.data)
            more = answer.get("more")
            while more is not None and len(body) < more["size"]:
                ask = bus.encode({"id": more["id"], "offset": len(body)})
                piece = (await nc.request(more["subject"], ask, timeout=60)).data
                assert piece, f"the answer broke off at {len(body)} of {more['size']} bytes"
                body += piece
            return int(answer["status"]), body
        finally:
            await nc.close()

    return asyncio.run(ask())


def rows(text: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.decode())))


def test_history_csv_through_the_gateway_is_the_workers_row_for_row(lab: Cluster) -> None:
    base = lab.gateways[0]
    assert put(base, "hist", crowd(8)) == 200
    run_until(base, "hist", 4.0)  # ~240 rows of 8 bodies at rest: ~320 KB of CSV, 3 messages
    pause(base, "hist")
    status, headers, through = get(f"{base}api/rooms/hist/history.csv?token={TOKEN}")
    assert status == 200, (status, through[:300])
    direct_status, direct = from_the_worker(lab.nats_url, "hist", "history.csv")
    assert direct_status == 200
    assert len(direct) > 2 * MAX_PAYLOAD, len(direct)  # more than two NATS messages
    ours, theirs = rows(through), rows(direct)
    print(f"history.csv: {len(through)} bytes, {len(ours) - 1} rows through the gateway")
    assert len(ours) > 100, f"{len(ours)} lines: {through[:200]!r}"  # not the header alone
    assert ours[0][:2] == ["Time", "B0.Pos[0]"]
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a == b, f"row {k} differs"
    assert through == direct
    assert int(headers["content-length"]) == len(through)
    assert all(len(r) == len(ours[0]) for r in ours)  # every row whole
    times = [float(r[0]) for r in ours[1:]]
    assert times == sorted(times) and len(set(times)) == len(times)
    _, _, stats = get(f"{base}api/rooms/hist/stats")
    assert times[-1] == pytest.approx(json.loads(stats)["t"], abs=1e-9)  # up to the pause


def test_a_recording_through_the_gateway_is_the_workers(lab: Cluster) -> None:
    base = lab.gateways[0]
    assert put(base, "rec", crowd(64)) == 200
    # 12 s of 64 bodies: a keyframe (~40 KB) every 3,125 steps
    control(base, "rec", {"type": "pause"}, {"type": "step", "n": 6000},
            {"type": "step", "n": 6000})  # fmt: skip
    status, _, through = get(f"{base}api/rooms/rec/recording?token={TOKEN}")
    assert status == 200, (status, through[:300])
    assert len(through) > MAX_PAYLOAD
    assert json.loads(through)["format"] == "sixdof-recording"
    assert (200, through) == from_the_worker(lab.nats_url, "rec", "recording")


def test_an_answer_over_the_cap_is_refused_naming_it(lab: Cluster) -> None:
    base = lab.gateways[0]
    assert put(base, "huge", crowd(64)) == 200
    run_until(base, "huge", 3.0)  # ~180 rows of 64 bodies at rest: ~1.8 MB, over the 1 MiB cap
    asked = time.monotonic()
    status, _, body = get(f"{base}api/rooms/huge/history.csv?token={TOKEN}")
    took = time.monotonic() - asked
    print(f"history.csv over the cap: {status} in {took:.2f} s: {body[:200]!r}")
    assert status == 413, (status, body[:300])
    detail = json.loads(body)["detail"]
    assert "max_answer_bytes" in detail and str(CAP) in detail, detail
    status, _, stats = get(f"{base}api/rooms/huge/stats")  # the room and its worker go on
    assert status == 200 and json.loads(stats)["room"] == "huge"
