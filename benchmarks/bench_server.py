"""Live server benchmark: frames per client, control latency, tick jitter, CPU and memory.

Starts `sixdof serve --port 0` as its own process, then for each client count N puts N
websocket clients (the `websockets` library, spread over one or two worker processes) in
one room for a few seconds and measures:

- frames per second received per client (mean, and the worst client);
- latency from a client's set_input to the first state frame that shows it (p50, p99),
  probed by one extra client while the N others load the room;
- the room's tick jitter: each tick's start minus its deadline (p50, p99), from
  /api/rooms/{room}/stats;
- the server process's CPU (% of one core) and RSS over the phase.

    python benchmarks/bench_server.py                      # 1, 10, 100, 500 clients
    python benchmarks/bench_server.py --clients 1 50 --seconds 3 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from websockets.asyncio.client import connect

CLK_TCK = os.sysconf("SC_CLK_TCK")
URL_LINE = re.compile(r"sixdof: serving (http://127\.0\.0\.1:(\d+)/)")


# --------------------------------------------------------------------------- server process


class Server:
    """A server process that prints `sixdof: serving URL`; `sixdof serve --port 0` by default.

    `started_s`: seconds from launching the process to its first answer on /api/health.
    """

    def __init__(self, cmd: list[str] | None = None) -> None:
        cmd = cmd or [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        launched = time.monotonic()
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        found = threading.Event()
        self.lines: list[str] = []

        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)
                if URL_LINE.search(line):
                    found.set()

        threading.Thread(target=pump, daemon=True).start()
        if not found.wait(120):
            self.proc.kill()
            sys.exit("server did not start:\n" + "".join(self.lines))
        match = next(m for line in self.lines if (m := URL_LINE.search(line)))
        self.url, self.port = match.group(1), int(match.group(2))
        with urllib.request.urlopen(f"{self.url}api/health", timeout=10) as r:
            r.read()
        self.started_s = time.monotonic() - launched

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime

    def rss_mib(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]

    def stats(self, room: str) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}api/rooms/{room}/stats", timeout=10) as r:
            return json.loads(r.read())

    def all_stats(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.url}api/rooms", timeout=30) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


# --------------------------------------------------------------------------- clients


async def _count(ws: Any, start: float, end: float) -> int:
    """Messages received within [start, end]; reading from the start drains any backlog."""
    got = [0]

    async def read() -> None:
        while True:
            await ws.recv(decode=False)
            got[0] += time.monotonic() >= start

    try:
        await asyncio.wait_for(read(), end - time.monotonic())
    except asyncio.TimeoutError:
        pass
    return got[0]


async def _open_many(url: str, n: int, deflate: bool, offset: int = 0) -> list[Any]:
    """n connections to `url`; a `{i}` in it becomes offset, offset + 1, … (one room each)."""
    out: list[Any] = []
    for i in range(0, n, 50):  # in batches: a burst of 500 handshakes would time out
        batch = [
            connect(url.replace("{i}", str(offset + j)), proxy=None,
                    compression="deflate" if deflate else None, open_timeout=60)
            for j in range(i, min(i + 50, n))
        ]  # fmt: skip
        out += await asyncio.gather(*batch)
    return out


async def _worker(
    url: str, n: int, seconds: float, deflate: bool, go_at: float, offset: int = 0
) -> list[float]:
    sockets = await _open_many(url, n, deflate, offset)
    print("ready", flush=True)
    start = time.monotonic() + max(0.0, go_at - time.time())
    counts = await asyncio.gather(*(_count(ws, start, start + seconds) for ws in sockets))
    for ws in sockets:
        ws.transport.abort()
    return [c / seconds for c in counts]


def worker_main(args: argparse.Namespace) -> None:
    try:  # the clients must not be the bottleneck: use uvloop when it is there
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    rates = runner(_worker(args.url, args.n, args.seconds, args.deflate, args.go_at, args.offset))
    print(json.dumps(rates), flush=True)


async def _latency(url: str, samples: int, gap: float) -> list[float]:
    """Seconds from sending a new push force to the first state frame carrying it."""
    async with connect(url, proxy=None, compression=None) as ws:
        out = []
        for k in range(1, samples + 1):
            value = float(k)
            sent = time.monotonic()
            await ws.send(
                json.dumps({"type": "set_input", "channel": "push", "Force": [value, 0.0, 0.0]})
            )
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] == "state" and msg["bodies"][0]["Force"][0] == value:
                    out.append(time.monotonic() - sent)
                    break
            await asyncio.sleep(gap)
        return out


# --------------------------------------------------------------------------- one phase


def start_workers(
    url: str, n: int, seconds: float, procs: int, deflate: bool, go_at: float
) -> list[subprocess.Popen[str]]:
    """`procs` client processes holding n connections in all, ready (connected) on return."""
    split = [n // procs + (1 if i < n % procs else 0) for i in range(procs)]
    offsets = [sum(split[:i]) for i in range(procs)]
    base = [sys.executable, __file__, "--worker", "--url", url, "--seconds", str(seconds),
            "--go-at", str(go_at), *(["--deflate"] if deflate else [])]  # fmt: skip
    workers = []
    for k, off in zip(split, offsets, strict=True):
        if k > 0:
            cmd = [*base, "--n", str(k), "--offset", str(off)]
            workers.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
    for w in workers:
        assert w.stdout is not None
        if w.stdout.readline().strip() != "ready":
            sys.exit("a worker failed to connect")
    return workers


def collect(workers: list[subprocess.Popen[str]], seconds: float) -> list[float]:
    """Frames per second of every connection, in connection order."""
    rates: list[float] = []
    for w in workers:
        out, _ = w.communicate(timeout=seconds + 120)
        rates += json.loads(out.strip().splitlines()[-1])
    return rates


def phase(server: Server, n: int, seconds: float, procs: int, deflate: bool) -> dict[str, Any]:
    room = f"bench{n}"
    ws_url = f"ws://127.0.0.1:{server.port}/ws?room={room}"
    # The room must exist (and hold the latency prober) before the crowd arrives.
    go_at = time.time() + 3.0 + n / 50
    workers = start_workers(ws_url, n, seconds, procs, deflate, go_at)
    time.sleep(max(0.0, go_at - time.time()))
    cpu0, wall0 = server.cpu_seconds(), time.monotonic()
    samples = max(20, int(seconds * 10))
    latency = asyncio.run(_latency(ws_url, samples, max(0.0, seconds / samples - 0.02)))
    rates = collect(workers, seconds)
    cpu = (server.cpu_seconds() - cpu0) / (time.monotonic() - wall0)
    stats = server.stats(room)
    lat = np.array(latency) * 1e3
    return {
        "clients": n,
        "fps_mean": float(np.mean(rates)),
        "fps_min": float(np.min(rates)),
        "fps_p5": float(np.percentile(rates, 5)),
        "latency_p50_ms": float(np.percentile(lat, 50)),
        "latency_p99_ms": float(np.percentile(lat, 99)),
        "tick_error_p50_ms": stats["tick_error_p50"] * 1e3,
        "tick_error_p99_ms": stats["tick_error_p99"] * 1e3,
        "tick_busy_p99_ms": stats["tick_busy_p99"] * 1e3,
        "cpu_percent": 100 * cpu,
        "rss_mib": server.rss_mib(),
        "frames_dropped": stats["frames_dropped"],
    }


COLUMNS = [
    ("clients", "clients", "{:d}"),
    ("fps_mean", "fps/client", "{:.1f}"),
    ("fps_min", "fps min", "{:.1f}"),
    ("latency_p50_ms", "lat p50 ms", "{:.1f}"),
    ("latency_p99_ms", "lat p99 ms", "{:.1f}"),
    ("tick_error_p50_ms", "tick err p50 ms", "{:.2f}"),
    ("tick_error_p99_ms", "tick err p99 ms", "{:.2f}"),
    ("cpu_percent", "server CPU %", "{:.0f}"),
    ("rss_mib", "RSS MiB", "{:.0f}"),
]


def table(rows: list[dict[str, Any]]) -> str:
    head = [title for _, title, _ in COLUMNS]
    body = [[fmt.format(r[key]) for key, _, fmt in COLUMNS] for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = [" | ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(c.rjust(w) for c, w in zip(b, widths, strict=True)) for b in body]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 10, 100, 500])
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring time per phase")
    parser.add_argument("--procs", type=int, default=2, help="client worker processes (1-2)")
    parser.add_argument("--deflate", action="store_true", help="clients ask for compression")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--go-at", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main(args)
        return
    server = Server()
    rows = []
    try:
        for n in args.clients:
            rows.append(phase(server, n, args.seconds, max(1, min(2, args.procs)), args.deflate))
            print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    finally:
        server.stop()
    print(
        f"sixdof live server, one room, 60 Hz frames, {args.seconds:g} s per phase, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
        + (", permessage-deflate" if args.deflate else "")
    )
    print(table(rows))
    if args.json:
        args.json.write_text(
            json.dumps({"rows": rows, "seconds": args.seconds, "deflate": args.deflate}, indent=2)
        )


if __name__ == "__main__":
    main()
