"""Elements in a real server: a compound pendulum PUT as JSON swings, in the frames a viewer
receives, with the closed-form period; a spring added over the websocket shortens it; a
refused element list changes nothing."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from scipy.special import ellipk

from .conftest import Served
from .wskit import frames_for, next_of, open_ws, send

MASS, RX, D, THETA0 = 2.0, 0.25, 0.5, 1.0

PENDULUM = {
    "name": "pendulum",
    "bodies": [
        {
            "Name": "P",
            "Mass": MASS,
            "InertiaRadi": [RX, 0.2, 0.3],
            "Quater": [math.cos(THETA0 / 2), math.sin(THETA0 / 2), 0.0, 0.0],
        }
    ],
    "elements": [{"kind": "pivot", "body": "P", "point": [0.0, 0.0, -D]}],
}


def swing_period(frames: list[tuple[float, dict]]) -> float:
    """Twice the mean interval between the roll rate's sign changes, in simulated time."""
    t = np.array([f["t"] for _, f in frames])
    w = np.array([f["bodies"][0]["AngVel"][0] for _, f in frames])
    s = np.flatnonzero(np.diff(np.sign(w)) != 0)
    zero = t[s] - w[s] * (t[s + 1] - t[s]) / (w[s + 1] - w[s])
    return float(2 * np.mean(np.diff(zero)))


def test_a_pendulum_put_as_json_swings_with_its_period_in_the_frames(
    live_server: Served,
) -> None:
    room = "pendulum-e2e"
    echoed = live_server.put_scenario(room, PENDULUM)
    assert echoed["elements"][0]["kind"] == "pivot"
    i_o = MASS * (RX * RX + D * D)
    exact = 4 * ellipk(math.sin(THETA0 / 2) ** 2) * math.sqrt(i_o / (MASS * 9.81 * D))

    async def scenario() -> tuple[float, float, dict, dict]:
        ws = await open_ws(live_server, room)
        try:
            frames = await frames_for(ws, 3.6)
            free = swing_period(frames)
            last = frames[-1][1]
            refused = await send(ws, {"type": "set_elements", "elements": [
                {"kind": "ground", "body": "P", "restitution": 2.0}]})  # fmt: skip
            spring = {"kind": "spring", "body": "P", "stiffness": 60.0, "to": [0.0, 0.0, 0.0]}
            added = await send(ws, {"type": "set_elements",
                                    "elements": [*PENDULUM["elements"], spring]})  # fmt: skip
            hello = await next_of(ws, "hello")
            stiff = swing_period(await frames_for(ws, 3.6))
            return free, stiff, last, {"refused": refused, "added": added, "hello": hello}
        finally:
            await ws.close()

    free, stiff, last, replies = asyncio.run(scenario())
    # frames arrive at 60 Hz: the zero crossings are interpolated between frames ~17 ms apart
    assert free == pytest.approx(exact, rel=2e-3)
    point = last["elements"][0]["point"]
    # held where the body point started: R(θ₀ about x) (0, 0, −d)
    held = [0.0, D * math.sin(THETA0), -D * math.cos(THETA0)]
    assert np.allclose(point, held, atol=1e-9)
    assert replies["refused"]["type"] == "error"
    assert "restitution" in replies["refused"]["field"]
    assert "[0, 1]" in replies["refused"]["message"]
    assert replies["added"]["type"] == "ack"
    assert len(replies["hello"]["scenario"]["elements"]) == 2
    assert stiff < 0.85 * free
