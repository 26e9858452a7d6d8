"""End to end: a real uvicorn (`sixdof serve`) in its own process, real websocket clients.

A push gives a = F/m at the right rate in real time, frames come at 60 Hz, clients of one
room see the same t, and 50 clients with one that never reads: the others keep their frame
rate and the server's memory stays bounded.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import numpy as np
from support.serving import MAX_HELD_S, HeldLoop
from websockets.asyncio.client import ClientConnection, connect

from sixdof.scenario import BodySpec, Scenario
from sixdof.server.binary import decode_state

from .conftest import MASS, Served
from .wskit import FRAME_RATE, WAIT_S, frames_for, next_of, open_ws, run, stats


def test_push_accelerates_the_body_at_f_over_m_in_real_time(live_server: Served) -> None:
    force = np.array([3.0, -1.0, 0.5])  # N, global NED

    async def scenario() -> list[tuple[float, dict]]:
        ws = await open_ws(live_server, "push")
        await ws.send(
            json.dumps(
                {"type": "set_input", "channel": "push", "id": "go", "Force": force.tolist()}
            )
        )
        assert (await next_of(ws, "ack"))["id"] == "go"
        await next_of(ws, "state")
        frames = await frames_for(ws, 1.5, at_least=30)
        await ws.close()
        return frames

    frames = run(scenario())
    pushed = [(wall, f) for wall, f in frames if f["bodies"][0]["Force"] == force.tolist()]
    t = np.array([f["t"] for _, f in pushed])
    # enough frames for the fits (a client starved by a loaded machine may be sent fewer than
    # 60 a second: the server skips frames for a socket that is behind, by design)
    assert len(pushed) >= 10 and t[-1] - t[0] >= 0.3, (len(pushed), t[-1] - t[0])
    vel = np.array([f["bodies"][0]["Vel"] for _, f in pushed])
    pos = np.array([f["bodies"][0]["Pos"] for _, f in pushed])
    accel = np.polyfit(t, vel, 1)[0]  # slope of each velocity component, m/s²
    np.testing.assert_allclose(accel, force / MASS, rtol=0.01)
    curvature = np.polyfit(t, pos, 2)[0] * 2.0  # x = x0 + v0 t + ½ a t²
    np.testing.assert_allclose(curvature, force / MASS, rtol=0.01)
    # that simulated time keeps pace with the wall clock is the timing tier's
    # (tests/timing/test_frame_rate_timing.py): a loaded machine slows both the same way


def test_frame_rate_and_two_clients_share_one_clock(live_server: Served) -> None:
    async def scenario() -> tuple[list, list, dict, dict]:
        a = await open_ws(live_server, "pair")
        b = await open_ws(live_server, "pair")
        await next_of(a, "state")
        before = stats(live_server, "pair")
        fa, fb = await asyncio.gather(frames_for(a, 2.0, 20), frames_for(b, 2.0, 20))
        after = stats(live_server, "pair")
        await a.close()
        await b.close()
        return fa, fb, before, after

    fa, fb, before, after = run(scenario())
    assert after["seq"] > before["seq"]  # its rate on the clock: tests/timing
    for frames in (fa, fb):
        seqs = [f["seq"] for _, f in frames]
        assert len(seqs) >= 10 and seqs == sorted(seqs)
    ta = {f["seq"]: f["t"] for _, f in fa}
    tb = {f["seq"]: f["t"] for _, f in fb}
    common = set(ta) & set(tb)
    assert len(common) >= 10  # a client behind skips frames (latest-wins): not all are shared
    assert all(ta[s] == tb[s] for s in common)


async def count_frames(ws: ClientConnection, seconds: float) -> tuple[int, int, dict[str, Any]]:
    """(frames received within `seconds`, the seq of the first, the last frame); unparsed but
    for the first and the last (49 of these share one client process)."""
    n, first, last = 0, None, b"{}"
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            last = await asyncio.wait_for(ws.recv(decode=False), left)
        except asyncio.TimeoutError:
            break
        if first is None:
            msg = json.loads(last)
            if msg["type"] != "state":
                continue
            first = msg["seq"]
        n += 1
    return n, first or 0, json.loads(last)


def test_fifty_clients_one_never_reads(live_server: Served) -> None:
    seconds = 3.0
    # 8 bodies make ~6 KB frames, so the stalled client's socket buffers fill within a second
    crowd = Scenario(
        name="crowd",
        bodies=[BodySpec(Name=f"B{i}", Gravity=0.0, AngVel=(0, 0, i)) for i in range(8)],
    )

    async def scenario() -> tuple[list[tuple], dict, int, int, dict, dict]:
        first = await open_ws(live_server, "crowd")
        await first.send(
            json.dumps({"type": "load_scenario", "scenario": crowd.model_dump(mode="json")})
        )
        assert (await next_of(first, "ack"))["of"] == "load_scenario"
        # The stalled client: a tiny receive buffer and queue, and it never calls recv().
        sock = socket.create_connection(("127.0.0.1", live_server.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled = await connect(
            f"{live_server.ws_url}?room=crowd", sock=sock, proxy=None, compression=None, max_queue=1
        )
        readers = [first] + [await open_ws(live_server, "crowd") for _ in range(48)]
        await asyncio.gather(*(count_frames(ws, 0.5) for ws in readers))  # settle
        rss_before = live_server.rss_kib()
        before = stats(live_server, "crowd")
        results = await asyncio.gather(*(count_frames(ws, seconds) for ws in readers))
        rss_after = live_server.rss_kib()
        room = stats(live_server, "crowd")
        # the stalled client loses frames instead of queueing them: more than a second's worth
        # once the room has ticked enough (a loaded machine ticks it less often in 3 s)
        end = time.monotonic() + WAIT_S
        while room["max_frames_dropped"] <= FRAME_RATE and time.monotonic() < end:
            await asyncio.sleep(0.1)
            room = stats(live_server, "crowd")
        stalled.transport.abort()  # a polite close would wait for the stalled peer
        for ws in readers:
            await ws.close()
        return results, results[0][2], rss_before, rss_after, before, room

    with HeldLoop(live_server) as held:
        results, last, rss_before, rss_after, before, room = run(scenario())
    assert held.longest <= MAX_HELD_S, f"the loop was held {held.longest * 1e3:.1f} ms"
    assert room["clients"] == 50
    assert len(last["bodies"]) == 8
    # the room went on (a room blocked by the stalled client would stop; its rate on the clock
    # is the timing tier's), and every reader got frames
    assert room["seq"] - before["seq"] >= 10, (before, room)
    assert all(n >= 5 for n, _, _ in results), [n for n, _, _ in results]
    assert rss_after - rss_before < 50 * 1024, (rss_before, rss_after)
    # the stalled client lost frames instead of queueing them
    assert room["max_frames_dropped"] > FRAME_RATE, room


def test_binary_frames_over_the_wire_carry_the_json_frames_numbers(
    live_server: Served,
) -> None:
    """A binary client and a JSON client of one room see the same state at the same seq."""

    async def scenario() -> tuple[dict[int, dict], dict[int, dict]]:
        binary = await connect(f"{live_server.ws_url}?room=binwire&frames=binary", proxy=None)
        hello = json.loads(await binary.recv())
        if hello["type"] == "preparing":  # the server's first join: the physics loads first
            hello = json.loads(await binary.recv())
        assert hello["frames"] == "binary"
        text = await open_ws(live_server, "binwire")
        await text.send(json.dumps({"type": "set_input", "Force": [0, 3, 0], "id": 1}))
        by_seq_binary: dict[int, dict] = {}
        by_seq_text: dict[int, dict] = {}
        while len(set(by_seq_binary) & set(by_seq_text)) < 20:
            done, _ = await asyncio.wait(
                [asyncio.ensure_future(binary.recv()), asyncio.ensure_future(text.recv())],
                return_when=asyncio.ALL_COMPLETED,
            )
            for task in done:
                msg = task.result()
                if isinstance(msg, bytes):
                    frame = decode_state(msg)
                    by_seq_binary[frame["seq"]] = frame
                elif (parsed := json.loads(msg))["type"] == "state":
                    by_seq_text[parsed["seq"]] = parsed
        await binary.close()
        await text.close()
        return by_seq_binary, by_seq_text

    got_binary, got_text = run(scenario())
    common = sorted(set(got_binary) & set(got_text))
    for seq in common:
        b, j = got_binary[seq], got_text[seq]
        assert b["t"] == j["t"]
        assert b["bodies"][0]["Pos"] == j["bodies"][0]["Pos"]
        assert b["bodies"][0]["LocalVel"] == j["bodies"][0]["LocalVel"]
    assert any(got_text[s]["bodies"][0]["Force"][1] == 3.0 for s in common)
