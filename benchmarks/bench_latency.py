"""Command latency: from sending a push to the first state frame that shows it.

The push is `set_input` on the push channel (what the keys, the pad and a drag send).

One probe client sends `set_input` with a new Force at a random phase of the frame period
(a uniform random wait before each command, so commands do not line up with ticks), then
reads state frames until one carries that Force; the time between is one sample. It takes
≥ 300 samples with the probe alone in its room, then again with N lean clients
(fanout_clients.py, its own process) watching the same room, and prints p50, p99 and max.

    python benchmarks/bench_latency.py                 # 1 and 500 clients, 300 samples each
    python benchmarks/bench_latency.py --clients 0 1000 --samples 600 --json latency.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from bench_server import Server
from websockets.asyncio.client import connect

HERE = Path(__file__).parent
SCENARIO = {"name": "latency", "bodies": [{"Name": "B", "Gravity": 0.0, "Mass": 1e6}]}


async def probe(
    ws_url: str, room: str, samples: int, rng: random.Random, channel: str = "push"
) -> list[float]:
    out = []
    async with connect(f"{ws_url}?room={room}", max_size=None, max_queue=None) as ws:
        for i in range(samples):
            await asyncio.sleep(rng.uniform(0.0, 2 / 60))  # a random phase of the tick
            force = float(i % 1000 + 1)
            sent = time.monotonic()
            # a push (the channel the keys, the pad and the drag use), not the constant input,
            # whose change is part of the scenario and re-sends every client a hello
            push = {"type": "set_input", "channel": channel, "Force": [force, 0, 0], "id": i}
            await ws.send(json.dumps(push))
            while True:
                msg = await ws.recv(decode=False)
                if not msg.startswith(b'{"type":"state"'):
                    continue
                body = json.loads(msg)["bodies"][0]
                if body["Force"][0] == force:
                    out.append(time.monotonic() - sent)
                    break
    return out


def run_phase(
    server: Server, watchers: int, samples: int, seed: int, channel: str = "push"
) -> dict[str, Any]:
    room = f"lat{watchers}"
    request = urllib.request.Request(
        f"{server.url}api/rooms/{room}/scenario", data=json.dumps(SCENARIO).encode(),
        method="PUT", headers={"Content-Type": "application/json"},
    )  # fmt: skip
    urllib.request.urlopen(request, timeout=30).read()
    crowd = None
    if watchers:
        seconds = samples * 0.06 + 30
        crowd = subprocess.Popen(
            [sys.executable, str(HERE / "fanout_clients.py"), str(server.port), room,
             str(watchers), str(seconds)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until the crowd is in the room
            with urllib.request.urlopen(f"{server.url}api/rooms/{room}/stats") as r:
                if json.loads(r.read())["clients"] >= watchers:
                    break
            time.sleep(0.2)
    ws_url = server.url.replace("http://", "ws://") + "ws"
    try:
        lat = np.array(asyncio.run(probe(ws_url, room, samples, random.Random(seed), channel)))
    finally:
        if crowd is not None:
            crowd.kill()
            crowd.wait()
    ms = lat * 1000
    return {
        "watchers": watchers,
        "samples": len(ms),
        "p50_ms": float(np.percentile(ms, 50)),
        "p99_ms": float(np.percentile(ms, 99)),
        "max_ms": float(ms.max()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[0, 500],
                        help="watchers beside the probe (0: the probe alone)")  # fmt: skip
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--channel",
        choices=["push", "constant"],
        default="push",
        help="constant: a change of the scenario, which re-sends every client a hello",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    most = max(args.clients) + 10
    server = Server(
        [sys.executable, "-m", "sixdof.cli", "serve", "--port", "0",
         "--limit", f"max_connections_per_ip={most + 50}",
         "--limit", f"max_clients_per_room={most}"]
    )  # fmt: skip
    rows = []
    print(f"set_input on the {args.channel} channel")
    print("| clients in the room | samples | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    try:
        for n in args.clients:
            row = run_phase(server, n, args.samples, args.seed + n, args.channel)
            rows.append(row)
            print(
                f"| {n + 1} | {row['samples']} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
                f"{row['max_ms']:.1f} |",
                flush=True,
            )
    finally:
        server.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
