"""The cluster holds (issue 40, findings 2 and 12): the bus lets in only those with its
password, a gateway sends a worker only the routes a room has, after their checks, and a
worker decides itself who may control its rooms and what a message may cost
(docs/scaling.md, "The bus is locked").

One cluster for the module: nats-server run with deploy/nats.conf, the compose file's (every
client logs in as `sixdof`), a worker and a gateway logging in with the password, the token
TOKEN, the worker holding at most 4 rooms of token holders and 2 of watchers (the issue's
cap was 24: a smaller one is reached sooner, the same way)."""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from .conftest import (
    FLOAT,
    MASS,
    NATS_CONF,
    NATS_SERVER,
    NATS_USER,
    Cluster,
    Proc,
    free_port,
    http,
    needs_the_bus,
    running,
)

needs_the_bus()

TOKEN = "T-locked"
PASSWORD = secrets.token_hex(12)
MAX_ROOMS, MAX_WATCHER_ROOMS = 4, 2


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("locked"), 1, 1, token=TOKEN, nats_password=PASSWORD,
                worker_limits=(f"max_rooms={MAX_ROOMS}",
                               f"max_watcher_rooms={MAX_WATCHER_ROOMS}"))  # fmt: skip
    with running(c, TOKEN, PASSWORD):  # neither the token nor the password in a log line
        yield c


def on_bus(lab: Cluster, work: Callable[[Any], Awaitable[Any]], **login: str) -> Any:
    """`work(nc)` on a NATS connection of its own, logged in with `login` (none: anonymous,
    as the issue's client was)."""
    from nats.aio.client import Client

    async def quiet(exc: Exception) -> None:
        pass

    async def main() -> Any:
        nc = Client()
        try:
            await nc.connect(servers=lab.nats_url.split(","), allow_reconnect=False,
                             connect_timeout=10, error_cb=quiet, **login)  # fmt: skip
        except Exception:
            await nc.close()  # its socket too
            raise
        try:
            return await work(nc)
        finally:
            await nc.close()

    return asyncio.run(main())


def logged_in(lab: Cluster, work: Callable[[Any], Awaitable[Any]]) -> Any:
    """`work(nc)` as a bus client with the password but not the token (a leaked password,
    a gateway started without the workers' token)."""
    return on_bus(lab, work, user=NATS_USER, password=PASSWORD)


def viewer(base: str, room: str, token: str | None = TOKEN) -> ClientConnection:
    query = f"room={room}" + (f"&token={token}" if token else "")
    return connect(base.replace("http", "ws") + f"ws?{query}", open_timeout=30).__enter__()


def until(conn: ClientConnection, kind: str, timeout: float = 120.0) -> Any:
    """The next message of type `kind` (an `error` instead of an awaited `ack`: raised)."""
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(conn.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == kind:
            return msg
        assert not (kind == "ack" and msg["type"] == "error"), msg


def test_the_bus_lets_in_only_who_has_its_password(lab: Cluster) -> None:
    from nats.errors import Error as NatsError

    async def subscribe_all(nc: Any) -> None:
        await nc.subscribe(">")
        await nc.flush()

    # the client: anonymous, listening to every subject; and a wrong password
    for login in ({}, {"user": NATS_USER, "password": "wrong"}):
        with pytest.raises(NatsError, match="Authorization Violation"):
            on_bus(lab, subscribe_all, **login)
    # a worker or a gateway without the password says why in a line, and stops (a worker
    # retried for ever, a gateway's web server printed a traceback)
    for role in ("worker", "gateway"):
        alone = Proc([sys.executable, "-m", "sixdof", role, "--nats", lab.nats_url])
        try:
            alone.wait_for(r"^sixdof: --nats: .* refused sixdof-[\w-]+'s credentials \(no "
                           r"credentials\).*SIXDOF_NATS_USER and SIXDOF_NATS_PASSWORD")  # fmt: skip
            assert alone.proc.wait(60) == 1
        finally:
            alone.stop()
        assert "Traceback" not in alone.output, alone.output
    # the worker and the gateway, with it, run a room: a viewer watches, the token controls
    conn = viewer(lab.gateways[0], "lab")
    try:
        hello = until(conn, "hello")
        assert hello["can_control"] is True
        conn.send(json.dumps({"type": "pause", "id": 1}))
        assert until(conn, "ack")["id"] == 1
        assert until(conn, "state")["status"]["running"] is False
    finally:
        conn.close()
    assert "(user sixdof)" in lab.workers[0].output  # how it logged in, not the password


def test_a_path_that_ends_in_share_opens_no_room(lab: Cluster) -> None:
    """Finding 2: `PUT /api/rooms/R/<anything>/share` without the token passed the gateway
    as a Share link (by how its path ends), and opened room R on a worker before the
    worker's app said 404; 23 of 30 such rooms were made, then a token holder got 503."""
    base = lab.gateways[0]
    for k in range(30):
        status, answer = http("PUT", f"{base}api/rooms/R{k}/x/share", b"{}")
        assert status == 404, (k, status, answer)
    # lookalikes: no route is 404, a route's other methods 405, all before any worker
    assert http("POST", f"{base}api/rooms/R0/x/share", b"{}")[0] == 404
    assert http("GET", f"{base}api/rooms/R0/stats/x")[0] == 404
    assert http("PUT", f"{base}api/rooms/R0/share", b"{}")[0] == 405
    assert http("DELETE", f"{base}api/rooms/R0/scenario")[0] == 405
    # the real Share route is open to watchers, but makes no room that nobody runs
    assert http("POST", f"{base}api/rooms/R0/share", b"{}")[0] == 404
    for k in range(30):  # not one of them was made: none has an owner to answer
        assert http("GET", f"{base}api/rooms/R{k}/stats")[0] == 404, k

    async def leases(nc: Any) -> list[str]:
        kv = await nc.jetstream().key_value("sixdof-leases")
        try:
            return [key for key in await kv.keys() if not key.startswith("worker.")]
        except Exception:  # nats-py: "no keys found"
            return []

    assert not [key for key in logged_in(lab, leases) if key.startswith("R")]
    # a token holder makes rooms, up to the worker's max_rooms
    scenario = json.dumps(FLOAT.model_dump(mode="json")).encode()
    status, answer = http("PUT", f"{base}api/rooms/lecture/scenario?token={TOKEN}", scenario)
    assert status == 200, (status, answer)
    assert http("GET", f"{base}api/rooms/lecture/stats")[0] == 200
    # a watcher may share a room that runs; its recording needs the token
    assert http("POST", f"{base}api/rooms/lecture/share", b"{}")[0] == 200
    assert http("POST", f"{base}api/rooms/lecture/share?what=recording", b"{}")[0] == 403


def test_a_worker_does_not_take_a_messages_word(lab: Cluster) -> None:
    """Finding 12's client, with the bus's password but not the token: what it says of
    itself (a controller's room, a budget) is not believed, a command without the token's
    proof is refused, and a proof is good once."""
    conn = viewer(lab.gateways[0], "watched")
    try:
        until(conn, "state")

        async def attack(nc: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"opened": [], "refused": []}
            # rooms "by_watcher": false, as a gateway's request said: watchers' rooms still
            for k in range(MAX_WATCHER_ROOMS + 2):
                ask = {"room": f"w{k}", "by_watcher": False}
                reply = json.loads((await nc.request("sixdof.open", json.dumps(ask).encode(),
                                                     timeout=30)).data)  # fmt: skip
                out["refused" if "refused" in reply else "opened"].append(reply)
            # a command with no proof, with a made-up one, with one made with another token
            text = json.dumps({"type": "set_params", "id": 7, "body": "B", "Mass": 9.0})
            forged = {"session": "s", "seq": 1, "at": "0", "mac": "0" * 64}
            from sixdof.cluster.proof import Signer

            other = Signer("not-the-token").proof("cmd", "watched", text)
            for proof in (None, forged, other):
                ask = {"text": text, "left": 1e9, "proof": proof}
                reply = await nc.request("room.watched.cmd", json.dumps(ask).encode(), timeout=30)
                out.setdefault("cmd", []).append(json.loads(json.loads(reply.data)["replies"][0]))
            # a real command, seen on the bus, sent again
            seen: asyncio.Queue[bytes] = asyncio.Queue()

            async def tap(msg: Any) -> None:
                await seen.put(msg.data)

            await nc.subscribe("room.watched.cmd", cb=tap)
            await nc.flush()
            # the tap's interest reaches the gateway's NATS node some time after the flush
            # answers on ours (a loaded run missed the first command for 60 s): the same
            # command, under a new id, until one is seen
            deadline = time.monotonic() + 60
            while True:
                mid = 8 + len(out.setdefault("sent", []))
                out["sent"].append(mid)
                command = {"type": "set_params", "id": mid, "body": "B", "Mass": 3.0}
                conn.send(json.dumps(command))
                try:
                    captured = await asyncio.wait_for(seen.get(), 5)
                    break
                except asyncio.TimeoutError:
                    assert time.monotonic() < deadline, "the gateway's command never seen"
            reply = await nc.request("room.watched.cmd", captured, timeout=30)
            out["replay"] = json.loads(json.loads(reply.data)["replies"][0])
            return out

        out = logged_in(lab, attack)
        acked = [until(conn, "ack")["id"] for _ in out["sent"]]
        assert acked == out["sent"]  # each of the gateway's commands went through, once
    finally:
        conn.close()
    assert len(out["opened"]) <= MAX_WATCHER_ROOMS, out  # a watcher's rooms, capped apart
    assert out["refused"], out
    for reply in out["refused"]:
        assert "rooms made without the token" in reply["refused"], reply
    for error in out["cmd"]:
        assert (error["type"], error["code"], error["field"], error["id"]) == (
            "error", "forbidden", "token", 7), error  # fmt: skip
    assert "no proof" in out["cmd"][0]["message"]
    assert "without this worker's token" in out["cmd"][2]["message"]
    assert out["replay"]["code"] == "forbidden" and "replay" in out["replay"]["message"]
    # the room's mass is the gateway's command's, never the bus client's
    status, answer = http("GET", f"{lab.gateways[0]}api/rooms/watched/scenario")
    scenario = json.loads(answer)
    assert status == 200 and scenario["bodies"][0]["Mass"] == 3.0 != MASS, scenario


def certificates(folder: Path) -> dict[str, Path]:
    """A CA and a certificate it signed for 127.0.0.1 (openssl), in `folder`."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    files = {n: folder / f"{n}.pem" for n in ("ca", "ca-key", "server", "server-key")}
    csr, ext = folder / "server.csr", folder / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")
    for cmd in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=sixdof-ca",
         "-keyout", files["ca-key"], "-out", files["ca"]],
        ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
         "-keyout", files["server-key"], "-out", csr],
        ["x509", "-req", "-in", csr, "-CA", files["ca"], "-CAkey", files["ca-key"],
         "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", files["server"]],
    ):  # fmt: skip
        subprocess.run([openssl, *map(str, cmd)], check=True, capture_output=True, timeout=60)
    return files


def test_a_bus_that_leaves_the_host_speaks_tls(tmp_path: Path) -> None:
    """nats-server with deploy/nats.conf and a `tls {}` block: a worker given a `tls://` URL
    and SIXDOF_NATS_CA logs in over TLS; without the CA it stops, saying what to set."""
    files = certificates(tmp_path)
    conf = tmp_path / "tls.conf"
    shutil.copy(NATS_CONF, tmp_path / "nats.conf")
    tls = f'cert_file: "{files["server"]}", key_file: "{files["server-key"]}"'
    conf.write_text(f'include "nats.conf"\ntls {{ {tls} }}\n')
    port = free_port()
    server = Proc([str(NATS_SERVER), "-c", str(conf), "-js", "-sd", str(tmp_path / "js"),
                   "-a", "127.0.0.1", "-p", str(port)],
                  env={"SIXDOF_NATS_PASSWORD": PASSWORD})  # fmt: skip
    try:
        server.wait_for("Server is ready")
        url = f"tls://127.0.0.1:{port}"
        login = {"SIXDOF_NATS_PASSWORD": PASSWORD}
        untrusting = Proc([sys.executable, "-m", "sixdof", "worker", "--nats", url], env=login)
        try:
            untrusting.wait_for(r"TLS with tls://127\.0\.0\.1:\d+ failed "
                                r".*CERTIFICATE_VERIFY_FAILED.*SIXDOF_NATS_CA")  # fmt: skip
            assert untrusting.proc.wait(60) == 1
        finally:
            untrusting.stop()
        trusting = Proc([sys.executable, "-m", "sixdof", "worker", "--nats", url],
                        env={**login, "SIXDOF_NATS_CA": str(files["ca"])})  # fmt: skip
        try:
            trusting.wait_for(r"worker w-\w+ on tls://127\.0\.0\.1:\d+ \(user sixdof, TLS\)")
            trusting.wait_for(r"physics ready")  # its buckets made, over TLS
        finally:
            trusting.stop()
        assert PASSWORD not in trusting.output + untrusting.output
    finally:
        server.stop()
