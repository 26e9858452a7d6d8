"""The first visitor of a fresh install does not wait in silence (issue 32): with numba's
cache empty, `sixdof serve` says so on its console and compiles the kernels at once in a
child process (`sixdof warm`), answering HTTP meanwhile with its own memory unchanged; a
viewer who comes meanwhile gets `preparing` at once, then its progress each second, then
the room."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from sixdof.dynamics import kernel_cache
from sixdof.server.protocol import server_message_adapter

from .conftest import Served
from .test_lazy_physics import IDLE_RSS_LIMIT_KIB, llvm_mapped

FIRST_MESSAGE_S = 2.0
FIRST_ANSWER_S = 1.0
COMPILE_S = 400.0  # ~10-15 s alone; 275 s measured on a test machine at load 17


def test_a_cold_cache_is_compiled_at_once_and_the_first_viewer_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # empty: a fresh install
    server = Served()
    try:
        assert any("numba's cache is cold" in line for line in server.lines)
        assert any("sixdof warm" in line for line in server.lines)
        asked = time.monotonic()
        with urllib.request.urlopen(f"{server.url}/api/health", timeout=10) as reply:
            assert reply.status == 200
        answered = time.monotonic() - asked
        assert answered < FIRST_ANSWER_S, f"the first HTTP answer took {answered:.2f} s"
        compiling = kernel_cache.is_cold()  # this test's env: the server's cache directory
        # the compilation is the child's: this process holds no numba, and no more memory
        assert not llvm_mapped(server.pid)
        assert server.rss_kib() < IDLE_RSS_LIMIT_KIB, f"{server.rss_kib() / 1024:.0f} MiB"
        with connect(f"{server.ws_url}?room=cold", open_timeout=10) as ws:
            opened = time.monotonic()
            first = json.loads(ws.recv(timeout=FIRST_MESSAGE_S))
            first_at = time.monotonic() - opened
            server_message_adapter.validate_python(first)
            assert first["type"] == "preparing", first
            assert "preparing the physics" in first["message"]
            assert first["expected"] >= first["elapsed"]
            if compiling:  # still compiling when the viewer came (the usual case)
                assert first["cold"] is True and first["progress"] is not None, first
            messages = [first]
            deadline = opened + COMPILE_S
            while messages[-1]["type"] != "state":  # the kernels compiled: the room runs
                left = deadline - time.monotonic()
                assert left > 0, f"no state frame within {COMPILE_S} s: {messages[-3:]}"
                msg = json.loads(ws.recv(timeout=left))
                server_message_adapter.validate_python(msg)
                messages.append(msg)
            state_at = time.monotonic() - opened
        kinds = [m["type"] for m in messages]
        hello = kinds.index("hello")
        assert set(kinds[:hello]) == {"preparing"}, kinds
        compiling = [m for m in messages[:hello] if m["progress"] is not None]
        progress = [m["progress"] for m in compiling]
        assert progress == sorted(progress), progress  # it only goes forward
        elapsed = [m["elapsed"] for m in compiling]
        assert elapsed == sorted(elapsed), elapsed
        for m in messages[len(compiling) : hello]:  # compiled: the rest is loading it here
            assert m["progress"] is None and "loading" in m["message"], m
        print(f"cold start: first HTTP answer after {answered:.3f} s, preparing after "
              f"{first_at:.3f} s, {hello} preparing messages (progress {progress}), first "
              f"state after {state_at:.1f} s")  # fmt: skip
        with connect(f"{server.ws_url}?room=later", open_timeout=10) as ws:  # now loaded
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
    except BaseException:
        print("".join(server.lines[-40:]))  # what the server said, for the failure's report
        raise
    finally:
        server.stop()
    log = "".join(server.lines)
    assert "Traceback" not in log, log[-4000:]
    assert "failed" not in log, log[-4000:]
