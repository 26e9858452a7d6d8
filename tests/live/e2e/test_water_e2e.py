"""Water tuned live in a real server (issue 28): the floating_box scenario PUT as JSON floats
at its draft in the frames a viewer receives; set_water with fresh water (1000 kg/m³) sinks
it to the new draft m/(ρ L B), the state running on; a bad water is refused naming the field.

The preset's barge is undamped (it would heave and roll for ever about its equilibrium), so
the scenario PUT here is the preset with one damper added; the test waits for the frames to
show the barge settled, never for a fixed time."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection

from sixdof.scenario.presets import PRESETS

from .conftest import Served
from .wskit import next_of, open_ws, send

_BARGE = PRESETS["floating_box"].scenario().bodies[0]
BARGE_BOX, BARGE_MASS = _BARGE.Size, _BARGE.Mass
BARGE_KG = float(PRESETS["floating_box"].values["kg"])  # its CG above the keel

ROOM = "water-e2e"
#: ζ ≈ 0.7 in heave, roll and pitch; surge and sway settle in τ = m / c ≈ 0.4 s.
DAMPER = {"kind": "damper", "body": "Barge",
          "linear": [2000.0, 2000.0, 6000.0, 700.0, 2000.0, 300.0]}  # fmt: skip


def pos_z(density: float) -> float:
    """Pos z of the floating barge: keel at the draft m/(ρ L B) below the still level 0, the
    CG (its Pos) KG above the keel; NED, z down."""
    return BARGE_MASS / (density * BARGE_BOX[0] * BARGE_BOX[1]) - BARGE_KG


async def settled(
    ws: ClientConnection, z: float, tol: float = 1e-3, hold: float = 1.0, wait: float = 120.0
) -> dict[str, Any]:
    """The first state frame after the barge has kept |Pos z − z| < tol and every velocity
    below 1 mm/s (or mrad/s) for `hold` simulated seconds; AssertionError after `wait` wall
    seconds without it."""
    deadline = time.monotonic() + wait
    since, last = None, None
    while (left := deadline - time.monotonic()) > 0:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), left))
        except asyncio.TimeoutError:
            break
        if msg["type"] != "state":
            continue
        last = msg["bodies"][0]
        still = max(abs(v) for v in (*last["Vel"], *last["AngVel"])) < 1e-3
        if abs(last["Pos"][2] - z) >= tol or not still:
            since = None
            continue
        since = msg["t"] if since is None else since
        if msg["t"] - since >= hold:
            return msg
    raise AssertionError(f"the barge did not settle at Pos z = {z}: last frame {last}")


def test_fresh_water_set_live_sinks_the_barge_to_its_new_draft(live_server: Served) -> None:
    scenario = PRESETS["floating_box"].scenario().model_dump(mode="json")
    scenario["elements"].append(DAMPER)
    echoed = live_server.put_scenario(ROOM, scenario)
    assert echoed["water"]["density"] == 1025.0

    async def run() -> dict[str, Any]:
        ws = await open_ws(live_server, ROOM)
        try:
            salt = await settled(ws, pos_z(1025.0))
            refused = await send(ws, {"type": "set_water", "water": {
                "density": 1000.0, "waves": [{"amplitude": 0.1, "period": 0.0}]}})  # fmt: skip
            fresh = await send(ws, {"type": "set_water", "water": {"density": 1000.0}})
            hello = await next_of(ws, "hello")
            after = await next_of(ws, "state")
            sunk = await settled(ws, pos_z(1000.0))
            return {"salt": salt, "refused": refused, "fresh": fresh, "hello": hello,
                    "after": after, "sunk": sunk}  # fmt: skip
        finally:
            await ws.close()

    got = asyncio.run(run())
    salt, sunk = got["salt"]["bodies"][0]["Pos"][2], got["sunk"]["bodies"][0]["Pos"][2]
    assert abs(salt - pos_z(1025.0)) < 1e-3  # 0.2 m; measured 3e-7 m
    assert abs(sunk - pos_z(1000.0)) < 1e-3  # 0.21 m, 10 mm deeper; measured 8e-6 m
    refused = got["refused"]
    assert refused["type"] == "error" and refused["field"] == "water.waves[0].period"
    assert "[0.1, 1000] s" in refused["message"]
    assert got["fresh"]["type"] == "ack"
    water = got["hello"]["scenario"]["water"]
    assert water == {"density": 1000.0, "level": 0.0, "current": [0.0, 0.0, 0.0], "waves": [],
                     "depth": None}  # fmt: skip
    assert got["hello"]["limits"]["water"]["density"] == [1.0, 20000.0]
    (hydro,) = got["hello"]["hydrostatics"]  # the hello's own figures follow the new water
    assert abs(hydro["draft"] - (pos_z(1000.0) + BARGE_KG)) < 1e-3
    assert got["after"]["t"] >= got["salt"]["t"]  # the run went on: no restart
