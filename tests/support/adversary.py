"""What the attacks of tests/live/adversarial and the bystander figures of tests/timing share:
a token holder's helpers, the bystander (a watcher of another room, counting its frames), and
the 64-body room with a past to look back at.

The live tier asserts what load cannot bend (the loop probe: support.serving.HeldLoop); the
timing tier the bystander's frame rate and gaps, on a quiet machine.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from support.serving import FLOAT, MAX_HELD_S, HeldLoop, Served, scenario_file

__all__ = ["MAX_HELD_S"]

#: 64 bodies: the largest scenario a room takes (the costly case of every attack).
MANY_BODIES: dict[str, Any] = {
    "name": "crowd",
    "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0], "Gravity": 0.0} for i in range(64)],
}


TOKEN = "adv-s3cret-token"


BYSTANDER = "bystander"


#: The timing tier's figures (issue 40's): the frame rate the bystander keeps during an attack
#: (the server runs at 60 Hz), its longest wait for a frame, and the longest the server's event
#: loop may be held at a stretch, in CPU seconds (the live tier asserts MAX_HELD_S, with a
#: margin for a garbage collection on a loaded machine).
MIN_FPS = 58.0
MAX_GAP_S = 0.050
ISSUE_HELD_S = 0.005


def put_scenario(server: Served, room: str, scenario: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"{server.url}/api/rooms/{room}/scenario",
        data=json.dumps(scenario).encode(),
        method="PUT",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with admitted(request) as reply:
        return int(reply.status)


def admitted(request: urllib.request.Request, timeout: float = 60.0) -> Any:
    """urlopen(request), asked again after its Retry-After while this address's budget is
    spent (429): a PUT and a Share link are charged to it, as websocket messages are, and
    the attacks before may have spent it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return urllib.request.urlopen(request, timeout=30)
        except urllib.error.HTTPError as exc:
            if exc.code != 429 or time.monotonic() > deadline:
                raise
            time.sleep(float(exc.headers.get("Retry-After", "1")))


@dataclass
class During:
    """What an attack cost the others: the most CPU seconds the server's loop was held at a
    stretch (its probe), and the bystander's frames over the window (fps: wall clock)."""

    held: float
    frames: int
    fps: float


class Bystander:
    """A watcher of one room of `server`, recording the arrival time of each state frame (a
    thread); `during(attack)` tells what the attack cost it. As a context manager, its thread
    is stopped and joined at the end, which must come before its server stops (the server's
    close would surface in the thread as an unhandled exception)."""

    def __init__(self, server: Served, room: str = BYSTANDER) -> None:
        self.server = server
        self.url = f"{server.ws_url}?room={room}"
        self.times: list[float] = []
        self.arrived = threading.Condition()  # notified on every state frame
        self.stop = threading.Event()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.started.wait(60), "the bystander got no frame"

    def __enter__(self) -> Bystander:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()  # its thread leaves on its next frame
        self.thread.join(35)

    def _run(self) -> None:
        with connect(self.url, max_size=None, max_queue=None) as ws:
            while not self.stop.is_set():
                msg = ws.recv(timeout=30)
                if isinstance(msg, str) and msg.startswith('{"type":"state"'):
                    with self.arrived:
                        self.times.append(time.monotonic())
                        self.arrived.notify_all()
                    self.started.set()

    def fps(self, t0: float, t1: float) -> float:
        return sum(t0 <= t < t1 for t in self.times) / (t1 - t0)

    def during(self, attack: Callable[[], Any], at_least: float = 2.0) -> tuple[Any, During]:
        """Run `attack`; (its result, what it cost from its start until the later of its end
        and `at_least` s), once frames after that moment have arrived."""
        with HeldLoop(self.server) as held:
            t0 = time.monotonic()
            result = attack()
            t1 = max(time.monotonic(), t0 + at_least)
            with self.arrived:  # a frame stamped after t1: the window is complete
                assert self.arrived.wait_for(
                    lambda: bool(self.times) and self.times[-1] >= t1, at_least + 60
                ), "the bystander's frames stopped"
        cost = During(held.longest, sum(t0 <= t < t1 for t in self.times), self.fps(t0, t1))
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[-1].split(" ")[0]
        print(
            f"bystander during {test}: loop held {cost.held * 1e3:.1f} ms CPU at most, "
            f"{cost.fps:.1f} fps over {t1 - t0:.1f} s"
        )  # -s shows it
        return result, cost


def rss_mib(server: Served) -> float:
    return server.rss_kib() / 1024


def log_of(server: Served) -> str:
    return "".join(server.lines)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def replies(ws: ClientConnection, ids: set[Any], timeout: float = 30.0) -> dict[Any, dict]:
    """The ack or error for each id in `ids` (other messages skipped)."""
    got: dict[Any, dict] = {}
    deadline = time.monotonic() + timeout
    while len(got) < len(ids):
        msg = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if msg["type"] in ("ack", "error") and msg.get("id") in ids:
            got[msg["id"]] = msg
    return got


def hello_of(ws: ClientConnection) -> dict:
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if msg["type"] == "hello":
            return msg


@contextlib.contextmanager
def controller(server: Served, room: str) -> Iterator[ClientConnection]:
    """A client of `room` that may control (the token in an Authorization header)."""
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with connect(
        f"{server.ws_url}?room={room}", max_size=None, max_queue=None, additional_headers=bearer
    ) as ws:
        assert hello_of(ws)["can_control"] is True
        yield ws


ROOM = "past"


def stats(server: Served, room: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{room}/stats", timeout=10) as reply:
        return json.loads(reply.read())


def frame_gaps(bystander: Bystander, t0: float, t1: float) -> tuple[float, float]:
    """(mean fps, longest gap between two frames, s) of the bystander over [t0, t1)."""
    times = [t for t in bystander.times if t0 <= t < t1]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    return len(times) / (t1 - t0), max(gaps, default=t1 - t0)


def wait_for_frames_after(bystander: Bystander, t1: float) -> None:
    with bystander.arrived:  # a frame stamped after t1: the window is complete
        assert bystander.arrived.wait_for(lambda: bystander.times[-1] >= t1, 10)


def wait_for_quiet(bystander: Bystander, seconds: float = 60.0) -> tuple[float, float]:
    """Wait (at most `seconds`) for 2 s in which the bystander, with no attack, meets what it
    must meet under the attack: on a shared machine other programs alone can cost it frames,
    and the attack should not be measured then. (fps, longest gap) of the last window."""
    deadline = time.monotonic() + seconds
    while True:
        start = time.monotonic()
        wait_for_frames_after(bystander, start + 2.0)
        fps, gap = frame_gaps(bystander, start, start + 2.0)
        if (fps >= MIN_FPS + 1 and gap <= MAX_GAP_S / 2) or time.monotonic() > deadline:
            return fps, gap


def own_budget_whole(server: Served, timeout: float = 120.0) -> None:
    """Until this address's own budget is whole (`/api/health`'s work_left_s): the tests on
    a package's server share one address, and one before may have spent or overdrawn it."""

    def whole() -> bool:
        health = server.get_json("/api/health")
        return bool(health["work_left_s"] >= health["work_burst_s"])

    assert wait_until(whole, timeout), server.get_json("/api/health")


def assert_acked(reply: dict[str, Any]) -> None:
    """`reply` is an ack; the failure shows what came instead (an error names its cause)."""
    assert reply["type"] == "ack", reply


def send_when_allowed(ws: Any, msg: dict[str, Any], ids: Iterator[int]) -> None:
    """Send `msg` until it is acked (`send`, which asks again while the budget is spent)."""
    reply = send(ws, msg, next(ids))
    assert reply["type"] == "ack", reply


def past_room(server: Served, many_bodies: dict[str, Any]) -> float:
    """Room ROOM with 64 bodies and ~7 s of past (segments of 3,125 steps, ~200,000
    body-steps each: the longest replays there are); the simulated time reached."""
    assert put_scenario(server, ROOM, many_bodies) == 200
    ids = itertools.count(1)
    with controller(server, ROOM) as ws:
        for _ in range(2):  # 2 × 3,000 steps: each within the address's budget
            send_when_allowed(ws, {"type": "step", "n": 3000}, ids)
        send_when_allowed(ws, {"type": "pause"}, ids)
    return float(stats(server, ROOM)["t"])


def full_refill(answers: dict[Any, dict]) -> float:
    """Seconds for an empty budget to fill again, from a `rate_limited` refusal's own
    words ("it refills at R s per s, up to B s"): B / R."""
    for answer in answers.values():
        found = re.search(r"refills at ([0-9.e+-]+) s per s, up to ([0-9.e+-]+) s",
                          str(answer.get("message", "")))  # fmt: skip
        if found:
            return float(found.group(2)) / float(found.group(1))
    return 0.0  # nothing refused: nothing spent beyond what the acks show


#: The attackers: CLIENTS threads of one process (one address), each asking for random past
#: times as fast as it is answered (no heed to Retry-After) for BURST_S seconds; prints the
#: count of each status code as JSON.
ATTACK = """
import http.client, json, random, sys, threading, time
port, room, until_t, seconds, clients = sys.argv[1:6]
port, until_t, seconds, clients = int(port), float(until_t), float(seconds), int(clients)
codes = {}
lock = threading.Lock()
end = time.monotonic() + seconds
def run(seed):
    rnd = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < end:
        t = rnd.uniform(0.0, until_t)
        try:
            conn.request("GET", f"/api/rooms/{room}/recording/frame?t={t:.4f}")
            reply = conn.getresponse()
            body = reply.read()
            code = reply.status
            if code == 200:
                assert json.loads(body)["t"] <= t + 1e-9
        except (OSError, http.client.HTTPException) as exc:
            code = type(exc).__name__
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock:
            codes[str(code)] = codes.get(str(code), 0) + 1
threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
for th in threads: th.start()
for th in threads: th.join()
print(json.dumps(codes))
"""


def lookback_burst(
    server: Served, bystander: Bystander, until_t: float, seconds: float, clients: int = 8
) -> dict[str, Any]:
    """One burst of `seconds` of `clients` clients asking for past frames of ROOM: their
    status codes, the most CPU the loop was held at a stretch (`held`), and the bystander's
    figures on the clock (fps, longest gap, tick error p99: the timing tier's)."""
    own_budget_whole(server)  # the tests before on this server may have spent it
    with HeldLoop(server) as held:
        t0 = time.monotonic()
        attack = subprocess.run(
            [sys.executable, "-c", ATTACK, str(server.port), ROOM, f"{until_t}", f"{seconds}",
             str(clients)],
            capture_output=True, text=True, timeout=seconds + 120,
        )  # fmt: skip
        t1 = time.monotonic()
    room = stats(server, BYSTANDER)  # its last 600 ticks: the burst's last 10 s
    wait_for_frames_after(bystander, t1)
    assert attack.returncode == 0, attack.stderr
    fps, gap = frame_gaps(bystander, t0, t1)
    got = {"codes": json.loads(attack.stdout), "held": held.longest, "fps": fps, "gap": gap,
           "p99": room["tick_error_p99"], "overruns": room["overruns"]}  # fmt: skip
    print(f"lookback burst: {got['codes']}; loop held {held.longest * 1e3:.1f} ms CPU at most; "
          f"bystander {fps:.1f} fps, longest gap {gap * 1000:.0f} ms, tick error p99 "
          f"{got['p99'] * 1000:.1f} ms, overruns {got['overruns']}")  # fmt: skip
    return got


def seek_undo_resume(
    server: Served, bystander: Bystander, until_t: float, seconds: float
) -> dict[str, Any]:
    """One burst of `seconds` of go_back / undo_go_back / resume from one client: the counts
    of its answers, the most CPU the loop was held at a stretch (`held`), the bystander's
    figures on the clock and what a REST look back of that address got then."""
    own_budget_whole(server)  # the tests before on this server may have spent it
    refused = acked = 0
    mid = 100
    with controller(server, ROOM) as ws, HeldLoop(server) as held:
        t0 = time.monotonic()
        next_burst = t0
        while time.monotonic() < t0 + seconds:
            # 30 messages per 0.2 s: under the 200 messages per s that are counted apart
            # (beyond them messages are dropped unanswered, whatever they cost)
            time.sleep(max(0.0, next_burst - time.monotonic()))
            next_burst = time.monotonic() + 0.2
            burst = {}
            # go back somewhere, undo it, resume: as a page's timeline (a go_back refused
            # leaves nothing to undo: invalid; one past the present after an undo was
            # refused: out_of_range)
            for k in range(10):
                for msg in ({"type": "go_back", "t": until_t * k / 10},
                            {"type": "undo_go_back"}, {"type": "resume"}):  # fmt: skip
                    mid += 1
                    burst[mid] = msg["type"]
                    ws.send(json.dumps({**msg, "id": mid}))
            got = replies(ws, set(burst))
            acked += sum(r["type"] == "ack" for r in got.values())
            refused += sum(r.get("code") == "rate_limited" for r in got.values())
            allowed = ("rate_limited", "out_of_range", "invalid")
            assert all(r["type"] == "ack" or r["code"] in allowed for r in got.values()), got
        t1 = time.monotonic()
        # the same address's budget: a REST look back now waits for it to refill (or is
        # refused when it is far overspent) before any work
        asked = time.monotonic()
        try:
            urllib.request.urlopen(f"{server.url}/api/rooms/{ROOM}/recording/frame?t=1")
            rest_code = 200
        except urllib.error.HTTPError as exc:
            rest_code = exc.code
        rest_waited = time.monotonic() - asked
    room = stats(server, BYSTANDER)
    wait_for_frames_after(bystander, t1)
    fps, gap = frame_gaps(bystander, t0, t1)
    print(f"seek/undo/resume burst: {acked} acked, {refused} rate_limited; loop held "
          f"{held.longest * 1e3:.1f} ms CPU at most; bystander "
          f"{fps:.1f} fps, longest gap {gap * 1000:.0f} ms, tick error p99 "
          f"{room['tick_error_p99'] * 1000:.1f} ms; then recording/frame: {rest_code} after "
          f"{rest_waited:.2f} s")  # fmt: skip
    return {"acked": acked, "refused": refused, "rest_code": rest_code, "fps": fps,
            "gap": gap, "held": held.longest}  # fmt: skip


def send(ws: Any, msg: dict[str, Any], mid: int) -> dict[str, Any]:
    """`msg`'s answer, sent again while it is refused `rate_limited` (the attacks before may
    have spent this address's budget), each time after the wait the refusal names."""
    deadline = time.monotonic() + 60
    while True:
        ws.send(json.dumps({**msg, "id": mid}))
        answer = replies(ws, {mid}, timeout=120)[mid]
        if answer.get("code") != "rate_limited" or time.monotonic() > deadline:
            return answer
        wait = re.search(r"try again in ([0-9.e+-]+) s", answer["message"])
        # exactly the wait named: it counts what the refused check cost (charged, and paid
        # again by asking again); before it did, following it could be refused for 60 s
        time.sleep(min(5.0, float(wait.group(1))) if wait else 0.25)


# ----------------------------------------------------------- fixtures (conftests import them)
# Package scope: a worker's server stops when it leaves the folder (tests/live/adversarial is
# a package for this), not at the session's end: five of them lingered ~35 minutes into the
# browser tier of a loaded run, each taking ~8 % of a core from the tests that measure frames.
@contextlib.contextmanager
def token_server(*limits: str, **kw: Any) -> Iterator[Served]:
    """`sixdof serve --token TOKEN` with `--limit` each of `limits` (and Served's `kw`); once
    stopped, its log must hold no traceback, no HTTP 500 and never the token."""
    live = Served(*(a for limit in limits for a in ("--limit", limit)), token=TOKEN, **kw)
    try:
        yield live
    finally:
        live.stop()
        live.check_log(TOKEN)


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`sixdof serve --token` with the float scenario and at most 4 rooms per watcher."""
    folder = tmp_path_factory.mktemp("adversarial")
    with token_server("max_watcher_rooms=4", scenario=scenario_file(folder, FLOAT)) as live:
        yield live


@pytest.fixture(scope="package")
def bystander(server: Served) -> Iterator[Bystander]:
    assert put_scenario(server, BYSTANDER, FLOAT.model_dump(mode="json")) == 200
    with Bystander(server) as watcher:
        yield watcher


@pytest.fixture(scope="session")
def many_bodies() -> dict[str, Any]:
    return json.loads(json.dumps(MANY_BODIES))
