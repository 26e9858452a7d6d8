"""The bystander's frames on the clock while the attacks of tests/live/adversarial run: at
least 58 fps, no wait over 50 ms for a frame, a tick error p99 under 20 ms, and the server's
event loop never held over 5 ms of CPU at a stretch (issue 40's figures). The live tier
asserts the cause of these with a margin (the loop's probe under MAX_HELD_S); these are the
figures a user sees, which another program on the same cores can bend too, so each burst is
measured after 2 s in which the bystander met them unattacked, and measured again once if a
figure was missed."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from support.adversary import (
    ISSUE_HELD_S,
    MAX_GAP_S,
    MIN_FPS,
    Bystander,
    controller,
    frame_gaps,
    full_refill,
    lookback_burst,
    past_room,
    put_scenario,
    replies,
    seek_undo_resume,
    wait_for_frames_after,
    wait_for_quiet,
)
from support.serving import HeldLoop, Served

MAX_TICK_ERROR_P99_S = 0.020


def twice(measure: Callable[[], dict[str, Any]], met: Callable[[dict[str, Any]], bool]) -> dict:
    """`measure` after a quiet spell; again (once) if a figure was missed."""
    for _ in range(2):
        got = measure()
        if met(got):
            break
    return got


def test_the_bystander_keeps_its_frames_while_others_look_back(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    until_t = past_room(server, many_bodies)

    def measure() -> dict[str, Any]:
        wait_for_quiet(bystander)
        return lookback_burst(server, bystander, until_t, seconds=10.0)

    got = twice(measure, lambda g: g["fps"] >= MIN_FPS and g["gap"] <= MAX_GAP_S
                and g["p99"] <= MAX_TICK_ERROR_P99_S and g["held"] <= ISSUE_HELD_S)  # fmt: skip
    assert got["held"] <= ISSUE_HELD_S, f"the loop was held {got['held'] * 1e3:.1f} ms"
    assert got["fps"] >= MIN_FPS, f"the bystander fell to {got['fps']:.1f} fps"
    assert got["gap"] <= MAX_GAP_S, f"the bystander waited {got['gap'] * 1000:.0f} ms for a frame"
    assert got["p99"] <= MAX_TICK_ERROR_P99_S, f"tick error p99 {got['p99'] * 1000:.1f} ms"


def test_the_bystander_keeps_its_frames_through_seek_undo_resume(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    until_t = past_room(server, many_bodies)

    def measure() -> dict[str, Any]:
        wait_for_quiet(bystander)
        return seek_undo_resume(server, bystander, until_t, seconds=6.0)

    got = twice(measure, lambda g: g["fps"] >= MIN_FPS and g["gap"] <= MAX_GAP_S
                and g["held"] <= ISSUE_HELD_S)  # fmt: skip
    assert got["held"] <= ISSUE_HELD_S, f"the loop was held {got['held'] * 1e3:.1f} ms"
    assert got["fps"] >= MIN_FPS, f"the bystander fell to {got['fps']:.1f} fps"
    assert got["gap"] <= MAX_GAP_S, f"the bystander waited {got['gap'] * 1000:.0f} ms"


def test_the_bystander_keeps_its_frames_through_many_ghosts(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    assert put_scenario(server, "ghosts", many_bodies) == 200
    ids = itertools.count(1)
    with controller(server, "ghosts") as ws:
        mid = next(ids)
        ws.send(json.dumps({"type": "step", "n": 2000, "id": mid}))  # a past to re-run
        replies(ws, {mid})
        refilled = time.monotonic()

        def measure() -> dict[str, Any]:
            nonlocal refilled
            wait_for_quiet(bystander)
            time.sleep(max(0.0, refilled - time.monotonic()))  # the budget whole again
            with HeldLoop(server) as held:
                t0 = time.monotonic()
                burst = {next(ids) for _ in range(60)}
                for mid in burst:
                    changes = {"model": "fhsim"} if mid % 2 else {"Mass": 1.0 + mid % 7}
                    ws.send(json.dumps({"type": "set_ghost", "changes": changes, "id": mid}))
                got = replies(ws, burst, timeout=60)
                refilled = time.monotonic() + full_refill(got)
                t1 = max(time.monotonic(), t0 + 3.0)
                wait_for_frames_after(bystander, t1)
            fps, gap = frame_gaps(bystander, t0, t1)
            print(f"60 ghosts: bystander {fps:.1f} fps, longest gap {gap * 1000:.0f} ms, "
                  f"loop held {held.longest * 1e3:.1f} ms")  # fmt: skip
            return {"fps": fps, "gap": gap, "held": held.longest}

        got = twice(measure, lambda g: g["fps"] >= MIN_FPS and g["gap"] <= MAX_GAP_S
                    and g["held"] <= ISSUE_HELD_S)  # fmt: skip
    assert got["held"] <= ISSUE_HELD_S, f"the loop was held {got['held'] * 1e3:.1f} ms"
    assert got["fps"] >= MIN_FPS, f"the bystander fell to {got['fps']:.1f} fps"
    assert got["gap"] <= MAX_GAP_S, f"the bystander waited {got['gap'] * 1000:.0f} ms for a frame"


def test_the_bystander_keeps_its_frames_through_a_burst_of_long_steps(
    server: Served, bystander: Bystander, many_bodies: dict
) -> None:
    """And a newcomer gets its hello within 1 s meanwhile."""
    assert put_scenario(server, "steps-timed", many_bodies) == 200
    with controller(server, "steps-timed") as ws:

        def attack() -> float:
            for i in range(100):
                ws.send(json.dumps({"type": "step", "n": 10000, "id": i}))
            started = time.monotonic()
            with controller(server, "newcomer-timed"):
                handshake = time.monotonic() - started
            replies(ws, set(range(100)), timeout=60)
            return handshake

        wait_for_quiet(bystander)
        handshake, cost = bystander.during(attack)
    assert handshake < 1.0, f"a new client waited {handshake:.2f} s for its hello"
    assert cost.held <= ISSUE_HELD_S, f"the loop was held {cost.held * 1e3:.1f} ms"
    assert cost.fps >= MIN_FPS, f"the bystander fell to {cost.fps:.1f} fps"


def test_150_refusals_take_under_2_s(server: Served, bystander: Bystander) -> None:
    from support.adversary import hello_of
    from websockets.sync.client import connect

    scenario = {"name": "x", "integration": {"TOutput": "0:1e-6:1"}}
    with connect(f"{server.ws_url}?room=bystander", max_size=None, max_queue=None) as ws:
        hello_of(ws)
        started = time.monotonic()
        for i in range(150):
            ws.send(json.dumps({"type": "load_scenario", "scenario": scenario, "id": i}))
        got = replies(ws, set(range(150)))
        seconds = time.monotonic() - started
    assert {r["code"] for r in got.values()} == {"forbidden"}
    assert seconds < 2.0, f"150 refusals took {seconds:.2f} s"
