"""The first visitor of a fresh install does not wait in silence (issue 32): with numba's
cache empty the first room compiles the kernels (~10 s); `sixdof serve` says so on its
console, and the viewer's first websocket message, at once, is `preparing`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

from sixdof.server.protocol import server_message_adapter

from .conftest import LiveServer

FIRST_MESSAGE_S = 2.0
COMPILE_S = 60.0


@pytest.mark.slow
def test_a_cold_cache_first_says_it_is_preparing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # empty: a fresh install
    server = LiveServer(None)
    try:
        assert any("numba's cache is cold" in line for line in server.lines)
        assert any("sixdof warm" in line for line in server.lines)
        with connect(f"{server.ws_url}?room=cold", open_timeout=10) as ws:
            opened = time.monotonic()
            first = json.loads(ws.recv(timeout=FIRST_MESSAGE_S))
            first_at = time.monotonic() - opened
            server_message_adapter.validate_python(first)
            assert first["type"] == "preparing", first
            assert first["cold"] is True
            assert "preparing the physics" in first["message"]
            kinds = [first["type"]]
            deadline = opened + COMPILE_S
            while "state" not in kinds:  # the kernels compiled: the room runs
                left = deadline - time.monotonic()
                assert left > 0, f"no state frame within {COMPILE_S} s: {kinds}"
                msg = json.loads(ws.recv(timeout=left))
                server_message_adapter.validate_python(msg)
                kinds.append(msg["type"])
            state_at = time.monotonic() - opened
            assert kinds[1] == "hello", kinds
        print(f"cold start: preparing after {first_at:.3f} s, first state after {state_at:.1f} s")
        with connect(f"{server.ws_url}?room=later", open_timeout=10) as ws:  # now loaded
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.lines), "".join(server.lines[-40:])
