"""Looking back without stalling (issue 32): the past of a 64-body room asked for as a curious
student would, while a watcher of another room counts its frames.

Re-simulating a past frame from its keyframe costs up to ~40 ms of a core (more under load);
the server does it in pieces of ~2 ms with the event loop free between them, one request of
an address at a time, each charged to that address's budget. The attackers run in their own
process, so that their threads do not share the test's interpreter (and its GIL) with the
bystander that times the frames.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from conftest import BYSTANDER, MIN_FPS, Bystander, put_scenario
from support.serving import Served
from test_attacks import controller, replies

#: What the issue asks of the bystander room during the burst.
MAX_GAP_S = 0.100
MAX_TICK_ERROR_P99_S = 0.020
BURST_S = 10.0
CLIENTS = 8
ROOM = "past"

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
        if (fps >= MIN_FPS + 2 and gap <= MAX_GAP_S / 2) or time.monotonic() > deadline:
            return fps, gap


def wait_for_budget(server: Served) -> None:
    """Until this address's budget has refilled (the past room's first frame is served)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"{server.url}/api/rooms/{ROOM}/recording/frame?t=0", timeout=10)
            return
        except urllib.error.HTTPError as exc:
            assert exc.code == 429 and time.monotonic() < deadline, exc
            time.sleep(float(exc.headers.get("Retry-After", "1")))


def send_when_allowed(ws: Any, msg: dict[str, Any], ids: Iterator[int]) -> None:
    """Send `msg` until it is acked: refused `rate_limited` while the address's budget is
    spent, it is sent again once some has come back (the budget refills at 0.25 s per s)."""
    deadline = time.monotonic() + 30
    while True:
        mid = next(ids)
        ws.send(json.dumps({**msg, "id": mid}))
        reply = replies(ws, {mid})[mid]
        if reply["type"] == "ack":
            return
        assert reply["code"] == "rate_limited" and time.monotonic() < deadline, reply
        time.sleep(0.25)


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


def burst(server: Served, bystander: Bystander, until_t: float) -> dict[str, Any]:
    """One BURST_S burst of CLIENTS clients: their status codes and the bystander's figures."""
    wait_for_budget(server)
    quiet_fps, quiet_gap = wait_for_quiet(bystander)
    t0 = time.monotonic()
    attack = subprocess.run(
        [sys.executable, "-c", ATTACK, str(server.port), ROOM, f"{until_t}", f"{BURST_S}",
         str(CLIENTS)],
        capture_output=True, text=True, timeout=BURST_S + 60,
    )  # fmt: skip
    t1 = time.monotonic()
    room = stats(server, BYSTANDER)  # its last 600 ticks: the burst's 10 s
    wait_for_frames_after(bystander, t1)
    assert attack.returncode == 0, attack.stderr
    fps, gap = frame_gaps(bystander, t0, t1)
    got = {"codes": json.loads(attack.stdout), "fps": fps, "gap": gap,
           "p99": room["tick_error_p99"], "overruns": room["overruns"]}  # fmt: skip
    print(f"lookback burst: {got['codes']}; bystander {fps:.1f} fps, longest gap "
          f"{gap * 1000:.0f} ms, tick error p99 {got['p99'] * 1000:.1f} ms, overruns "
          f"{got['overruns']} (2 s before it: {quiet_fps:.1f} fps, longest gap "
          f"{quiet_gap * 1000:.0f} ms)")  # fmt: skip
    return got


def test_eight_clients_asking_for_past_frames_do_not_stall_another_room(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    until_t = past_room(server, many_bodies)
    assert until_t > 6.0
    # A second burst when the first missed a figure: the 2-core machine these tests share
    # with other work can take a few hundred ms from the bystander by itself, while a stall
    # of the server's own (as before issue 32: 790 ms gaps, p99 155 ms) shows every time.
    for _ in range(2):
        got = burst(server, bystander, until_t)
        if got["fps"] >= MIN_FPS and got["gap"] <= MAX_GAP_S and got["p99"] <= MAX_TICK_ERROR_P99_S:
            break
    codes = got["codes"]
    assert set(codes) <= {"200", "429"}, codes
    assert codes.get("200", 0) >= 10, codes  # the past is served, within the budget
    assert got["fps"] >= MIN_FPS, f"the bystander fell to {got['fps']:.1f} fps"
    assert got["gap"] <= MAX_GAP_S, f"the bystander waited {got['gap'] * 1000:.0f} ms for a frame"
    assert got["p99"] <= MAX_TICK_ERROR_P99_S, f"tick error p99 {got['p99'] * 1000:.1f} ms"


def seek_undo_resume(server: Served, bystander: Bystander, until_t: float) -> dict[str, Any]:
    """One 6 s burst of go_back / undo_go_back / resume from one client: the counts of its
    answers, the bystander's figures and what a REST look back of that address got then."""
    wait_for_budget(server)
    wait_for_quiet(bystander)
    refused = acked = 0
    mid = 100
    with controller(server, ROOM) as ws:
        t0 = time.monotonic()
        next_burst = t0
        while time.monotonic() < t0 + 6.0:
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
    print(f"seek/undo/resume burst: {acked} acked, {refused} rate_limited; bystander "
          f"{fps:.1f} fps, longest gap {gap * 1000:.0f} ms, tick error p99 "
          f"{room['tick_error_p99'] * 1000:.1f} ms; then recording/frame: {rest_code} after "
          f"{rest_waited:.2f} s")  # fmt: skip
    return {"acked": acked, "refused": refused, "rest_code": rest_code, "fps": fps,
            "gap": gap}  # fmt: skip


def test_bursts_of_seek_resume_undo_are_charged_to_their_client(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    """Taking the room back no longer copies its past for undo (it held the event loop
    15-27 ms per go_back: the bystander got 55.0 fps and a 197 ms gap); a second burst when
    the first missed a figure, as above."""
    until_t = past_room(server, many_bodies)
    for _ in range(2):
        got = seek_undo_resume(server, bystander, until_t)
        if got["fps"] >= MIN_FPS and got["gap"] <= MAX_GAP_S:
            break
    assert got["refused"] > 0 and got["acked"] > 0, got
    assert got["rest_code"] in (200, 429), got  # queued behind the burst, or refused
    assert got["fps"] >= MIN_FPS, f"the bystander fell to {got['fps']:.1f} fps"
    assert got["gap"] <= MAX_GAP_S, f"the bystander waited {got['gap'] * 1000:.0f} ms"
