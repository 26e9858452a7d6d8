"""Binary state frames (server/binary.py): the same numbers as the JSON frame, exactly."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from sixdof.scenario import BodySpec, Scenario
from sixdof.server import Settings, binary, create_app
from sixdof.server.binary import BODY_WIDTH, HEADER, decode_state, encode_state
from sixdof.simulation import LiveSimulation

SCENARIO = Scenario(bodies=[BodySpec(Name="A", AngVel=(1, 2, 3)), BodySpec(Name="B", Mass=3)])


def test_the_layout_carries_every_number_of_the_json_frame() -> None:
    sim = LiveSimulation(SCENARIO)
    sim.step(7)
    t, status, outs = sim.frame_arrays()
    data = encode_state(41, t, status, outs)
    assert len(data) == HEADER.size + 2 * 8 * BODY_WIDTH
    decoded = decode_state(data)
    frame = sim.frame()
    assert decoded["seq"] == 41 and decoded["t"] == frame["t"]
    for got, want in zip(decoded["bodies"], frame["bodies"], strict=True):
        assert list(got) == [k for k in want if k not in ("Name", "Loads")]  # and in its order
        for name in got:
            assert got[name] == want[name], name  # float64 both ways: equal, not close
    assert decoded["status"]["running"] is True and decoded["status"]["rtf"] == status["rtf"]


def test_the_layout_in_words_has_the_tables_width() -> None:
    """docs/protocol.md shows this module's docstring, which spells the block's size out."""
    doc = binary.__doc__ or ""
    assert f"N × {BODY_WIDTH} f64" in doc and f"A body is {8 * BODY_WIDTH} bytes" in doc


def test_a_non_finite_number_is_refused_like_the_json_frame() -> None:
    sim = LiveSimulation(SCENARIO)
    t, status, outs = sim.frame_arrays()
    bad = {k: np.array(v, dtype=float) for k, v in outs.items()}
    bad["Vel"][1, 2] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        encode_state(1, t, status, bad)
    with pytest.raises(ValueError, match="not a sixdof binary state frame"):
        decode_state(b"XXXX" + encode_state(1, t, status, outs)[4:])


def test_a_client_asks_for_binary_frames_and_gets_them() -> None:
    with TestClient(create_app(Settings(scenario=SCENARIO))) as client:
        with client.websocket_connect("/ws?room=bin&frames=binary") as ws:
            hello = ws.receive_json()
            if hello["type"] == "preparing":  # the process's first join: the physics loads
                hello = ws.receive_json()
            assert hello["type"] == "hello" and hello["frames"] == "binary"
            message: dict[str, Any] = ws.receive()
            frame = decode_state(message["bytes"])
            assert [len(b["Pos"]) for b in frame["bodies"]] == [3, 3]
            assert frame["bodies"][0]["AngVel"] == pytest.approx([1, 2, 3], abs=1e-6)
        with client.websocket_connect("/ws?room=bin") as ws:
            assert ws.receive_json()["frames"] == "json"
            assert json.loads(ws.receive_text())["type"] == "state"
        with client.websocket_connect("/ws?room=bin&frames=xml") as ws:
            error = ws.receive_json()
            assert (error["type"], error["field"]) == ("error", "frames")
