"""A ghost outlives neither its room nor the tick (issue 40): a build that ends after its room
closed is dropped, not attached to the dead room; a rebuild's uncut pieces (the keyframe's
scenario read, the ghost's settings) run in a thread, not in the tick that follows it."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sixdof.server import ghosts
from sixdof.server.errors import Refusal
from sixdof.server.protocol import GhostSettings, SetGhost
from sixdof.server.rooms import Room
from sixdof.server.settings import Settings
from sixdof.simulation import replay
from sixdof.simulation.ghost import Ghost
from sixdof.simulation.live import LiveSimulation
from sixdof.simulation.replay import MOMENTS, go_back


def crowd(bodies: int = 8) -> LiveSimulation:
    scenario = {"name": "crowd", "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0.1 * i]}
                                            for i in range(bodies)]}  # fmt: skip
    sim = LiveSimulation(scenario, running=False, recording_bytes=8 << 20)
    sim.set_input("B1", [1.0, 0.0, 0.0], [0.0, 0.0, 0.2])
    sim.step(1500)
    return sim


class Held:
    """`Ghost._settings` (an uncut piece, run in a thread) held until `release`d, telling
    when it was reached: the seam where a build waits."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached, self.release = threading.Event(), threading.Event()
        original = Ghost._settings

        def settings(ghost: Ghost, sim: LiveSimulation) -> None:
            self.reached.set()
            assert self.release.wait(60), "the test never released the build"
            original(ghost, sim)

        monkeypatch.setattr(Ghost, "_settings", settings)


def test_a_build_whose_room_closes_meanwhile_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    room = Room("closing", crowd(), Settings())
    held = Held(monkeypatch)
    msg = SetGhost(type="set_ghost", changes=GhostSettings(Mass=2.0), id=7)

    async def scene() -> Refusal | None:
        build = asyncio.ensure_future(ghosts.set_ghost_in_pieces(room, msg, 1.0, Settings()))
        assert await asyncio.to_thread(held.reached.wait, 60)  # the build is in its thread
        room.stop()  # the room ends (removed, or the server stopping): its build is dropped
        held.release.set()
        try:
            await build
        except Refusal as exc:
            return exc
        return None

    refused = asyncio.run(scene())
    assert room.ghost is None  # nothing attached to the dead room
    assert room.sim.timeline.listeners == []  # and nothing of the build listens to it
    assert refused is not None and refused.field == "changes" and refused.id == 7
    assert "the room closed while its ghost was built" in refused.message


def test_a_build_of_an_open_room_is_attached(monkeypatch: pytest.MonkeyPatch) -> None:
    room = Room("open", crowd(), Settings())
    held = Held(monkeypatch)
    held.release.set()
    msg = SetGhost(type="set_ghost", changes=GhostSettings(Mass=2.0), id=8)
    assert asyncio.run(ghosts.set_ghost_in_pieces(room, msg, 1.0, Settings())) >= 0.0
    assert held.reached.is_set() and room.ghost is not None
    assert room.ghost.sim.t == room.sim.t
    room.stop()
    assert room.ghost is None


def test_a_rebuilds_uncut_pieces_run_in_a_thread_not_in_the_tick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = crowd(16)
    ghost = Ghost(sim, {"Mass": 2.0})
    ran: dict[str, list[int]] = {"settings": [], "keyframe": []}
    settings, made = Ghost._settings, replay._made

    def counted_settings(g: Ghost, s: LiveSimulation) -> None:
        ran["settings"].append(threading.get_ident())
        settings(g, s)

    def counted_made(*args: Any) -> Any:
        ran["keyframe"].append(threading.get_ident())
        return made(*args)

    go_back(sim, 1.0)
    sim.step(30)
    MOMENTS._kept.clear()  # the rebuild reads its keyframe's scenario again
    monkeypatch.setattr(Ghost, "_settings", counted_settings)
    monkeypatch.setattr(replay, "_made", counted_made)
    ticks = 0
    while ghost.rebuilding:  # each call is one tick's share of the rebuild
        ghost.follow()
        ticks += 1
    tick = threading.get_ident()
    assert len(ran["settings"]) == 1 and len(ran["keyframe"]) == 1, ran
    assert tick not in ran["settings"] + ran["keyframe"], "an uncut piece ran in the tick"
    assert ticks > 2 and not ghost.behind
    monkeypatch.undo()
    whole = Ghost(sim, {"Mass": 2.0})  # built at once: the same ghost
    assert ghost.sim.t == whole.sim.t
    assert np.array_equal(ghost.sim.state_array(), whole.sim.state_array())


def test_a_ghost_closed_while_its_rebuild_waits_for_its_thread_lets_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = crowd()
    ghost = Ghost(sim, {"Mass": 2.0})
    held = Held(monkeypatch)
    go_back(sim, 1.0)
    while not held.reached.is_set():
        ghost.follow()  # until its settings wait in their thread
    ghost.follow()  # the tick goes on without them
    assert ghost.rebuilding and ghost.behind
    old = weakref.ref(ghost.sim)
    ghost.close()
    assert sim.timeline.listeners == []
    held.release.set()  # its thread ends the piece it was given, then lets go of it all
    del ghost
    assert wait_for(lambda: gc.collect() >= 0 and old() is None)


def wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
