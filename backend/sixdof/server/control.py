"""What a control message does to a room: one handler per message type, and `handle`, the
one path from a client's text to its replies that `sixdof serve`'s websocket endpoint and a
cluster worker both take.

A handler gets the room and the validated message and either changes the room or raises
(FieldError or Refusal) having changed nothing; `apply` turns what it raises into the
client's refusal, naming the field where the client put it and the message's id.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..fields import FieldError
from . import presets
from .budget import CURRENT, over_budget, run_pieces
from .errors import Refusal, read_client_message, validate_client_message
from .ghosts import set_ghost_in_pieces
from .pools import metering, off_loop
from .protocol import (
    Ack,
    BodyState,
    GoBack,
    LoadScenario,
    Pause,
    Reset,
    Resume,
    SetElements,
    SetGhost,
    SetInput,
    SetParams,
    SetTimeScale,
    SetWater,
    Step,
    UndoGoBack,
)
from .settings import Settings

if TYPE_CHECKING:
    from ..scenario import Scenario
    from ..simulation.ghost import Ghost
    from ..simulation.live import LiveSimulation

log = logging.getLogger("sixdof.server")

Reply = tuple[str, str]  # (text, kind) for Client.send_reply


class LiveRoom(Protocol):
    """A room as a message handler sees it: here (`rooms.Room`) or on a worker
    (`cluster.gateway.RemoteRoom`)."""

    name: str

    def hello(self, can_control: bool, binary: bool = False) -> str: ...

    async def sync_hello(self) -> None: ...

    async def carry_out(
        self, msg: Any, left: float, settings: Settings
    ) -> tuple[list[str], float]: ...


class Room(Protocol):
    """What the handlers change: a `rooms.Room`."""

    sim: LiveSimulation
    ghost: Ghost | None
    changes: int
    changing: int

    def end_ghost(self) -> None: ...

    def load(self, scenario: Scenario | None) -> None: ...

    def ask(self, text: str, preset: str | None = None) -> None: ...

    def step_cost(self) -> float: ...

    def note_step_cost(self, seconds: float) -> None: ...


# ---------------------------------------------------------------------------- the handlers


def _set_input(room: Room, msg: SetInput) -> None:
    spring = msg.spring.model_dump() if msg.spring else None
    room.sim.set_input(msg.body, msg.Force, msg.Moment, frame=msg.frame, point=msg.point,
                       channel=msg.channel, spring=spring)  # fmt: skip


def _set_params(room: Room, msg: SetParams) -> None:
    room.sim.set_params(msg.body, **msg.changes())


def _set_elements(room: Room, msg: SetElements) -> None:
    room.sim.set_elements([e.model_dump() for e in msg.elements])


def _set_water(room: Room, msg: SetWater) -> None:
    room.sim.set_water(msg.water)


def _pause(room: Room, msg: Pause) -> None:
    room.sim.pause()


def _resume(room: Room, msg: Resume) -> None:
    room.sim.resume()


def _step(room: Room, msg: Step) -> None:  # carry_out runs a client's step in slices
    room.sim.step(msg.n)


def _set_time_scale(room: Room, msg: SetTimeScale) -> None:
    room.sim.set_time_scale(msg.time_scale)


def _undo_go_back(room: Room, msg: UndoGoBack) -> None:
    room.sim.undo_go_back()


def _reset(room: Room, msg: Reset) -> None:
    room.sim.reset(msg.body, msg.state.model_dump(exclude_none=True) if msg.state else None)


def _load_scenario(room: Room, msg: LoadScenario) -> None:
    room.load(presets.scenario(msg.preset) if msg.preset else msg.scenario)
    # a preset asks its prediction question (answers.py); another scenario asks none
    room.ask(presets.question(msg.preset) if msg.preset else "", msg.preset)


def _go_back(room: Room, msg: GoBack) -> None:
    from ..simulation.replay import go_back  # loaded with the physics (Rooms.physics_ready)

    go_back(room.sim, msg.t)


def _set_ghost(room: Room, msg: SetGhost) -> None:
    room.end_ghost()
    if msg.changes is not None:
        from ..simulation.ghost import Ghost

        room.ghost = Ghost(room.sim, msg.changes.changes())


Handler = Callable[[Room, Any], None]

HANDLERS: dict[type, Handler] = {
    SetInput: _set_input,
    SetParams: _set_params,
    SetElements: _set_elements,
    SetWater: _set_water,
    Pause: _pause,
    Resume: _resume,
    Step: _step,
    Reset: _reset,
    SetTimeScale: _set_time_scale,
    LoadScenario: _load_scenario,
    GoBack: _go_back,
    UndoGoBack: _undo_go_back,
    SetGhost: _set_ghost,
}


def apply(room: Room, msg: Any) -> None:
    """Carry out one validated client message; raise Refusal and change nothing if refused.

    The caller acks, then calls `sync_hello` so the sender sees its ack before the hello."""
    handler = HANDLERS.get(type(msg))
    if handler is None:
        raise Refusal("unknown_type", f"type: {type(msg).__name__} is not handled", None, msg.id)
    try:
        handler(room, msg)
    except FieldError as exc:
        field = exc.field
        if isinstance(msg, Reset) and field in BodyState.model_fields:
            field = f"state.{field}"  # where the client put it
        raise Refusal(exc.code, exc.message, field, msg.id) from None
    except Refusal as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None


async def carry_out(
    room: Room, msg: Any, left: float, settings: Settings
) -> tuple[list[str], float]:
    """`apply`, for a client whose address has `left` seconds of budget, in the requests'
    thread pool (pools.off_loop): the event loop only waits. A message whose cost is
    estimated before it runs (a `step`, a new scenario, elements, water: cost.py) is refused
    up front when the estimate is over `left`, and the estimate is charged before it runs
    (`_reserve`), so that messages arriving together cannot all pass one check; a `step` runs
    in slices of about `settings.slice_seconds`. The replies (an ack) and the computing
    seconds still to charge (what the work took beyond its estimate)."""
    rate, burst = settings.work_rate, settings.work_burst
    if isinstance(msg, GoBack | SetGhost):
        room.changing += 1  # the room's frames made meanwhile are not sent after the ack
        try:
            if isinstance(msg, GoBack):
                return [_ack(msg)], await go_back_in_pieces(room, msg)
            # built in pieces, charged as they go (ghosts.py)
            return [_ack(msg)], await set_ghost_in_pieces(room, msg, left, settings)
        finally:
            room.changing -= 1
            room.changes += 1
    if isinstance(msg, Step):
        estimate = room.step_cost() * msg.n
    else:  # a new world's meshes are read to count its triangles: not on the loop either
        estimate = await off_loop(change_cost, room, msg)
    if estimate > left:
        current = CURRENT.get()
        budget = current[1] if current is not None else None
        raise over_budget(msg.type, estimate, left, rate, burst, msg.id, budget)
    reserved = _reserve(estimate)
    room.changing += 1  # the room's frames made meanwhile are not sent after the ack
    try:
        if isinstance(msg, Step):
            took = await step_in_slices(room, msg.n, settings.slice_seconds)
        else:
            took = await off_loop(_timed_apply, room, msg)
    finally:
        room.changing -= 1
        room.changes += 1
    return [_ack(msg)], max(0.0, took - reserved) if reserved else max(estimate, took)


def _ack(msg: Any) -> str:
    return Ack(id=msg.id, of=msg.type).model_dump_json()


def _reserve(estimate: float) -> float:
    """Charge `estimate` now to the address whose message this is (CURRENT); what was charged
    (0 on a cluster worker, whose gateway charges what it reports)."""
    current = CURRENT.get()
    if current is None or estimate <= 0.0:
        return 0.0
    current[1].charge(estimate)
    return estimate


def _timed_apply(room: Room, msg: Any) -> float:
    """`apply` (in a worker thread); the thread's CPU seconds it took."""
    started = time.thread_time()
    apply(room, msg)
    return time.thread_time() - started


def change_cost(room: Room, msg: Any) -> float:
    """Seconds of computing a message that changes the world is estimated to cost before it
    runs (simulation/cost.py): a scenario, elements or water (hull tables built); 0 for the
    rest. Refusal when the world it makes would cost more than a room may, a step."""
    from ..simulation import elements_gate
    from ..simulation.cost import change_seconds  # loaded with the physics

    method: str | None = room.sim.integrator
    try:
        if isinstance(msg, LoadScenario):
            scenario = presets.scenario(msg.preset) if msg.preset else msg.scenario
            method = None  # a new scenario brings its own
        elif isinstance(msg, SetElements):
            scenario = room.sim.scenario.model_copy(update={"elements": list(msg.elements)})
        elif isinstance(msg, SetWater):
            scenario = room.sim.scenario.model_copy(update={"water": msg.water})
        else:
            return 0.0
        # a cold start still compiling the elements' kernels: refused before it is charged
        elements_gate.check(scenario.elements if scenario is not None else ())
        return change_seconds(msg.type, scenario, method)
    except FieldError as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None
    except Refusal as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None


async def go_back_in_pieces(room: Room, msg: GoBack) -> float:
    """`go_back`, its re-simulation in pieces of ~2 ms with the event loop free between them
    (budget.run_pieces), in its address's lane of look backs (one at a time, as
    GET /api/rooms/R/recording/frame), each piece charged to that address as it ends. The
    computing seconds still to charge: 0 here, all of it on a cluster worker (no address:
    its gateway charges what the worker reports)."""
    from ..simulation.cost import lookback_seconds
    from ..simulation.replay import going_back  # loaded with the physics (Rooms.physics_ready)

    current = CURRENT.get()
    try:
        if current is None:
            _, spent = await run_pieces(going_back(room.sim, msg.t))
            return spent
        budgets, budget = current
        estimate = await off_loop(lookback_seconds, room.sim, msg.t)
        async with budgets.lookback(budget, "go_back", estimate) as reserved:
            await run_pieces(going_back(room.sim, msg.t), budget, reserved)
        return 0.0
    except FieldError as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None
    except Refusal as exc:
        raise Refusal(exc.code, exc.message, exc.field, msg.id) from None


async def step_in_slices(room: Room, n: int, slice_seconds: float) -> float:
    """`n` steps, in slices of whole history rows lasting about `slice_seconds` each, each
    in the requests' thread pool (the room's ticks take turns with them for its lock). The
    history gets the same rows as one `sim.step(n)`. The CPU seconds they took."""
    sim = room.sim
    per_row = sim.steps_per_row()
    left, k, spent = n, per_row, 0.0
    while left > 0:
        take = min(left, k)
        done, cpu = await off_loop(_timed_step, sim, take)
        spent += cpu
        room.note_step_cost(cpu / max(done, 1))
        left -= take
        if done < take:  # diverged: paused at the last good state
            break
        if left:
            fits = int(slice_seconds / max(room.step_cost(), 1e-9))
            k = max(per_row, fits // per_row * per_row)
    return spent


def _timed_step(sim: LiveSimulation, k: int) -> tuple[int, float]:
    started = time.thread_time()
    done = sim.step(k)
    return done, time.thread_time() - started


# ---------------------------------------------------------------------------- the one path

#: Messages longer than this (characters) are validated in the requests' pool: a scenario of
#: 64 bodies takes pydantic several ms; a push takes microseconds, not worth a thread's hop.
VALIDATE_ON_LOOP = 4096

#: What the websocket side checks between reading a message and validating it (its type,
#: its object and id): raise Refusal to refuse it, return replies to answer it there (auth),
#: or None to let it through. A worker has none: its gateway checked.
#: A gate may also answer later (an awaitable): a gateway's room asks its worker.
Gate = Callable[
    [str, dict[str, Any], "str | int | None"], "list[Reply] | Awaitable[list[Reply]] | None"
]


async def handle(
    text: str | None, room: LiveRoom, left: float, settings: Settings, gate: Gate | None = None
) -> tuple[list[Reply], float]:
    """Read, check and carry out one client message with `left` seconds of budget; the
    replies (ack or error, or what `gate` answered) and the CPU seconds to charge for it: its
    reading and validation, and what its work took beyond what was charged up front (a
    refused message costs what it took to refuse it). Never raises: a bug costs one
    `internal` reply, not the connection or the room."""
    mid = None
    with metering() as meter:
        try:
            if text is None:
                raise Refusal("invalid", "message: send JSON text frames, not binary ones")
            with meter.here():
                obj, kind, mid = read_client_message(text)  # strict JSON, cheap
            if left <= 0.0:
                raise over_budget(kind, 0.0, left, settings.work_rate, settings.work_burst, mid)
            if gate is not None:
                with meter.here():
                    answered = gate(kind, obj, mid)
                if answered is not None:
                    return (answered if isinstance(answered, list) else await answered), meter.cpu
            if len(text) > VALIDATE_ON_LOOP:  # the costly half: pydantic, off the loop if large
                msg = await off_loop(validate_client_message, obj, kind, mid)
            else:
                with meter.here():
                    msg = validate_client_message(obj, kind, mid)
            read = meter.cpu
            texts, spent = await room.carry_out(msg, left, settings)
            return [(text, "reply") for text in texts], read + spent
        except Refusal as refusal:
            return [(refusal.text(), "reply")], meter.cpu
        except Exception as exc:
            log.exception("room %s: error handling a message", room.name)
            error = Refusal("internal", f"server error: {type(exc).__name__}: {exc}", None, mid)
            return [(error.text(), "reply")], meter.cpu
