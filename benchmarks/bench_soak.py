"""Soak: clients joining, pushing, leaving and loading scenarios for many minutes.

Starts `sixdof serve --token T --port 0` and keeps a churn of clients on it: every second a
few clients join one of eight rooms (half with the token, half watching), push the body,
change a parameter, step it, leave; every few seconds one loads a preset or a generated
scenario; every ten seconds one downloads a room's history. One more client watches its own
room the whole time and counts its frames. Once a minute it prints the server's RSS and CPU,
the watcher's frame rate (mean, and the worst second), and what the churn did and got back.

    python benchmarks/bench_soak.py                  # 30 minutes
    python benchmarks/bench_soak.py --minutes 2 --json soak.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench_server import CLK_TCK, Server
from websockets.asyncio.client import connect

TOKEN = "soak-token"
ROOMS = [f"soak{i}" for i in range(8)]
PRESETS = ["tennis_racket", "spin_up", "offset_cg", "free_fall"]


class Watcher:
    """A watcher of room `watch`, recording when each state frame arrives."""

    def __init__(self, ws_url: str) -> None:
        self.url = f"{ws_url}?room=watch"
        self.times: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from websockets.sync.client import connect as connect_sync

        with connect_sync(self.url, max_size=None) as ws:
            while not self.stop.is_set():
                msg = ws.recv(timeout=5)
                if isinstance(msg, str) and msg.startswith('{"type":"state"'):
                    self.times.append(time.monotonic())

    def rates(self, t0: float, t1: float) -> tuple[float, float]:
        """(mean fps over [t0, t1], fps of the worst whole second in it)."""
        inside = [t for t in self.times if t0 <= t < t1]
        per_second = [0] * max(1, int(t1 - t0))
        for t in inside:
            i = int(t - t0)
            if i < len(per_second):
                per_second[i] += 1
        return len(inside) / (t1 - t0), float(min(per_second))


def _scenario(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(1, 16)
    return {
        "name": "soak",
        "bodies": [
            {"Name": f"B{i}", "Mass": rng.uniform(0.5, 5), "Pos": [i, 0, 0], "Gravity": 0.0}
            for i in range(n)
        ],
    }


async def _visit(ws_url: str, rng: random.Random, counts: dict[str, int]) -> None:
    room = rng.choice(ROOMS)
    control = rng.random() < 0.5
    url = f"{ws_url}?room={room}" + (f"&token={TOKEN}" if control else "")
    async with connect(url, max_size=None) as ws:
        msgs: list[dict[str, Any]] = [
            {"type": "set_input", "Force": [rng.uniform(-5, 5), 0, 0], "channel": "push"},
            {"type": "set_params", "Mass": rng.uniform(0.5, 5)},
            {"type": "step", "n": rng.randint(1, 2000)},
            {"type": "set_input", "Force": [0, 0, 0], "channel": "push"},
        ]
        if rng.random() < 0.15:
            msgs.append(
                {"type": "load_scenario", "preset": rng.choice(PRESETS)}
                if rng.random() < 0.5
                else {"type": "load_scenario", "scenario": _scenario(rng)}
            )
        for i, msg in enumerate(msgs):
            await ws.send(json.dumps({**msg, "id": i}))
        answered = 0
        while answered < len(msgs):
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if reply.get("type") in ("ack", "error") and reply.get("id") is not None:
                answered += 1
                counts[reply["type"]] += 1
                if reply["type"] == "error":
                    counts[f"error:{reply['code']}"] = counts.get(f"error:{reply['code']}", 0) + 1
        counts["visits"] += 1


def _download(base: str, counts: dict[str, int]) -> None:
    room = random.choice(ROOMS)
    try:
        with urllib.request.urlopen(
            f"{base}api/rooms/{room}/history.csv?token={TOKEN}", timeout=30
        ) as r:
            counts["csv_bytes"] += len(r.read())
            counts["csv"] += 1
    except Exception as exc:  # 404 before anyone joined that room, 429 when busy
        counts[f"csv_refused:{getattr(exc, 'code', type(exc).__name__)}"] = 1


def _proc(pid: int) -> tuple[float, float]:
    """(RSS MiB, CPU seconds) of a process."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return rss / 1024, (int(fields[11]) + int(fields[12])) / CLK_TCK


async def soak(minutes: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    server = Server(_cmd())
    base, ws_url = server.url, server.url.replace("http://", "ws://") + "ws"
    watcher = Watcher(ws_url)
    counts: dict[str, int] = {"visits": 0, "ack": 0, "error": 0, "csv": 0, "csv_bytes": 0}
    rows: list[dict[str, Any]] = []
    start = time.monotonic()
    rss0, cpu0 = _proc(server.proc.pid)
    print(f"soak: {minutes:g} min; server RSS at start {rss0:.0f} MiB", flush=True)
    print("minute | RSS MiB | CPU % | watcher fps mean / worst s | visits | acks | errors")
    minute_start, cpu_prev = start, cpu0
    tasks: set[asyncio.Task[None]] = set()
    next_csv = start + 10
    try:
        while time.monotonic() - start < minutes * 60:
            for _ in range(rng.randint(2, 5)):
                task = asyncio.create_task(_visit(ws_url, rng, counts))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if time.monotonic() > next_csv:
                next_csv += 10
                threading.Thread(target=_download, args=(base, counts), daemon=True).start()
            await asyncio.sleep(1.0)
            now = time.monotonic()
            if now - minute_start >= 60:
                rss, cpu = _proc(server.proc.pid)
                mean, worst = watcher.rates(minute_start, now)
                row = {
                    "minute": len(rows) + 1,
                    "rss_mib": round(rss, 1),
                    "cpu_pct": round(100 * (cpu - cpu_prev) / (now - minute_start), 1),
                    "watcher_fps": round(mean, 2),
                    "watcher_worst_second": worst,
                    **{k: v for k, v in counts.items() if k != "csv_bytes"},
                }
                rows.append(row)
                print(
                    f"{row['minute']:6} | {rss:7.0f} | {row['cpu_pct']:5.1f} | "
                    f"{mean:6.2f} / {worst:4.0f} | {counts['visits']:6} | {counts['ack']:6} "
                    f"| {counts['error']:6}",
                    flush=True,
                )
                minute_start, cpu_prev = now, cpu
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        watcher.stop.set()
        server.stop()
    failures = [line for line in server.lines if "Traceback" in line or '" 500' in line]
    return {"minutes": minutes, "rss_start_mib": rss0, "rows": rows, "counts": counts,
            "tracebacks_or_500": len(failures)}  # fmt: skip


def _cmd() -> list[str]:
    import sys

    return [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0", "--token", TOKEN]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = asyncio.run(soak(args.minutes, args.seed))
    rows = result["rows"]
    if rows:
        rss = [r["rss_mib"] for r in rows]
        fps = [r["watcher_fps"] for r in rows]
        print(
            f"soak: RSS {result['rss_start_mib']:.0f} MiB at start, {min(rss):.0f}–{max(rss):.0f}"
            f" over the run, {rss[-1]:.0f} at the end; watcher {min(fps):.2f}–{max(fps):.2f}"
            f" fps per minute (worst second {min(r['watcher_worst_second'] for r in rows):.0f});"
            f" {result['counts']['visits']} visits; tracebacks or 500s: "
            f"{result['tracebacks_or_500']}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
