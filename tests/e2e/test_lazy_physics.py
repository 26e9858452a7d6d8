"""A server nobody has joined holds no physics: numba and its kernels load with the first room.

Checked on a real `sixdof serve` from outside, as an operator would: its memory map (numba's
LLVM library, libllvmlite, is mapped once numba is imported) and its resident memory.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

from .conftest import FLOAT, LiveServer

IDLE_RSS_LIMIT_KIB = 100 * 1024  # issue 14's goal; numba alone takes ~90 MiB more


def llvm_mapped(pid: int) -> bool:
    return "libllvmlite" in Path(f"/proc/{pid}/maps").read_text()


def test_the_physics_loads_with_the_first_room(tmp_path: Path) -> None:
    path = tmp_path / "float.json"
    path.write_text(json.dumps(FLOAT.model_dump(mode="json")))
    server = LiveServer(path)
    try:
        for route in ("api/health", "", "api/presets"):  # the page and REST, no room yet
            with urllib.request.urlopen(f"{server.url}{route}", timeout=10) as r:
                assert r.status == 200
        assert not llvm_mapped(server.pid)
        idle = server.rss_kib()
        assert idle < IDLE_RSS_LIMIT_KIB, f"idle RSS {idle / 1024:.0f} MiB"
        with connect(f"{server.ws_url}?room=first", open_timeout=30) as ws:
            kinds = []
            while "state" not in kinds:  # the room runs: its physics loaded
                kinds.append(json.loads(ws.recv(timeout=60))["type"])
            assert kinds[0] == "hello"
        assert llvm_mapped(server.pid)
        assert server.rss_kib() > idle + 40 * 1024  # numba and the kernels, now resident
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.lines), "".join(server.lines[-40:])
