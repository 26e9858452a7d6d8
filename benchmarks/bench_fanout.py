"""Fan-out: per-client frame rate and server CPU per delivered frame, against the ceiling.

For each client count N, starts the server, puts N lean websocket clients (fanout_clients.py:
raw RFC 6455 on uvloop, in their own process, their CPU reported) in one room for a few
seconds, and reports the per-client frame rate (median, 5th percentile, minimum), the
server's CPU (% of one core) and its CPU per delivered frame. The same run measures the
ceiling (fanout_ceiling.py: a server that only writes a prebuilt frame of the same size to
every transport) and prints sixdof's CPU per frame as a multiple of it.

    python benchmarks/bench_fanout.py                          # 100, 500, 1000, 2000 clients
    python benchmarks/bench_fanout.py --clients 100 1000 --seconds 5 --json fanout.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from bench_server import CLK_TCK, Server

HERE = Path(__file__).parent


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class CpuSampler:
    """Samples a process's CPU time every 20 ms, to read it over any later window."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.monotonic(), cpu_seconds(self.pid)))
            time.sleep(0.02)

    def over(self, t0: float, t1: float) -> float:
        times = np.array([t for t, _ in self.samples])
        cpu = np.array([c for _, c in self.samples])
        return float(np.interp(t1, times, cpu) - np.interp(t0, times, cpu))


def sixdof_frame_bytes(server: Server) -> int:
    """Size of a state frame of the server's default room."""
    from websockets.sync.client import connect

    with connect(f"{server.url.replace('http', 'ws')}ws?room=probe", max_queue=None) as ws:
        while True:
            msg = ws.recv(timeout=10)
            if isinstance(msg, str) and msg.startswith('{"type":"state"'):
                return len(msg.encode())


def measure(server: Server, n: int, seconds: float, room: str) -> dict[str, Any]:
    sampler = CpuSampler(server.proc.pid)
    try:
        out = subprocess.run(
            [sys.executable, str(HERE / "fanout_clients.py"), str(server.port), room, str(n),
             str(seconds)],
            capture_output=True, text=True, timeout=300, check=True,
        ).stdout  # fmt: skip
    finally:
        sampler.stop.set()
        sampler.thread.join()
    result = json.loads(out.strip().splitlines()[-1])
    t0, t1 = result["window"]
    hz = np.array(result["hz"])
    server_cpu = sampler.over(t0, t1)
    frames = hz.sum() * seconds
    return {
        "clients": n,
        "hz_median": float(np.median(hz)),
        "hz_p5": float(np.percentile(hz, 5)),
        "hz_min": float(hz.min()),
        "server_cpu_pct": 100 * server_cpu / seconds,
        "us_per_frame": 1e6 * server_cpu / frames if frames else float("nan"),
        "client_cpu_pct": 100 * result["client_cpu_s"] / seconds,
    }


def print_row(name: str, r: dict[str, Any]) -> None:
    print(
        f"| {name} | {r['clients']} | {r['hz_median']:.1f} | {r['hz_p5']:.1f} | "
        f"{r['hz_min']:.1f} | {r['server_cpu_pct']:.0f} % | {r['us_per_frame']:.2f} | "
        f"{r['client_cpu_pct']:.0f} % |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 500, 1000, 2000])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    most = max(args.clients) + 10
    sixdof = Server(
        [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0",
         "--limit", f"max_connections_per_ip={most + 50}",
         "--limit", f"max_clients_per_room={most}"]
    )  # fmt: skip
    frame_bytes = sixdof_frame_bytes(sixdof)
    ceiling = Server([sys.executable, str(HERE / "fanout_ceiling.py"), str(frame_bytes)])
    print(f"state frame: {frame_bytes} bytes; {args.seconds:g} s per measurement")
    print("| server | clients | Hz median | Hz p5 | Hz min | server CPU | µs/frame | client CPU |")
    print("|---|---|---|---|---|---|---|---|")
    rows: list[dict[str, Any]] = []
    try:
        for n in args.clients:
            for name, server in (("sixdof", sixdof), ("ceiling", ceiling)):
                row = {"server": name, **measure(server, n, args.seconds, f"fan{n}")}
                rows.append(row)
                print_row(name, row)
            if name == "ceiling":
                ratio = rows[-2]["us_per_frame"] / rows[-1]["us_per_frame"]
                print(f"|   | {n} | sixdof / ceiling, µs per frame: {ratio:.2f} |")
            with urllib.request.urlopen(f"{sixdof.url}api/health", timeout=10) as r:
                assert r.status == 200
    finally:
        sixdof.stop()
        ceiling.stop()
    if args.json:
        args.json.write_text(json.dumps({"frame_bytes": frame_bytes, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
