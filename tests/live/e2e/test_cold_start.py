"""The first visitor of a fresh install does not wait in silence (issue 32): with numba's
cache cold, `sixdof serve` says so on its console and compiles the kernels at once in a
child process (`sixdof warm`), answering HTTP meanwhile with its own memory unchanged; a
viewer who comes meanwhile gets `preparing` first, then its progress, then the room.

The cache lacks one kernel (support/coldcache.py): a real compile, held (SIGSTOP) while
the viewer comes, so no test races it. What is asserted is the order of things, not how
long they took: the first answers' times, on a cache that lacks all the free bodies'
kernels, are the timing tier's (tests/timing/test_cold_start_timing.py)."""

from __future__ import annotations

import contextlib
import json
import signal
import time
import urllib.request
from pathlib import Path

import pytest
from support.adversary import replies
from support.coldcache import FREE_BODIES, alive_in_group, held_compile, partly_cold
from websockets.sync.client import connect

from sixdof.dynamics import kernel_cache
from sixdof.server.protocol import server_message_adapter

from .conftest import Served
from .wskit import IDLE_RSS_LIMIT_KIB, llvm_mapped

#: Failure bounds, not figures (a loaded machine is many times slower).
WAIT_S = 300.0


def test_a_cold_cache_is_compiled_at_once_and_the_first_viewer_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    partly_cold(tmp_path / "numba", monkeypatch)
    server = Served()
    stack = contextlib.ExitStack()  # the viewer's websocket, opened while the compile is held
    try:
        assert any("numba's cache is cold" in line for line in server.lines)
        assert any("sixdof warm" in line for line in server.lines)
        # compiling at once, before any viewer: the child is there; held while a viewer comes
        with held_compile(server.pid):
            with urllib.request.urlopen(f"{server.url}/api/health", timeout=WAIT_S) as reply:
                assert reply.status == 200  # HTTP answered meanwhile
            # the compilation is the child's: this process holds no numba, and no more memory
            assert not llvm_mapped(server.pid)
            assert server.rss_kib() < IDLE_RSS_LIMIT_KIB, f"{server.rss_kib() / 1024:.0f} MiB"
            ws = stack.enter_context(connect(f"{server.ws_url}?room=cold", open_timeout=WAIT_S))
            opened = time.monotonic()
            first = json.loads(ws.recv(timeout=WAIT_S))
            first_at = time.monotonic() - opened
            server_message_adapter.validate_python(first)
            assert first["type"] == "preparing", first
            assert "preparing the physics" in first["message"]
            assert first["expected"] >= first["elapsed"]
            assert first["cold"] is True and first["progress"] is not None, first
        messages = [first]
        while messages[-1]["type"] != "state":  # the kernels compiled: the room runs
            msg = json.loads(ws.recv(timeout=WAIT_S))
            server_message_adapter.validate_python(msg)
            messages.append(msg)
        state_at = time.monotonic() - opened
        stack.close()
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
        print(f"cold start: preparing after {first_at:.3f} s, {hello} preparing messages "
              f"(progress {progress}), first state after {state_at:.1f} s")  # fmt: skip
        with connect(f"{server.ws_url}?room=later", open_timeout=10) as ws:  # now loaded
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
    except BaseException:
        print("".join(server.lines[-40:]))  # what the server said, for the failure's report
        raise
    finally:
        stack.close()
        server.stop()
    log = "".join(server.lines)
    assert "Traceback" not in log, log[-4000:]
    assert "failed" not in log, log[-4000:]


def test_a_stop_during_the_compile_ends_it_instead_of_waiting_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM while a viewer waits for a cold start's compile: the server stopped only once
    the compile had finished (17 s measured), since uvicorn waited for the viewer's handler.
    Now the compile is killed first: the server ends with the cache still cold and its
    compiling child gone, whatever the machine's speed (the compile is held with SIGSTOP, so
    it cannot finish first)."""
    partly_cold(tmp_path / "numba", monkeypatch)
    server = Served()
    try:
        with held_compile(server.pid) as child:
            with connect(f"{server.ws_url}?room=cold", open_timeout=WAIT_S) as ws:
                assert json.loads(ws.recv(timeout=WAIT_S))["type"] == "preparing"
                server.proc.send_signal(signal.SIGTERM)
                server.proc.wait(WAIT_S)  # a failure bound: without the fix, never (held)
            assert not alive_in_group(child), "the compile lives on"
        assert kernel_cache.is_cold(), "the compile was waited for"
    finally:
        server.stop()
    assert "Traceback" not in server.output, server.output[-3000:]


def test_rooms_of_free_bodies_run_while_the_elements_kernels_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh install's first visitor does not wait for the elements' kernels (~2 minutes of
    a cold compile): the default room, a free body, runs once the free bodies' kernels are
    ready (here in the cache, the elements' missing), while the child compiles the rest,
    held here (SIGSTOP) so that it cannot finish first. That room pushes, retunes, steps,
    goes back, runs a ghost and writes its history on the free kernels alone: the server
    compiled nothing itself. A scenario with elements is refused meanwhile (`preparing`,
    naming `elements` and how long), and the room keeps its own."""
    partly_cold(tmp_path / "numba", monkeypatch, only=FREE_BODIES)
    server = Served()
    try:
        with connect(f"{server.ws_url}?room=free", open_timeout=WAIT_S) as ws:
            kinds = []
            while not kinds or kinds[-1] != "hello":
                kinds.append(json.loads(ws.recv(timeout=WAIT_S))["type"])
            assert set(kinds[:-1]) <= {"preparing"}, kinds
            with held_compile(server.pid):  # the elements' compile: still going, held here
                health = server.get_json("/api/health")
                assert health["physics"] == "free bodies", health
                acts = [
                    {"type": "set_input", "Force": [5.0, 0.0, 0.0], "channel": "push"},
                    {"type": "set_params", "Mass": 2.0},
                    {"type": "step", "n": 200},
                    {"type": "go_back", "t": 0.05},
                    {"type": "undo_go_back"},
                    {"type": "set_ghost", "changes": {"Mass": 3.0}},
                    {"type": "resume"},
                ]
                for mid, msg in enumerate(acts, 1):
                    ws.send(json.dumps({**msg, "id": mid}))
                got = replies(ws, set(range(1, len(acts) + 1)), timeout=WAIT_S)
                assert all(r["type"] == "ack" for r in got.values()), got
                with urllib.request.urlopen(f"{server.url}/api/rooms/free/history.csv") as r:
                    assert r.status == 200 and len(r.read().splitlines()) > 10
                # refused before anything is charged or built (control.change_cost), each time
                asks = set(range(100, 120))
                for mid in sorted(asks):
                    load = {"type": "load_scenario", "preset": "floating_box", "id": mid}
                    ws.send(json.dumps(load))
                for refused in replies(ws, asks, timeout=WAIT_S).values():
                    assert refused["type"] == "error" and refused["code"] == "preparing", refused
                    assert refused["field"] == "elements" and "try again in" in refused["message"]
                frame = json.loads(ws.recv(timeout=WAIT_S))
                while frame["type"] != "state":
                    assert frame["type"] != "hello", frame  # the room kept its scenario
                    frame = json.loads(ws.recv(timeout=WAIT_S))
                assert len(frame["bodies"]) == 1
                health = server.get_json("/api/health")
                assert health["kernels_compiled_here"] == 0, health
                assert health["physics"] == "free bodies", health
    except BaseException:
        print("".join(server.lines[-40:]))
        raise
    finally:
        server.stop()
    server.check_log()
