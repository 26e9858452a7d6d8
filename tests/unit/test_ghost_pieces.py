"""A ghost built in pieces (Ghost.building, as `set_ghost` builds it on the server) is the
ghost built at once, bit for bit, even when the room goes on, changes and goes back between
the pieces; and a rebuild after the room went back takes a few ms of each tick."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sixdof.simulation.ghost import Ghost
from sixdof.simulation.live import LiveSimulation
from sixdof.simulation.pieces import Offload
from sixdof.simulation.replay import MOMENTS, go_back


def room(bodies: int = 8, steps: int = 3000) -> LiveSimulation:
    crowd = {"name": "crowd", "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0.1 * i]}
                                         for i in range(bodies)]}  # fmt: skip
    sim = LiveSimulation(crowd, running=False, recording_bytes=8 << 20)
    sim.set_input("B1", [1.0, 0.0, 0.0], [0.0, 0.0, 0.2])
    sim.step(steps)
    sim.set_params("B2", Mass=3.0)
    sim.step(steps)
    return sim


def run(pieces: Any, between: Any = None) -> tuple[Ghost, int]:
    """Run pieces as the server does (offloads in place here), calling `between(k)` after
    the k-th piece; the ghost and the count of pieces."""
    count, value = 0, None
    while True:
        try:
            asked = pieces.send(value)
        except StopIteration as done:
            return done.value, count
        count += 1
        value = asked.fn(*asked.args) if isinstance(asked, Offload) else None
        if between is not None:
            between(count)


def same(a: Ghost, b: Ghost) -> None:
    assert a.sim.t == b.sim.t
    assert np.array_equal(a.sim.state_array(), b.sim.state_array())


def test_a_ghost_in_tiny_pieces_is_the_ghost_at_once() -> None:
    for changes in ({"Mass": 2.0}, {"model": "fhsim"}, {"integrator": "rk4", "step": 0.0005}):
        sim = room(steps=300)  # a piece a step: each piece's overhead, 600 times
        whole = Ghost(sim, changes)
        MOMENTS._kept.clear()  # the keyframe read again, offloaded
        cut, pieces = run(Ghost.building(sim, changes, piece_seconds=1e-9))
        assert pieces > 20
        same(cut, whole)
        assert cut._on_change in sim.timeline.listeners  # it follows the room
        whole.close()
        cut.close()
        assert sim.timeline.listeners == []


def test_the_room_going_on_and_changing_between_pieces_is_caught_up_with() -> None:
    sim = room()

    def between(k: int) -> None:  # the room ticks, and a client pushes, while it builds
        sim.step(1)
        if k == 2:
            sim.set_input("B3", [0.0, 2.0, 0.0])
        if k == 3:
            sim.set_params("B4", Mass=5.0)

    cut, pieces = run(Ghost.building(sim, {"Mass": 2.0}, piece_seconds=2e-3), between)
    assert pieces > 3
    whole = Ghost(sim, {"Mass": 2.0})  # at once, from the recording of all of it
    same(cut, whole)
    sim.step(50)
    sim.set_input("B5", [0.0, 0.0, 1.0])  # after it: the ghost follows as ever
    sim.step(50)
    cut.follow()
    whole.follow()
    same(cut, whole)


def test_a_room_going_back_while_its_ghost_is_built_builds_it_again() -> None:
    sim = room()
    went = []

    def between(k: int) -> None:
        sim.step(1)
        if k == 2:
            went.append(go_back(sim, 2.0))

    cut, _ = run(Ghost.building(sim, {"Mass": 2.0}, piece_seconds=2e-3), between)
    assert went and sim.t < 3.0
    same(cut, Ghost(sim, {"Mass": 2.0}))


def test_a_rebuild_after_going_back_takes_a_few_ms_of_each_tick() -> None:
    sim = room(64)
    ghost = Ghost(sim, {"Mass": 2.0})
    go_back(sim, 1.0)
    sim.step(500)
    longest, ticks = 0.0, 0
    while True:
        started = time.perf_counter()
        ghost.follow()
        longest = max(longest, time.perf_counter() - started)
        ticks += 1
        if not ghost.rebuilding:
            break
    assert ticks > 2  # in pieces
    same(ghost, Ghost(sim, {"Mass": 2.0}))
    print(f"rebuilt in {ticks} ticks, the longest {longest * 1e3:.1f} ms")
