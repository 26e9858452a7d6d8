"""Start-up and memory of `sixdof serve`, beside the floor of a bare FastAPI app on uvicorn.

Launches are warm, as `make run` starts them: after `sixdof warm` (numba's cache and the
package's bytecode written). Each launch is timed from `Popen` to the first HTTP 200 of
/api/health (polled every 5 ms, so the figure is not the server's own announcement). The
floor is the same Python with FastAPI and uvicorn serving one route: what any server of this
stack pays. Then, per `sixdof serve` run: its RSS once idle (no room, no client), the first
room's join (connect → hello: the physics loads then, `Rooms.physics_ready`) and the RSS
with that room open.

    python benchmarks/bench_startup.py                    # 10 launches of each
    python benchmarks/bench_startup.py --hour 60          # then one room for 60 minutes,
                                                          # its RSS every minute
    python benchmarks/bench_startup.py --history-rooms 50 # then 50 rooms with full
                                                          # histories, float64 and float32
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from statistics import median
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

FLOOR_APP = """
import uvicorn
from fastapi import FastAPI
app = FastAPI()
@app.get("/api/health")
def health() -> dict:
    return {{"ok": True}}
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def launch(cmd: list[str], port: int) -> tuple[subprocess.Popen[bytes], float]:
    """Start `cmd` and poll its /api/health; (process, seconds to the first 200)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}/api/health"
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc, time.perf_counter() - start
        except OSError:
            if proc.poll() is not None or time.perf_counter() - start > 120:
                proc.kill()
                sys.exit(f"{cmd} did not answer")
            time.sleep(0.005)  # polling the server's readiness


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def idle_rss(proc: subprocess.Popen[bytes], settle: float = 2.0) -> float:
    """RSS after `settle` s with nothing asked of the server (what it holds at rest)."""
    time.sleep(settle)  # the quantity measured is the memory after a quiet while
    return rss_mib(proc.pid)


def first_room(port: int) -> tuple[Any, float]:
    """Join a room; (open websocket, seconds from connect to its hello)."""
    start = time.perf_counter()
    ws = connect(f"ws://127.0.0.1:{port}/ws?room=bench", open_timeout=60).__enter__()
    while True:
        message = json.loads(ws.recv(timeout=60))
        if message.get("type") == "hello":
            return ws, time.perf_counter() - start


def history_memory(precision: str, rooms: int) -> dict[str, float]:
    """RSS of a server whose `rooms` rooms each hold a full 60 s history, at `precision`.

    Each room is paused and stepped 60 s of simulated time (6 × 10,000 steps of 1 ms: a row
    per frame, 3,600 rows), so the rings are written through; the figure per room is the RSS
    grown from the rooms open (empty rings are not resident yet) to the rings full.
    """
    port = free_port()
    limits = [f"history_precision={precision}", "work_rate=1000", "work_burst=1000"]
    cmd = [sys.executable, "-m", "sixdof", "serve", "--port", str(port)]
    for limit in limits:
        cmd += ["--limit", limit]
    proc, _ = launch(cmd, port)
    sockets = []
    try:
        for k in range(rooms):
            ws = connect(
                f"ws://127.0.0.1:{port}/ws?room=h{k}", open_timeout=60, max_queue=None
            ).__enter__()
            while json.loads(ws.recv(timeout=60)).get("type") != "hello":
                pass
            ws.send(json.dumps({"type": "pause", "id": 0}))
            sockets.append(ws)
        before = rss_mib(proc.pid)
        for ws in sockets:
            for i in range(1, 7):
                ws.send(json.dumps({"type": "step", "n": 10_000, "id": i}))
        for ws in sockets:  # every step acknowledged: the rings are full
            acked = set()
            while len(acked) < 7:
                message = json.loads(ws.recv(timeout=60))
                if message.get("type") == "error":
                    sys.exit(f"history_memory: {message}")
                if message.get("type") == "ack":
                    acked.add(message.get("id"))
        after = rss_mib(proc.pid)
    finally:
        for ws in sockets:
            ws.close()
        stop(proc)
    return {"rooms_open_mib": before, "rings_full_mib": after,
            "per_room_mib": (after - before) / rooms}  # fmt: skip


def hour(port: int, pid: int, minutes: int) -> list[dict[str, float]]:
    """One room with one client reading every frame for `minutes`; RSS each minute."""
    ws, _ = first_room(port)
    frames = [0]
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                ws.recv(timeout=10)
                frames[0] += 1
        except ConnectionClosed:
            pass  # closed at the end of the hour

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    samples = [{"minute": 0, "rss_mib": rss_mib(pid), "frames": 0}]
    t0 = time.monotonic()
    for m in range(1, minutes + 1):
        time.sleep(max(0.0, t0 + 60 * m - time.monotonic()))  # one sample per wall minute
        samples.append({"minute": m, "rss_mib": rss_mib(pid), "frames": frames[0]})
        print(f"  minute {m:3d}: RSS {samples[-1]['rss_mib']:6.1f} MiB, {frames[0]} frames",
              flush=True)  # fmt: skip
    done.set()
    ws.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--hour", type=int, default=0, metavar="MINUTES", help="then one room for MINUTES"
    )
    parser.add_argument(
        "--history-rooms",
        type=int,
        default=0,
        metavar="N",
        help="then N rooms with full 60 s histories, at float64 and at float32",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    def serve_cmd(port: int) -> list[str]:
        return [sys.executable, "-m", "sixdof", "serve", "--port", str(port)]

    def floor_cmd(port: int) -> list[str]:
        return [sys.executable, "-c", FLOOR_APP.format(port=port)]

    # Warm as `make run` starts: `sixdof warm` fills numba's cache and writes the package's
    # bytecode (Python does not where PYTHONDONTWRITEBYTECODE is set, as on this machine:
    # then every launch compiles ~80 modules again, ~0.15 s). Then one launch of each, not
    # counted: the OS's file cache.
    subprocess.run([sys.executable, "-m", "sixdof", "warm"], check=True, stdout=subprocess.DEVNULL)
    for cmd in (serve_cmd, floor_cmd):
        port = free_port()
        stop(launch(cmd(port), port)[0])
    serve: dict[str, list[float]] = {"launch_s": [], "idle_mib": [], "join_s": [], "room_mib": []}
    floor: dict[str, list[float]] = {"launch_s": [], "idle_mib": []}
    for _ in range(args.runs):  # alternating, so both see the same machine
        port = free_port()
        proc, seconds = launch(floor_cmd(port), port)
        floor["launch_s"].append(seconds)
        floor["idle_mib"].append(idle_rss(proc))
        stop(proc)
        port = free_port()
        proc, seconds = launch(serve_cmd(port), port)
        serve["launch_s"].append(seconds)
        serve["idle_mib"].append(idle_rss(proc))
        ws, joined = first_room(port)
        serve["join_s"].append(joined)
        serve["room_mib"].append(rss_mib(proc.pid))
        ws.close()
        stop(proc)

    def row(name: str, xs: list[float], unit: str, scale: float = 1.0) -> str:
        xs = sorted(x * scale for x in xs)
        return f"{name:44s} min {xs[0]:7.1f}  median {median(xs):7.1f}  max {xs[-1]:7.1f} {unit}"

    print(f"{args.runs} launches each after `sixdof warm`; {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}")  # fmt: skip
    print(row("FastAPI+uvicorn floor: launch → first 200", floor["launch_s"], "ms", 1e3))
    print(row("sixdof serve: launch → first 200", serve["launch_s"], "ms", 1e3))
    print(row("FastAPI+uvicorn floor: idle RSS", floor["idle_mib"], "MiB"))
    print(row("sixdof serve: idle RSS (no room)", serve["idle_mib"], "MiB"))
    print(row("sixdof serve: first room, connect → hello", serve["join_s"], "ms", 1e3))
    print(row("sixdof serve: RSS with one room", serve["room_mib"], "MiB"))
    result: dict[str, Any] = {"serve": serve, "floor": floor}
    if args.history_rooms:
        result["history"] = {}
        for precision in ("float64", "float32"):
            figures = history_memory(precision, args.history_rooms)
            result["history"][precision] = figures
            print(f"{args.history_rooms} rooms, full 60 s histories, {precision}: RSS "
                  f"{figures['rooms_open_mib']:.1f} → {figures['rings_full_mib']:.1f} MiB, "
                  f"{figures['per_room_mib']:.2f} MiB a room")  # fmt: skip
    if args.hour:
        port = free_port()
        proc, _ = launch(serve_cmd(port), port)
        print(f"one room, one client, {args.hour} minutes:")
        samples = hour(port, proc.pid, args.hour)
        stop(proc)
        first, last = samples[1]["rss_mib"], samples[-1]["rss_mib"]
        print(f"RSS after minute 1 {first:.1f} MiB, after minute {args.hour} {last:.1f} MiB: "
              f"{last - first:+.1f} MiB")  # fmt: skip
        result["hour"] = samples
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
