"""Rooms: one live simulation shared by every websocket that joins it.

One asyncio task ticks every room at the frame rate: the `Engine` advances all rooms'
simulations together (one compiled call for all their bodies, simulation/engine.py), then each
room encodes its state frame once and offers it to every client's latest-wins slot
(clients.py), so the clock never waits for a socket. Everything a room does is caught and
logged: a fault pauses that room's simulation with a reason and tells its clients; other
rooms and the server carry on.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from .. import __version__
from ..fields import FieldError, check_room
from ..scenario import Scenario
from ..simulation import is_warm, warm_up
from . import presets
from .budget import over_budget
from .clients import Viewer, frame_order
from .errors import Refusal
from .protocol import (
    Ack,
    BodyState,
    ErrorCode,
    GoBack,
    Hello,
    Limits,
    LoadScenario,
    Pause,
    Reset,
    Resume,
    SetGhost,
    SetInput,
    SetParams,
    SetTimeScale,
    Status,
    Step,
    UndoGoBack,
    limits,
)
from .settings import Settings
from .snapshots import Snapshot
from .wire import wire_frame

if TYPE_CHECKING:
    from ..simulation.engine import Engine
    from ..simulation.ghost import Ghost
    from ..simulation.live import LiveSimulation

# The simulation's modules (numpy, the engine) are imported where a room uses them: a server
# without rooms has not loaded them (`Rooms.physics_ready` loads them with the first).

log = logging.getLogger("sixdof.server")


def check_room_name(name: str) -> str:
    """`name` if it is a valid room name (fields.check_room), else raise Refusal."""
    try:
        return check_room(name)
    except FieldError as exc:
        raise Refusal.of(exc) from None


def _dumps_state(seq: int, frame: dict[str, Any]) -> str:
    """The encoded state message (the shape of protocol.State, built by hand: it is the hot
    path, ~2.4 µs per one-body frame with orjson); ValueError if a number is not finite."""
    bodies = orjson.dumps(frame["bodies"])
    # orjson writes NaN and ±inf as null, and a frame's bodies hold no None: a null means a
    # non-finite number (or a body named "null", which the check refuses too).
    if b"null" in bodies or not math.isfinite(frame["t"]):
        raise ValueError("a state frame holds a non-finite number")
    status = orjson.dumps(frame["status"])
    ghost = ""
    if frame.get("ghost") is not None:
        ghost_json = orjson.dumps(frame["ghost"])
        if b"null" in ghost_json:  # its changes hold no null either (exclude_none)
            raise ValueError("a state frame holds a non-finite number")
        ghost = f',"ghost":{ghost_json.decode()}'
    return (
        f'{{"type":"state","seq":{seq},"t":{orjson.dumps(frame["t"]).decode()},'
        f'"status":{status.decode()},"bodies":{bodies.decode()}{ghost}}}'
    )


class Room:
    """A named simulation and its clients; `Rooms` ticks it with all the others."""

    def __init__(self, name: str, sim: LiveSimulation, settings: Settings) -> None:
        self.name = name
        self.sim = sim
        self.settings = settings
        self.clients: set[Viewer] = set()
        self.seq = 0
        self.created = time.monotonic()
        self.fault: str | None = None  # last unexpected exception, for /stats
        self._announced: str | None = None  # the pause reason the clients were told
        self.tick_errors: deque[float] = deque(maxlen=600)  # tick start - deadline, s
        self.tick_seconds: deque[float] = deque(maxlen=600)  # time spent in one tick, s
        # CPU the tick used: unlike its wall time, not inflated when the OS runs something else
        self.tick_cpu_seconds: deque[float] = deque(maxlen=600)
        self.ticked_at: float | None = None  # time.monotonic() at the start of the last tick
        self._version = sim.version  # the version the clients' hello describes
        self.expiry: asyncio.TimerHandle | None = None
        self.made_by_watcher = False  # counted against max_watcher_rooms
        self.ghost: Ghost | None = None  # the room's inputs through other settings (set_ghost)
        self._step_cost: float | None = None  # s per step of `step` messages, measured

    # ------------------------------------------------------------------ cost
    def step_cost(self) -> float:
        """Seconds one step of a `step` message costs here (measured; a guess before)."""
        if self._step_cost is not None:
            return self._step_cost
        return 2e-5 + 1e-6 * len(self.sim.names)

    def note_step_cost(self, seconds: float) -> None:
        old = self._step_cost
        self._step_cost = seconds if old is None else 0.7 * old + 0.3 * seconds

    # ------------------------------------------------------------------ lifecycle
    def stop(self) -> None:
        if self.expiry is not None:
            self.expiry.cancel()
        self.expiry = None
        self.end_ghost()

    def publish(self, error: Exception | None = None) -> None:
        """After an advance (that raised `error`, if not None): offer one frame to every client."""
        if isinstance(error, FieldError):
            self._pause_for(error.code, error.message)
        elif error is not None:
            self._fault("advancing the simulation", error)
        if not self.clients:
            return
        self._announce_pause()
        self._follow_ghost()
        self.seq += 1
        encoded: dict[bool, tuple[str | bytes, bytes | None]] = {}  # by binary: once per tick
        now = time.monotonic()
        try:
            self.sync_hello()
            for client in frame_order(self.clients, now):
                kind = client.binary
                if kind not in encoded:
                    payload = self._encode(kind)
                    wired = any(c.wire is not None and c.binary == kind for c in self.clients)
                    encoded[kind] = (payload, wire_frame(payload) if wired else None)
                client.offer(*encoded[kind], now)
        except ValueError:  # a non-finite number refused by the encoder
            self._pause_for("diverged", "diverged: the state is no longer finite")
        except Exception as exc:
            self._fault("encoding a frame", exc)

    def _encode(self, binary: bool) -> str | bytes:
        """This tick's state message, as JSON text or as the binary layout (binary.py, which
        carries no ghost)."""
        if binary:
            from .binary import encode_state

            return encode_state(self.seq, *self.sim.frame_arrays())
        frame = self.sim.frame()
        if self.ghost is not None:
            frame["ghost"] = self.ghost.frame(frame["bodies"])  # type: ignore[arg-type]  # list of dicts
        return _dumps_state(self.seq, frame)

    def _follow_ghost(self) -> None:
        ghost = self.ghost
        if ghost is None:
            return
        try:
            ghost.follow()
        except Exception as exc:  # the ghost must never take the room down
            log.warning("room %s: ghost ended: %r", self.name, exc)
            self.end_ghost()
            self.broadcast(Refusal("invalid", f"ghost ended: {exc}", "changes").text())

    def end_ghost(self) -> None:
        if self.ghost is not None:
            self.ghost.close()
            self.ghost = None

    def _pause_for(self, code: ErrorCode, message: str) -> None:
        """Pause the simulation with `message` as its reason and tell every client once."""
        if not self.sim.running and self.sim.paused_reason == message:
            return
        try:
            self.sim.pause(reason=message)
        except Exception:
            log.exception("room %s: could not pause", self.name)
        self._announced = message
        self.broadcast(Refusal(code, message).text())

    def _announce_pause(self) -> None:
        """Tell the clients once when the simulation paused itself (it diverged)."""
        reason = self.sim.paused_reason
        if reason is not None and reason != self._announced:
            self._announced = reason
            code: ErrorCode = "diverged" if reason.startswith("diverged") else "internal"
            self.broadcast(Refusal(code, reason).text())
        elif reason is None:
            self._announced = None

    def _fault(self, doing: str, exc: BaseException) -> None:
        log.exception("room %s: error while %s", self.name, doing, exc_info=exc)
        self.fault = f"{type(exc).__name__}: {exc}"
        self._pause_for("internal", f"paused after a server error while {doing}: {self.fault}")

    # ------------------------------------------------------------------ clients
    def join(self, client: Viewer) -> None:
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None
        self.clients.add(client)
        client.send_reply(self.hello(client.can_control, client.binary), "hello")

    def leave(self, client: Viewer) -> None:
        self.clients.discard(client)

    def broadcast(self, text: str) -> None:
        for client in tuple(self.clients):
            client.send_reply(text)

    def hello(self, can_control: bool, binary: bool = False) -> str:
        """The encoded hello for this room as it is now."""
        sim = self.sim
        scenario = sim.scenario
        preset, modified = presets.origin(scenario)
        return Hello(
            version=__version__,
            room=self.name,
            can_control=can_control,
            scenario=scenario,
            preset=preset,
            preset_modified=modified,
            integrator=sim.integrator,
            step=sim.step_size,
            presets=presets.infos(),
            limits=Limits.model_validate(limits()),
            status=Status.model_validate(sim.status()),
            frames="binary" if binary else "json",
        ).model_dump_json()

    def sync_hello(self) -> None:
        """Re-send hello to every client if the scenario, a parameter or the integrator changed."""
        if self.sim.version == self._version:
            return
        self._version = self.sim.version
        # at most four variants, each encoded once, as text and as a whole websocket frame
        encoded: dict[tuple[bool, bool], tuple[str, bytes]] = {}
        for client in tuple(self.clients):
            key = (client.can_control, client.binary)
            if key not in encoded:
                text = self.hello(*key)
                encoded[key] = (text, wire_frame(text))
            client.send_hello(*encoded[key])

    # ------------------------------------------------------------------ control
    async def carry_out(
        self, msg: Any, left: float, settings: Settings
    ) -> tuple[list[str], float | None]:
        """Carry out one validated control message from a client whose address has `left`
        seconds of budget; the replies (an ack) and None (the caller measures the time).
        Raise Refusal and change nothing if refused. A `step` runs in slices of about
        `settings.slice_seconds`, the event loop free between them."""
        if isinstance(msg, Step):
            estimate = self.step_cost() * msg.n
            if estimate > left:
                rate, burst = settings.work_rate, settings.work_burst
                raise over_budget("step", estimate, left, rate, burst, msg.id)
            await self.step_in_slices(msg.n, settings.slice_seconds)
        else:
            self.apply(msg)
        return [Ack(id=msg.id, of=msg.type).model_dump_json()], None

    async def step_in_slices(self, n: int, slice_seconds: float) -> None:
        """`n` steps, in slices of whole history rows lasting about `slice_seconds` each,
        yielding to the event loop between slices. The history gets the same rows as one
        `sim.step(n)`."""
        per_row = self.sim.steps_per_row()
        left, k = n, per_row
        while left > 0:
            take = min(left, k)
            started = time.perf_counter()
            done = self.sim.step(take)
            elapsed = time.perf_counter() - started
            self.note_step_cost(elapsed / max(done, 1))
            left -= take
            if done < take:  # diverged: paused at the last good state
                return
            if left:
                fits = int(slice_seconds / max(self.step_cost(), 1e-9))
                k = max(per_row, fits // per_row * per_row)
                await asyncio.sleep(0)

    def apply(self, msg: Any) -> None:
        """Carry out one validated client message; raise Refusal and change nothing if refused.

        The caller acks, then calls `sync_hello` so the sender sees its ack before the hello."""
        sim = self.sim
        try:
            if isinstance(msg, SetInput):
                sim.set_input(
                    msg.body,
                    msg.Force,
                    msg.Moment,
                    frame=msg.frame,
                    point=msg.point,
                    channel=msg.channel,
                    spring=msg.spring.model_dump() if msg.spring else None,
                )
            elif isinstance(msg, SetParams):
                sim.set_params(msg.body, **msg.changes())
            elif isinstance(msg, Pause):
                sim.pause()
            elif isinstance(msg, Resume):
                sim.resume()
            elif isinstance(msg, Step):
                sim.step(msg.n)
            elif isinstance(msg, Reset):
                state = msg.state.model_dump(exclude_none=True) if msg.state else None
                sim.reset(msg.body, state)
            elif isinstance(msg, SetTimeScale):
                sim.set_time_scale(msg.time_scale)
            elif isinstance(msg, LoadScenario):
                self.load(presets.scenario(msg.preset) if msg.preset else msg.scenario)
            elif isinstance(msg, GoBack):
                from ..simulation.replay import go_back

                go_back(sim, msg.t)
            elif isinstance(msg, UndoGoBack):
                sim.undo_go_back()
            elif isinstance(msg, SetGhost):
                self.end_ghost()
                if msg.changes is not None:
                    from ..simulation.ghost import Ghost

                    self.ghost = Ghost(sim, msg.changes.changes())
            else:
                raise Refusal("unknown_type", f"type: {type(msg).__name__} is not handled")
        except FieldError as exc:
            field = exc.field
            if isinstance(msg, Reset) and field in BodyState.model_fields:
                field = f"state.{field}"  # where the client put it
            raise Refusal(exc.code, exc.message, field, msg.id) from None
        except Refusal as exc:
            raise Refusal(exc.code, exc.message, exc.field, msg.id) from None

    def load(self, scenario: Scenario | None) -> None:
        """Replace the scenario (the caller then calls `sync_hello`)."""
        assert scenario is not None  # LoadScenario guarantees one of preset/scenario
        self.sim.load(scenario)

    def stats(self) -> dict[str, Any]:
        errs = sorted(self.tick_errors)
        busy = sorted(self.tick_seconds)
        cpu = sorted(self.tick_cpu_seconds)

        def pct(xs: list[float], q: float) -> float | None:
            return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None

        return {
            "room": self.name,
            "clients": len(self.clients),
            "seq": self.seq,
            "t": self.sim.t,
            "ticked_at": self.ticked_at,  # server's monotonic clock: Δt / Δticked_at = rtf
            "rtf": self.sim.rtf,  # simulated / wall time over the last second; 0 while paused
            "overruns": self.sim.overruns,
            "frame_rate": self.settings.frame_rate,
            "tick_error_p50": pct(errs, 0.5),
            "tick_error_p99": pct(errs, 0.99),
            "tick_busy_p50": pct(busy, 0.5),
            "tick_busy_p99": pct(busy, 0.99),  # the whole tick: every room's physics and frames
            "tick_cpu_p50": pct(cpu, 0.5),
            "tick_cpu_p99": pct(cpu, 0.99),
            "frames_dropped": sum(c.frames_dropped for c in self.clients),
            "max_frames_dropped": max((c.frames_dropped for c in self.clients), default=0),
            "fault": self.fault,
        }


class Rooms:
    """The registry of live rooms: created on first join, removed `room_ttl` s after the last
    client leaves. One task ticks them all (`run`) while there is at least one room."""

    def __init__(self, settings: Settings, make_sim: Callable[[], LiveSimulation]) -> None:
        self.settings = settings
        self.make_sim = make_sim
        self._rooms: dict[str, Room] = {}
        self._engine: Engine | None = None
        self._task: asyncio.Task[None] | None = None

    async def physics_ready(self) -> None:
        """Load the simulation before the first room: numpy, the engine's modules, numba and
        its cached kernels, ~140 MiB and ~0.6 s (a compilation of ~10 s if numba's cache is
        cold: `sixdof warm`).

        A server nobody has joined does not hold them, and they load in a thread so the
        event loop keeps answering meanwhile. The objects they bring are long-lived: frozen
        out of the garbage collector's sight, as at start-up (`launch`)."""
        if is_warm():
            return

        def load() -> None:
            for module in ("live", "engine", "replay", "ghost"):  # what a room uses
                importlib.import_module(f"..simulation.{module}", __package__)
            importlib.import_module(".binary", __package__)
            if warm_up() > 0.0:
                gc.collect()
                gc.freeze()

        await asyncio.to_thread(load)

    @property
    def engine(self) -> Engine:
        """What advances every ticking room's simulation; made with the first room."""
        if self._engine is None:
            from ..simulation.engine import Engine

            self._engine = Engine()
        return self._engine

    def __len__(self) -> int:
        return len(self._rooms)

    def names(self) -> list[str]:
        return sorted(self._rooms)

    def get(self, name: str) -> Room | None:
        return self._rooms.get(name)

    def get_or_create(
        self, name: str, *, by_watcher: bool = False, snapshot: Snapshot | None = None
    ) -> Room:
        """The room `name`, made if there is none. Rooms made by watchers (`by_watcher`) are
        capped apart (max_watcher_rooms), so watchers cannot use up the rooms of the people
        who hold the token. A new room does not tick until a client joins."""
        check_room_name(name)
        room = self._rooms.get(name)
        if room is not None:
            return room
        made = sum(r.made_by_watcher == by_watcher for r in self._rooms.values())
        cap = self.settings.max_watcher_rooms if by_watcher else self.settings.max_rooms
        if made >= cap:
            who = "rooms made without the token" if by_watcher else "rooms"
            raise Refusal(
                "forbidden",
                f"room: the server holds its maximum of {cap} {who}; join an existing one",
                "room",
            )
        sim = self.make_sim()
        if snapshot is not None:  # a Share link: only a new room is made from it
            if snapshot.kind == "start":
                sim.load(snapshot.keyframe["scenario"])
            else:
                recording = snapshot.recording.copy() if snapshot.recording else None
                sim.restore(snapshot.keyframe, recording)
        room = Room(name, sim, self.settings)
        room.made_by_watcher = by_watcher
        self._rooms[name] = room
        self._schedule_expiry(room)  # until someone joins
        log.info("room %s created", name)
        return room

    async def enter(self, name: str, client: Viewer, snapshot: Snapshot | None = None) -> Room:
        """`join`, once the physics is loaded (`physics_ready`)."""
        await self.physics_ready()
        return self.join(name, client, snapshot)

    def join(self, name: str, client: Viewer, snapshot: Snapshot | None = None) -> Room:
        """Add `client` to room `name` (made if need be); `physics_ready` must have run."""
        room = self.get_or_create(name, by_watcher=not client.can_control, snapshot=snapshot)
        if len(room.clients) >= self.settings.max_clients_per_room:
            raise Refusal(
                "forbidden",
                f"room: {name} is full ({self.settings.max_clients_per_room} clients)",
                "room",
            )
        if not room.clients:
            self._start_ticking(room)
        room.join(client)
        return room

    def leave(self, room: Room, client: Viewer) -> None:
        room.leave(client)
        if not room.clients:
            self.engine.remove(room.sim)  # nobody watches: it stops, and costs nothing
            self._schedule_expiry(room)

    def _start_ticking(self, room: Room) -> None:
        if room.sim not in self.engine:
            room.sim.wake()  # the time nobody watched is not owed
            self.engine.add(room.sim)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="sixdof-rooms")

    def _schedule_expiry(self, room: Room) -> None:
        if room.expiry is not None:
            room.expiry.cancel()
        loop = asyncio.get_running_loop()
        room.expiry = loop.call_later(self.settings.room_ttl, self.expire, room)

    def expire(self, room: Room) -> None:
        """Remove `room` now if it has no client (its `room_ttl` ran out, or its owner says so)."""
        if room.clients or self._rooms.get(room.name) is not room:
            return
        del self._rooms[room.name]
        self.engine.remove(room.sim)
        room.expiry = None
        room.stop()
        log.info("room %s removed (no clients for %g s)", room.name, self.settings.room_ttl)

    # ------------------------------------------------------------------ the tick
    async def run(self) -> None:
        """Tick every room at the frame rate until no room has clients (or cancelled)."""
        # time.monotonic, not loop.time: uvloop's loop clock has 1 ms resolution.
        period = 1.0 / self.settings.frame_rate
        deadline = time.monotonic()
        while len(self.engine):
            deadline += period
            delay = deadline - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)  # let sockets and messages in between late ticks
                if -delay > period:  # fell a whole frame behind: skip, do not burst
                    deadline = time.monotonic()
            start, start_cpu = time.monotonic(), time.thread_time()
            rooms = self.tick(start)
            busy, cpu = time.monotonic() - start, time.thread_time() - start_cpu
            for room in rooms:
                room.ticked_at = start
                room.tick_errors.append(start - deadline)
                room.tick_seconds.append(busy)
                room.tick_cpu_seconds.append(cpu)

    def tick(self, now: float) -> list[Room]:
        """Advance every room to wall time `now` with the engine, then publish each; the rooms."""
        rooms = list(self._rooms.values())
        try:
            errors = self.engine.advance(now)
        except Exception as exc:  # the engine isolates faults per simulation; this is a last guard
            log.exception("the rooms' tick failed")
            errors = {room.sim: exc for room in rooms}
        for room in rooms:
            try:
                room.publish(errors.get(room.sim))
            except Exception:
                log.exception("room %s: publishing failed", room.name)
        return rooms

    async def close(self) -> None:
        rooms, self._rooms = list(self._rooms.values()), {}
        for room in rooms:
            self.engine.remove(room.sim)
            room.stop()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
