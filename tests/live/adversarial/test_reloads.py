"""Nothing outlives its room or grows with reloads (issue 40, finding 9, and the ghost).

A real `sixdof serve --token`: 100 alternating loads of a 64-body room (8 of its bodies ships
floating on the ship mesh) and a one-body room, watched all along, leave the server's memory
where the first rounds left it (the kernel's cache kept every world: +5 MB a round); and a
ghost's rebuild after the room goes back keeps its uncut pieces (the keyframe's scenario,
the ghost's settings: ~120-240 ms for this room) off the event loop.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.adversary import (
    MAX_HELD_S,
    Bystander,
    controller,
    put_scenario,
    replies,
    stats,
    token_server,
    wait_until,
)
from support.serving import FLOAT, HeldLoop, Served
from websockets.sync.client import ClientConnection

from sixdof.scenario.presets import preset_scenario

ROOM = "reloads"
#: Loads of each scenario, and the first rounds, after which the memory is taken as warm
#: (numba's kernels for both, the ship mesh read, the history and recording at their caps).
ROUNDS, WARM_ROUNDS = 50, 5
#: How much the memory may stay above the warm figure (the issue: within 5 %).
RSS_SLACK = 0.05


def fleet(bodies: int = 64, ships: int = 8) -> dict[str, Any]:
    """`bodies` bodies, the first `ships` of them the heeled ship floating (its hull is the
    ship mesh: a tree of its triangles each), the rest free."""
    ship = preset_scenario("heeled_ship").model_dump(mode="json")
    hull, buoyancy = ship["bodies"][0], ship["elements"][0]
    scenario: dict[str, Any] = {**ship, "name": "fleet", "bodies": [], "elements": []}
    for i in range(bodies):
        if i < ships:
            scenario["bodies"].append(
                {**hull, "Name": f"S{i}", "Pos": [20.0 * i, 0.0, hull["Pos"][2]]}
            )
            scenario["elements"].append({**buoyancy, "body": f"S{i}"})
        else:
            scenario["bodies"].append({"Name": f"B{i}", "Pos": [i, 0.0, -5.0], "Gravity": 0.0})
    return scenario  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    """A `--token` server whose work budget lets 100 loads through in a row (what is
    measured is memory, not the budget), whose rooms' history and recording fill up within
    the first rounds (they keep the last 1 MiB, by design), and that is left alone."""
    with token_server("work_rate=1000", "work_burst=1000", "history_bytes=1048576",
                      "recording_bytes=1048576") as live:  # fmt: skip
        yield live


def test_a_hundred_loads_leave_the_memory_where_the_first_rounds_left_it(
    server: Served,
) -> None:
    large, small = fleet(), FLOAT.model_dump(mode="json")
    assert put_scenario(server, ROOM, small) == 200
    with Bystander(server, ROOM) as watcher:  # the room ticks and records all along
        warm = 0
        for k in range(ROUNDS):
            assert put_scenario(server, ROOM, large) == 200
            assert put_scenario(server, ROOM, small) == 200
            if k + 1 == WARM_ROUNDS:
                warm = server.rss_kib()
        after = server.rss_kib()
        assert len(server.get_json(f"/api/rooms/{ROOM}/scenario")["bodies"]) == 1
        assert watcher.times  # it was watched
        # what the last loads freed may come back to the OS a little later: wait for it
        settled = wait_until(lambda: server.rss_kib() <= warm * (1 + RSS_SLACK), timeout=30)
    last = server.rss_kib()
    print(f"RSS after {WARM_ROUNDS} rounds {warm / 1024:.0f} MiB, after {ROUNDS} "
          f"{after / 1024:.0f} MiB, settled {last / 1024:.0f} MiB")  # fmt: skip
    assert settled, (
        f"RSS grew from {warm / 1024:.0f} MiB after {WARM_ROUNDS} rounds to "
        f"{last / 1024:.0f} MiB after {ROUNDS} (more than {RSS_SLACK:.0%})"
    )


def ghost_of(ws: ClientConnection) -> dict[str, Any] | None:
    """The ghost part of the next state frame."""
    while True:
        msg = json.loads(ws.recv(timeout=30))
        if msg["type"] == "state":
            return msg.get("ghost")  # type: ignore[no-any-return]


def ask(ws: ClientConnection, ids: Iterator[int], msg: dict[str, Any]) -> dict[str, Any]:
    mid = next(ids)
    ws.send(json.dumps({**msg, "id": mid}))
    return replies(ws, {mid}, timeout=120)[mid]


#: The longest tick of the fleet's room while its ghost is rebuilt, CPU s: the room steps 64
#: hulls and their ghost's in it (12.3 ms measured alone on a quiet machine, 12.1 ms in a
#: fresh-clone run); the uncut pieces this test keeps out of it took ~110 ms of a tick.
GHOST_TICK_S = 0.03


def test_a_ghosts_rebuild_keeps_its_uncut_pieces_off_the_loop_and_the_rooms_tick(
    server: Served,
) -> None:
    """After the room goes back its ghost is built again, a few ms of each tick: its uncut
    pieces (the keyframe's world when it is not kept, the ghost's settings: ~110 ms of CPU
    here, the ship hulls' trees) ran inside the tick that follows the ghost, which held the
    room's frames that long (and, before the ticks left the event loop, the loop). They run
    in a thread of their own now: neither the loop nor the room's tick waits for them."""
    assert put_scenario(server, "ghost", fleet()) == 200
    ids = itertools.count(1)
    with controller(server, "ghost") as ws:
        assert ask(ws, ids, {"type": "pause"})["type"] == "ack"
        assert ask(ws, ids, {"type": "step", "n": 300})["type"] == "ack"
        assert ask(ws, ids, {"type": "set_ghost", "changes": {"Mass": 5000.0}})["type"] == "ack"
        assert wait_until(lambda: (g := ghost_of(ws)) is not None and not g["behind"], 120)
        with HeldLoop(server) as held:
            assert ask(ws, ids, {"type": "go_back", "t": 0.2})["type"] == "ack"
            first = ghost_of(ws)
            assert first is not None and first["behind"]  # being built again
            assert wait_until(lambda: (g := ghost_of(ws)) is not None and not g["behind"], 120)
            ghost = ghost_of(ws)
        room = stats(server, "ghost")
    assert ghost is not None and len(ghost["bodies"]) == 64  # the room's world, rebuilt
    assert room["t"] <= 0.2 + 1e-9 and abs(ghost["t"] - room["t"]) < 1e-9
    tick = room["tick_cpu_max"]  # the longest of the room's last 600 ticks (10 s)
    print(f"ghost rebuilt: loop held {held.longest * 1e3:.1f} ms CPU at most, the room's "
          f"longest tick {tick * 1e3:.1f} ms CPU")  # fmt: skip
    assert held.longest <= MAX_HELD_S, f"the loop was held {held.longest * 1e3:.1f} ms"
    assert tick <= GHOST_TICK_S, f"a tick of the room took {tick * 1e3:.1f} ms of CPU"
