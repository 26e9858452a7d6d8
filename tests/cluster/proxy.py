"""A two-gateway cluster behind haproxy with the repository's deploy/haproxy.cfg, and what a
viewer does through it."""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import ClientConnection, connect

from .conftest import Cluster, Proc, free_port, running

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[Cluster, str]]:
    if not Path(HAPROXY).exists():
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    cluster = Cluster(tmp_path, workers=1, gateways=2)
    port = free_port()
    text = CONFIG.read_text().replace("bind :8080", f"bind 127.0.0.1:{port}")
    # its health checks on its output: the test waits for both gateways' first one
    text = text.replace("global\n", "global\n    log stdout format raw local0\n", 1)
    text = text.replace("defaults\n", "defaults\n    log global\n    option log-health-checks\n", 1)
    for i, base in enumerate(cluster.gateways, start=1):
        text, n = re.subn(rf"gateway{i}:8000", base.removeprefix("http://").rstrip("/"), text)
        assert n == 1, f"gateway{i} is not in {CONFIG}"
    config = tmp_path / "haproxy.cfg"
    config.write_text(text)
    proxy = Proc([HAPROXY, "-db", "-f", str(config)])
    url = f"http://127.0.0.1:{port}/"
    with running(cluster):
        try:
            for name in ("gateway1", "gateway2"):
                proxy.wait_for(rf"Health check for server gateways/{name} succeeded", timeout=60)
            yield cluster, url
        finally:
            proxy.stop()


def state_t(conn: ClientConnection) -> float:
    while True:
        msg = json.loads(conn.recv(timeout=30))
        if msg["type"] == "state":
            return float(msg["t"])


def rooms(base: str) -> set[str]:
    """The rooms gateway `base` has viewers in."""
    with urllib.request.urlopen(f"{base}api/rooms", timeout=30) as r:
        return {room["room"] for room in json.loads(r.read())}


def kill_the_viewers_gateway(cluster: Cluster, url: str) -> tuple[float, int]:
    """A viewer of room lb through the proxy at `url`; its gateway SIGKILLed, its socket seen
    closed. (the room's time then, the index of the gateway left)."""
    viewer = connect(url.replace("http", "ws") + "ws?room=lb", open_timeout=30).__enter__()
    before = state_t(viewer)
    served = [i for i, base in enumerate(cluster.gateways) if "lb" in rooms(base)]
    assert len(served) == 1
    cluster.gateway_procs[served[0]].kill()
    with pytest.raises(Exception):  # noqa: B017 - the socket of a killed process: any close
        while True:
            viewer.recv(timeout=30)
    viewer.close()
    return before, 1 - served[0]
