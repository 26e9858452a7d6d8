"""Going back in a room made by a load (a PUT makes the room with the default world, then
loads its scenario: two keyframes at step 0) keeps the loaded world's recording. The segment
to truncate to was found again by its step, which matched the default world's first: the
recording then described the default world (one body) while the room ran the loaded one, and
a ghost rebuilt after the go_back re-ran that one body."""

from __future__ import annotations

import json

from sixdof.simulation.ghost import Ghost
from sixdof.simulation.live import LiveSimulation
from sixdof.simulation.replay import go_back

CROWD = {"name": "crowd", "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0]} for i in range(8)]}


def test_going_back_after_a_load_at_step_0_keeps_the_loaded_worlds_recording() -> None:
    sim = LiveSimulation({"name": "one", "bodies": [{"Name": "A"}]}, running=False,
                         recording_bytes=8 << 20)  # fmt: skip
    sim.load(CROWD)
    sim.step(300)
    ghost = Ghost(sim, {"Mass": 2.0})
    go_back(sim, 0.2)
    assert sim.recording is not None
    last = json.loads(sim.recording.segments[-1].keyframe)
    assert [b["Name"] for b in last["scenario"]["bodies"]] == sim.names
    while ghost.rebuilding or ghost.stale:
        ghost.follow()
    assert ghost.sim.names == sim.names and ghost.sim.t == sim.t
    ghost.close()
