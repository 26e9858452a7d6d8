"""A room that closes while a ghost is built for it (set_ghost, server/ghosts.py) stops the
build at its next piece: nothing is attached to the closed room, nor to a new room of its
name, and the build lets go of the room's simulation (its listener is removed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from test_ghost_pieces import room

from sixdof.server.budget import CURRENT, Budgets, WorkBudget
from sixdof.server.errors import Refusal
from sixdof.server.ghosts import set_ghost_in_pieces
from sixdof.server.protocol import SetGhost
from sixdof.server.registry import Rooms
from sixdof.server.settings import Settings


class Counting(WorkBudget):
    """A budget that counts the pieces charged to it."""

    def __init__(self) -> None:
        super().__init__(rate=1.0, burst=1000.0)
        self.pieces = 0

    def charge(self, seconds: float) -> None:
        self.pieces += 1
        super().charge(seconds)


async def until(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.001)


@pytest.mark.parametrize("how", ["expired", "server stops"])
def test_a_room_closed_while_its_ghost_is_built_stops_the_build(how: str) -> None:
    async def scenario() -> None:
        settings = Settings(room_ttl=600)
        rooms = Rooms(settings, make_sim=lambda: room(64))
        lab = rooms.get_or_create("lab")
        budget = Counting()
        CURRENT.set((Budgets(1.0, 1000.0), budget))
        msg = SetGhost.model_validate({"type": "set_ghost", "changes": {"Mass": 2.0}, "id": 7})
        build = asyncio.create_task(set_ghost_in_pieces(lab, msg, 1000.0, settings))
        await until(lambda: budget.pieces >= 3)  # under way
        assert not build.done()
        if how == "expired":  # nobody in it: removed (as after room_ttl), a new one made
            rooms.expire(lab)
            again = rooms.get_or_create("lab")
        else:
            await rooms.close()
        at_close = budget.pieces
        with pytest.raises(Refusal, match="closed"):
            await asyncio.wait_for(build, 120)
        # the piece under way (in a thread, the kernel's first call) at most, then no more
        assert budget.pieces <= at_close + 1
        assert lab.closed and lab.ghost is None
        assert lab.sim.timeline.listeners == []  # the build's queue let go of it
        if how == "expired":
            assert again.ghost is None and not again.closed

    asyncio.run(scenario())
