"""`set_ghost` without stalling the other rooms: the ghost is built in pieces.

Building a ghost re-runs the room's recorded past from a keyframe (up to 1,000,000
body-steps: ~150–500 ms of a core for 64 bodies). That used to run on the event loop in one
call: a bystander room fell to 28 fps while one client sent ghosts. Now it runs as
`Ghost.building` pieces of ~2 ms through `budget.run_pieces`, as a look back does (reading
the keyframe's scenario and applying the ghost's settings, which cannot be cut, in a
thread): in the asking address's lane of look backs, each piece charged to its budget as it
ends, refused up front (`rate_limited`, before any work) when its estimate is over what the
address has left. The room goes on meanwhile; the changes it makes are caught up with. A
room that ends meanwhile (`room_closed`) stops its builds at their next piece, which let go
of what they hold, and no ghost is attached to it.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..fields import FieldError
from .budget import CURRENT, over_budget, run_pieces
from .errors import Refusal
from .protocol import SetGhost
from .settings import Settings

if TYPE_CHECKING:
    from ..simulation.ghost import Ghost
    from ..simulation.live import LiveSimulation
    from ..simulation.pieces import Pieces

T = TypeVar("T")


class Room(Protocol):
    """What building a ghost needs of a room (control.Room has it; not imported from there,
    which imports this module)."""

    sim: LiveSimulation
    ghost: Ghost | None

    def end_ghost(self) -> None: ...

    def step_cost(self) -> float: ...


#: The latest set_ghost of each room: a build that finishes after a later set_ghost (or
#: the room's end) was asked is dropped, not installed.
_LATEST: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
#: Rooms that ended (`room_closed`).
_CLOSED: weakref.WeakSet[Any] = weakref.WeakSet()


def room_closed(room: Room) -> None:
    """`room` ended (`rooms.Room.stop`: removed, or the server stopping): the ghosts being
    built for it stop before their next piece, and none is attached to it."""
    _CLOSED.add(room)


async def set_ghost_in_pieces(room: Room, msg: SetGhost, left: float, settings: Settings) -> float:
    """Carry out `set_ghost` (control.carry_out): build the new ghost in pieces and put it in
    the place of the room's ghost, or end the ghost (`changes` null). Refused (changing
    nothing) over budget or with changes a ghost cannot make. The computing seconds still
    to charge: 0 here (each piece was charged to the address), all of it on a cluster
    worker (its gateway charges it)."""
    if msg.changes is None:
        _LATEST[room] = _LATEST.get(room, 0) + 1  # a build under way is dropped too
        room.end_ghost()
        return 0.0
    from ..simulation.ghost import Ghost  # loaded with the physics (Rooms.physics_ready)

    try:
        changes = msg.changes.changes()
        # the room's step cost is a guess until a `step` measured it: a full budget may
        # always try, a spent one is refused before any work
        estimate = Ghost.body_steps(room.sim) * room.step_cost() / max(1, len(room.sim.names))
        if min(estimate, settings.work_burst) > left:
            raise over_budget("set_ghost", estimate, left, settings.work_rate,
                              settings.work_burst, msg.id)  # fmt: skip
        current = CURRENT.get()
        if current is None:  # a cluster worker: no address here, its gateway charges it
            generation = _started(room)
            ghost, spent = await run_pieces(_while_open(room, Ghost.building(room.sim, changes)))
        else:
            budgets, budget = current
            reserve = min(estimate, settings.work_burst)
            async with budgets.lookback(budget, "set_ghost", reserve) as reserved:
                generation = _started(room)
                building = _while_open(room, Ghost.building(room.sim, changes))
                ghost, _ = await run_pieces(building, budget, reserved)
            spent = 0.0
    except FieldError as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None
    except Refusal as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None
    if room in _CLOSED or _LATEST.get(room) != generation:  # ended, or a later set_ghost came
        ghost.close()
        return spent
    room.end_ghost()
    room.ghost = ghost
    return spent


def _started(room: Room) -> int:
    """A new build for `room`: its generation."""
    generation = _LATEST[room] = _LATEST.get(room, 0) + 1
    return generation


def _while_open(room: Room, pieces: Pieces[T]) -> Pieces[T]:
    """`pieces`, stopped before any piece once `room` has ended (FieldError naming
    `changes`); closed however it ends, so that its listener on the room's timeline goes."""
    value: Any = None
    try:
        while True:
            if room in _CLOSED:
                raise FieldError(
                    "changes", "invalid", "set_ghost: the room closed while its ghost was built"
                )
            try:
                asked = pieces.send(value)
            except StopIteration as done:
                result: T = done.value
                return result
            value = yield asked
    finally:
        pieces.close()
