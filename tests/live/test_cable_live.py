"""A cable in a live room (issue 44): MoorPy's hanging line settled through the websocket,
stepped paused (`step`), its fairlead force, tensions and length on the seabed read from the
state frames equal the same scenario stepped headless by the kernels, and are MoorPy's."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from sixdof.dynamics import kernel as K
from sixdof.dynamics.cable_lines import lines
from sixdof.scenario import Scenario
from sixdof.server import Settings, create_app
from sixdof.server.protocol import server_message_adapter

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

# MoorPy's case (tests/unit/test_cable.py): 500 m of line weighing 800 N/m in water, the
# fairlead 400 m across and 200 m up from the anchor on a seabed 250 m down
G, W, D, RHO, L, DEPTH = 9.81, 800.0, 0.15, 1025.0, 500.0, 250.0
MU = W / G + RHO * math.pi * D * D / 4
MOORPY = {"H": 96_643.0, "V": 237_752.0, "seabed": 202.8}
N, H, STEPS, ROUNDS = 10, 2e-3, 10_000, 10  # 200 s of settling


def _scenario() -> dict[str, Any]:
    seg = L / N
    cable = {"kind": "cable", "body": "Buoy", "to": [0.0, 0.0, DEPTH], "length": L,
             "segments": N, "mass_per_length": MU, "axial_stiffness": 1e9, "diameter": D,
             "drag_normal": 10.0, "drag_tangential": 1.0,
             "axial_damping": 0.3 * MU * seg * seg / H}  # fmt: skip
    buoy = {"Name": "Buoy", "Mass": 1000.0, "Pos": [400.0, 0.0, DEPTH - 200.0]}
    return {"bodies": [buoy], "elements": [{"kind": "pivot", "body": "Buoy"}, cable],
            "water": {"depth": DEPTH}, "integration": {"stepsize": H}}  # fmt: skip


def _headless() -> dict[str, Any]:
    """The same scenario stepped by the kernels alone, as many steps."""
    scenario = Scenario.model_validate(_scenario())
    bodies, system = scenario.batch(), scenario.system()
    pk = K.packed(bodies, system)
    x = np.ascontiguousarray(scenario.initial_states())
    z = K.element_states(pk, None)
    K.advance(pk, x, np.zeros((1, 6)), H, STEPS * ROUNDS, "rk4", 0.0, z)
    rec = K.element_records(pk, x, np.zeros((1, 6)), 0.0, H, z)
    line = lines(system, bodies, x, z)[1]
    assert line is not None
    return {"force": rec[1, 3:6], "force_b": line.force_b, "tension": line.tension,
            "seabed_length": line.seabed_length}  # fmt: skip


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    # 200 s of a 10-segment line is seconds of computing: more than an address may bank.
    # The room keeps a history row (the bodies' and lines' outputs, in numpy) per frame of
    # simulated time: at 60 frames a second those rows cost ten times the 100,000 steps
    # themselves; at 10 (50 steps a row, the rounds whole rows) the steps are the same.
    settings = Settings(room_ttl=1.0, work_rate=100.0, work_burst=100.0, frame_rate=10.0)
    with TestClient(create_app(settings)) as c:
        yield c


def recv(ws: Any, *types: str, limit: int = 400) -> dict[str, Any]:
    for _ in range(limit):
        msg = ws.receive_json()
        server_message_adapter.validate_python(msg)
        if msg["type"] in types:
            return msg
    raise AssertionError(f"no {types} within {limit} messages")


def send(ws: Any, payload: dict[str, Any]) -> None:
    ws.send_text(json.dumps(payload))
    reply = recv(ws, "ack", "error")
    assert reply["type"] == "ack", reply


def test_the_settled_fairlead_force_in_the_frames_is_the_headless_one(client: TestClient) -> None:
    with client.websocket_connect("/ws?room=cable_moorpy") as ws:
        recv(ws, "hello")
        send(ws, {"type": "pause"})
        send(ws, {"type": "load_scenario", "scenario": _scenario()})
        recv(ws, "hello")
        frame = recv(ws, "state")
        first = frame["elements"][1]
        assert len(first["nodes"]) == N + 1 and len(first["tension"]) == N
        for k in range(ROUNDS):
            send(ws, {"type": "step", "n": STEPS})
            frame = recv(ws, "state")
            while abs(frame["t"] - (k + 1) * STEPS * H) > 1e-9:  # a frame from before
                frame = recv(ws, "state")
    got = frame["elements"][1]
    want = _headless()
    for key in ("force", "force_b", "tension"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-9, atol=1e-6, err_msg=key)
    assert got["seabed_length"] == pytest.approx(want["seabed_length"], rel=1e-9)
    # the fairlead pulls the buoy toward the anchor and down (NED: −x, +z); the anchor is
    # pulled up and toward the fairlead by the line's horizontal tension alone
    h, v = -got["force"][0], got["force"][2]
    assert abs(h / MOORPY["H"] - 1) < 0.025, h  # 10 segments: 1.8 % (test_cable.py)
    assert abs(v / MOORPY["V"] - 1) < 0.025, v
    assert abs(got["seabed_length"] / MOORPY["seabed"] - 1) < 0.025, got["seabed_length"]
    assert got["force_b"][0] == pytest.approx(h, rel=0.02)
    # the body's outputs: the same force, the largest tension at the fairlead
    body = frame["bodies"][0]
    np.testing.assert_allclose(body["CableForce"], got["force"], rtol=1e-9)
    assert body["CableTension"] == pytest.approx(max(got["tension"]))
    assert body["CableTension"] == pytest.approx(got["tension"][0])
    assert body["CableSeabedLength"] == pytest.approx(got["seabed_length"])
