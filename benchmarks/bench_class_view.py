"""What the lecturer's view (/class/) costs the server beyond its rooms: ROOMS rooms with a
viewer each, the server's CPU over SECONDS without the view, with the view's poll of
/api/class/rooms (every POLL_S, as frontend/src/class/main.js asks), and without again.
Issue 46's target: at most 10 % of one core for 50 rooms.

    python benchmarks/bench_class_view.py                 # 50 rooms, 20 s a phase
    python benchmarks/bench_class_view.py --rooms 12 --seconds 10
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import urllib.request
from contextlib import ExitStack

from bench_server import Server
from websockets.sync.client import ClientConnection, connect

TOKEN = "bench-lecturer"
POLL_S = 0.25


def viewer(stack: ExitStack, url: str, stop: threading.Event) -> None:
    ws = connect(url, max_size=None)
    stack.callback(close_quietly, ws)

    def drain() -> None:
        try:
            while not stop.is_set():
                ws.recv(timeout=1)
        except Exception:
            return

    threading.Thread(target=drain, daemon=True).start()


def close_quietly(ws: ClientConnection) -> None:
    try:
        ws.close()
    except Exception:  # a viewer starved of its pongs by a loaded machine: closed anyway
        pass


def phase(server: Server, seconds: float, poll: bool) -> tuple[float, int]:
    """The server's CPU seconds per second over `seconds`, and the polls answered."""
    request = urllib.request.Request(
        f"{server.url}api/class/rooms", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    polls = 0
    cpu0, t0 = server.cpu_seconds(), time.monotonic()
    while time.monotonic() - t0 < seconds:
        if poll:
            with urllib.request.urlopen(request, timeout=30) as reply:
                polls += len(json.loads(reply.read())["rooms"]) > 0
        time.sleep(POLL_S)
    return (server.cpu_seconds() - cpu0) / (time.monotonic() - t0), polls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    server = Server([sys.executable, "-m", "sixdof.cli", "serve", "--port", "0",
                     "--token", TOKEN, "--data", ":memory:"])  # fmt: skip
    stop = threading.Event()
    try:
        with ExitStack() as stack:
            ws_url = server.url.replace("http", "ws") + "ws"
            for i in range(args.rooms):
                viewer(stack, f"{ws_url}?room=group-{i:02d}&token={TOKEN}", stop)
            time.sleep(5)  # every room made and ticking
            before, _ = phase(server, args.seconds, poll=False)
            during, polls = phase(server, args.seconds, poll=True)
            after, _ = phase(server, args.seconds, poll=False)
            stop.set()
        rooms_only = (before + after) / 2
        print(f"{args.rooms} rooms: server {rooms_only * 100:.1f} % of a core without the view "
              f"({before * 100:.1f}, {after * 100:.1f}), {during * 100:.1f} % with it "
              f"({polls} polls of every tile): the view costs "
              f"{(during - rooms_only) * 100:.1f} % of a core")  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    main()
