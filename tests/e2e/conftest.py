"""A real `sixdof serve` on a free loopback port, as a separate process, for end-to-end tests.

The server is started with `--port 0`; it prints the URL with the port it got, which the
fixture reads, so there is no race for a port. Clients use the `websockets` library.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sixdof.scenario import BodySpec, Integration, Scenario

URL_LINE = re.compile(r"sixdof: serving (http://127\.0\.0\.1:(\d+)/)")

#: One body at rest, no gravity: a push gives a = F/m and nothing else.
MASS = 2.0
FLOAT = Scenario(
    name="float",
    caption="no gravity, at rest",
    bodies=[BodySpec(Name="B", Mass=MASS, Gravity=0.0, InertiaRadi=(0.3, 0.4, 0.5))],
    integration=Integration(method="rk4", stepsize=1e-3),
)


class LiveServer:
    """`python -m sixdof.cli serve` in a subprocess; `url`, `ws_url`, `pid`, `rss_kib()`."""

    def __init__(self, scenario_file: Path | None, *args: str) -> None:
        """scenario_file None: the default preset, as `sixdof serve` starts without options."""
        scenario = ["--scenario", str(scenario_file)] if scenario_file is not None else []
        cmd = [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0", *scenario, *args]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        self.lines: list[str] = []
        found = threading.Event()

        def pump() -> None:  # keep reading so the server never blocks on a full pipe
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)
                if URL_LINE.search(line):
                    found.set()

        self._pump = threading.Thread(target=pump, daemon=True)
        self._pump.start()
        if not found.wait(90.0):
            self.stop()
            raise RuntimeError("sixdof serve printed no URL:\n" + "".join(self.lines[-40:]))
        match = next(m for line in self.lines if (m := URL_LINE.search(line)))
        self.url, self.port = match.group(1), int(match.group(2))
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.pid = self.proc.pid

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._pump.join(5)  # the pipe reaches EOF once the process is gone
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    path = tmp_path_factory.mktemp("e2e") / "float.json"
    path.write_text(json.dumps(FLOAT.model_dump(mode="json")))
    server = LiveServer(path)
    try:
        yield server
    finally:
        server.stop()
        assert server.proc.returncode is not None
        assert "Traceback" not in "".join(server.lines), "".join(server.lines[-60:])
