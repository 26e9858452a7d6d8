"""Ghost runs (simulation/ghost.py): the room's inputs through other settings, beside it."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient
from support.driving import Clock, racket
from support.driving import ghost_ticks as ticks

from sixdof.fields import FieldError
from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app
from sixdof.simulation import LiveSimulation
from sixdof.simulation.ghost import Ghost


def test_a_ghost_with_the_same_settings_stays_on_the_live_body() -> None:
    sim, clock = racket()
    ticks(sim, None, clock, 60)
    sim.set_input(None, [0, 0.5, 0], [0.01, 0, 0])
    ticks(sim, None, clock, 60)
    ghost = Ghost(sim, {"integrator": "rk4"})  # what the room runs with: a twin
    assert ghost.sim.t == sim.t
    assert np.array_equal(ghost.sim.state_array(), sim.state_array())  # replayed exactly
    ticks(sim, ghost, clock, 60)
    sim.set_input(None, [0, 0, 0], [0, 0, 0.02])  # followed as it happens
    ticks(sim, ghost, clock, 60)
    diff = ghost.frame(sim.frame()["bodies"])["diff"][0]
    assert diff["pos"] < 1e-12 and diff["angle"] < 1e-6


def test_the_fhsim_ghost_of_the_tennis_racket_never_flips() -> None:
    """full: the handle flips (Dzhanibekov); fhsim drops ω × Iω and keeps spinning about x:
    the ghost drifts half a turn away from the live body within the first flip."""
    sim, clock = racket()
    ghost = Ghost(sim, {"model": "fhsim"})
    ticks(sim, ghost, clock, 60 * 4)
    frame = ghost.frame(sim.frame()["bodies"])
    assert frame["diff"][0]["angle"] > 2.0  # rad: far apart after the flip
    q = np.array(frame["bodies"][0]["Quater"])
    # the ghost still spins about its body x axis, which stays along the world x axis
    x_axis = np.array([1 - 2 * (q[2] ** 2 + q[3] ** 2), 2 * (q[1] * q[2] + q[0] * q[3]),
                       2 * (q[1] * q[3] - q[0] * q[2])])  # fmt: skip
    assert abs(x_axis[0]) > 0.999
    assert math.isclose(ghost.sim.t, sim.t, abs_tol=1e-9)


def test_a_ghost_is_rebuilt_when_the_room_goes_back_and_refuses_bad_settings() -> None:
    from sixdof.simulation.replay import go_back

    sim, clock = racket()
    ghost = Ghost(sim, {"Mass": 2.0})
    ticks(sim, ghost, clock, 120)
    go_back(sim, 0.5)
    assert ghost.stale
    ghost.follow()  # rebuilt in pieces, a few ms of each tick (its uncut ones in a thread)
    deadline = time.monotonic() + 60
    while ghost.rebuilding and time.monotonic() < deadline:
        assert ghost.behind  # shown as it was meanwhile
        ghost.follow()
    assert not ghost.rebuilding and math.isclose(ghost.sim.t, sim.t, abs_tol=1e-9)
    with pytest.raises(FieldError, match="changes"):
        Ghost(sim, {"Material": "red"})
    with pytest.raises(FieldError, match="Mass"):
        Ghost(sim, {"Mass": -1.0})
    ghost.close()
    assert sim.timeline.listeners == []  # the ghost no longer follows the room


def test_the_state_message_carries_the_ghost() -> None:
    with TestClient(create_app(Settings(scenario=PRESETS["tennis_racket"].scenario()))) as c:
        with c.websocket_connect("/ws?room=g") as ws:
            ws.send_json({"type": "set_ghost", "changes": {"model": "fhsim"}, "id": 1})
            ghost = None
            for _ in range(200):
                msg = ws.receive_json()
                if msg["type"] == "error":
                    raise AssertionError(msg)
                if msg["type"] == "state" and msg.get("ghost"):
                    ghost = msg["ghost"]
                    break
            assert ghost is not None and ghost["changes"] == {"model": "fhsim"}
            assert set(ghost["diff"][0]) == {"pos", "angle"}
            json.dumps(ghost)
            ws.send_json({"type": "set_ghost", "changes": None, "id": 2})
            for _ in range(200):
                msg = ws.receive_json()
                if msg.get("id") == 2:
                    break
            msg = ws.receive_json()
            while msg["type"] != "state":
                msg = ws.receive_json()
            assert "ghost" not in msg


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_ghost_follows_the_rooms_elements_and_water(when: str) -> None:
    """A twin ghost of a room whose elements and water change (set_elements, set_water),
    whether before the ghost is built (replayed from the recording) or while it follows:
    it stays on the live body."""
    clock = Clock()
    sim = LiveSimulation(PRESETS["floating_box"].scenario(), clock=clock,
                         recording_bytes=8 << 20)  # fmt: skip
    ghost = Ghost(sim, {"integrator": "rk4"}) if when == "after" else None
    ticks(sim, ghost, clock, 30)
    sim.set_water({"density": 1000.0, "waves": [{"amplitude": 0.05, "period": 3.0}]})
    ticks(sim, ghost, clock, 30)
    barge = sim.scenario.bodies[0].Name
    damper = {"kind": "damper", "body": barge, "linear": [0, 0, 800, 200, 200, 0]}
    sim.set_elements([{"kind": "buoyancy", "body": barge}, damper])
    ticks(sim, ghost, clock, 30)
    if ghost is None:
        ghost = Ghost(sim, {"integrator": "rk4"})
    ticks(sim, ghost, clock, 60)
    diff = ghost.frame(sim.frame()["bodies"])["diff"][0]
    assert diff["pos"] < 1e-12 and diff["angle"] < 1e-9
