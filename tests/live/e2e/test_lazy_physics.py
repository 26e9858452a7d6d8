"""A server nobody has joined holds no physics: numpy, numba and its kernels load with the
first room, so `sixdof serve` starts about as fast as a bare FastAPI app (issue 14).

Checked on a real `sixdof serve` from outside, as an operator would: its memory map (numba's
LLVM library, libllvmlite, is mapped once numba is imported; numpy's core extension once
numpy is) and its resident memory.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from .conftest import FLOAT, Served
from .wskit import IDLE_RSS_LIMIT_KIB, llvm_mapped, numpy_mapped


@pytest.mark.parametrize("scenario", ["default preset", "--scenario file"])
def test_the_physics_loads_with_the_first_room(tmp_path: Path, scenario: str) -> None:
    path = None
    if scenario == "--scenario file":  # read and checked at start-up: numpy, not numba
        path = tmp_path / "float.json"
        path.write_text(json.dumps(FLOAT.model_dump(mode="json")))
    server = Served(scenario=path)
    try:
        for route in ("/api/health", "/", "/api/presets", "/api/protocol.schema.json"):
            with urllib.request.urlopen(f"{server.url}{route}", timeout=10) as r:
                assert r.status == 200  # the page and REST, no room yet
        assert not llvm_mapped(server.pid)
        assert numpy_mapped(server.pid) == (path is not None)
        idle = server.rss_kib()
        assert idle < IDLE_RSS_LIMIT_KIB, f"idle RSS {idle / 1024:.0f} MiB"
        with connect(f"{server.ws_url}?room=first", open_timeout=30) as ws:
            kinds = []
            while "state" not in kinds:  # the room runs: its physics loaded
                kinds.append(json.loads(ws.recv(timeout=60))["type"])
            hello = kinds.index("hello")  # the first joiner is told why it waits
            assert hello >= 1 and set(kinds[:hello]) == {"preparing"}, kinds
        assert llvm_mapped(server.pid)
        assert numpy_mapped(server.pid)
        assert server.rss_kib() > idle + 40 * 1024  # numba and the kernels, now resident
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.lines), "".join(server.lines[-40:])
