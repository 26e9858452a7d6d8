"""Joints in a real server (issue 41): a double pendulum PUT as JSON moves in the viewers'
frames as `sixdof run` computes the same JSON (to 1e-9 m at the same step), its joints'
gaps in the frames; a joint added live over the websocket where the bodies are apart now
is refused naming the gap and where the body would have to be, one that fits joins them
where they are."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .conftest import Served
from .wskit import frames_for, open_ws, send

STEP = 0.001
DOUBLE: dict[str, Any] = {
    "name": "double pendulum",
    "bodies": [
        {"Name": "Upper", "Mass": 1.0, "InertiaRadi": [0.29, 0.29, 0.01],
         "Pos": [0.0, 0.0, 0.5]},
        {"Name": "Lower", "Mass": 1.5, "InertiaRadi": [0.23, 0.23, 0.01],
         "Pos": [0.0, 0.0, 1.4], "AngVel": [0.0, 3.0, 0.0], "LocalVel": [1.2, 0.0, 0.0]},
    ],
    "integration": {"method": "rk4", "stepsize": STEP, "TOutput": f"0:{STEP}:8"},
    "elements": [
        {"kind": "joint", "type": "hinge", "body": "Upper", "point": [0, 0, -0.5]},
        {"kind": "joint", "type": "hinge", "body": "Lower", "point": [0, 0, -0.4],
         "to": {"body": "Upper"}},
    ],
}  # fmt: skip


def headless(tmp: Path) -> dict[str, np.ndarray]:
    """`sixdof run` of DOUBLE: each body's Pos at every step."""
    spec = tmp / "double.json"
    spec.write_text(json.dumps({k: v for k, v in DOUBLE.items() if k != "name"}))
    out = tmp / "double.csv"
    subprocess.run(
        [sys.executable, "-m", "sixdof.cli", "run", "--input-file", str(spec), "--output-file",
         str(out), "--quiet"],
        check=True, env=os.environ.copy(), timeout=600,
    )  # fmt: skip
    header = out.read_text().splitlines()[0].split(",")
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    return {
        name: table[:, [header.index(f"{name}.Pos[{k}]") for k in range(3)]]
        for name in ("Upper", "Lower")
    }


def test_a_double_pendulum_put_as_json_moves_as_sixdof_run_computes_it(
    live_server: Served, tmp_path: Path
) -> None:
    room = "double-pendulum-e2e"
    live_server.put_scenario(room, DOUBLE)

    async def watch() -> list[tuple[float, dict]]:
        ws = await open_ws(live_server, room)
        try:
            return await frames_for(ws, 2.0, at_least=20)
        finally:
            await ws.close()

    frames = [f for _, f in asyncio.run(watch())]
    reference = headless(tmp_path)
    compared = 0
    for frame in frames:
        n = round(frame["t"] / STEP)
        assert abs(frame["t"] - n * STEP) < 1e-9  # frames fall on steps
        if n >= len(reference["Upper"]):
            continue
        for body in frame["bodies"]:
            np.testing.assert_allclose(body["Pos"], reference[body["Name"]][n], atol=1e-9)
            assert body["JointGap"] < 1e-9 and body["JointGapAngle"] < 1e-9
        for element in frame["elements"]:
            assert max(element["gap"]) < 1e-9
        compared += 1
    assert compared >= 20
    assert np.ptp([f["bodies"][1]["Pos"][0] for f in frames]) > 0.05  # it swung


APART: dict[str, Any] = {
    "name": "two apart",
    "bodies": [
        {"Name": "A", "Mass": 1.0, "InertiaRadi": [0.3, 0.3, 0.3], "Gravity": 0.0},
        {"Name": "B", "Mass": 1.0, "InertiaRadi": [0.3, 0.3, 0.3], "Gravity": 0.0,
         "Pos": [0.0, 1.0, 0.0], "LocalVel": [0.0, -0.4, 0.0]},
    ],
}  # fmt: skip


def test_a_joint_added_live_joins_bodies_where_they_are_or_is_refused(
    live_server: Served,
) -> None:
    """B drifts toward A. A ball joint with B's point 1 m west of its reference point would
    join them only where B started (1 m east of A): refused now, naming the gap and the Pos
    B would need. Joined where they are instead (ends left out), they move as one: the
    distance between them stays, B's momentum shared (each at 0.2 m/s west)."""
    room = "joint-live-e2e"
    live_server.put_scenario(room, copy.deepcopy(APART))

    async def scenario() -> tuple[dict, dict, list[tuple[float, dict]]]:
        ws = await open_ws(live_server, room)
        try:
            await frames_for(ws, 0.5)  # B is no longer where it started
            joint = {"kind": "joint", "type": "ball", "body": "B", "point": [0.0, -1.0, 0.0],
                     "to": {"body": "A", "point": [0.0, 0.0, 0.0]}}  # fmt: skip
            refused = await send(ws, {"type": "set_elements", "elements": [joint]})
            here = {"kind": "joint", "type": "ball", "body": "B", "to": {"body": "A"}}
            added = await send(ws, {"type": "set_elements", "elements": [here]})
            return refused, added, await frames_for(ws, 1.0, at_least=5)
        finally:
            await ws.close()

    refused, added, frames = asyncio.run(scenario())
    assert refused["type"] == "error", refused
    assert "m apart" in refused["message"] and "would have to be at Pos" in refused["message"]
    assert added["type"] == "ack", added
    joined = [f for _, f in frames if f.get("elements")]
    assert len(joined) >= 5
    gaps = [np.subtract(f["bodies"][1]["Pos"], f["bodies"][0]["Pos"]) for f in joined]
    assert np.ptp(np.array(gaps), axis=0).max() < 1e-9  # one body now
    for f in joined:
        for body in f["bodies"]:
            assert np.allclose(body["Vel"], [0.0, -0.2, 0.0], atol=1e-9)
        assert max(f["elements"][0]["gap"]) < 1e-9
