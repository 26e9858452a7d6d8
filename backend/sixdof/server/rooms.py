"""Rooms: one live simulation shared by every websocket that joins it.

A room keeps its clients, publishes its state frames and hellos to them, and pauses with a
reason on a fault, which it tells them; other rooms and the server carry on. A tick is
`prepare` (physics and encoding, in a worker thread) then `deliver` (sending, on the event
loop): ticking.py drives both. What a client's message does to it is control.py's; the
registry that makes and removes rooms is registry.py's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..fields import FieldError, check_room
from ..scenario import Scenario
from . import control, ghosts, presets
from .answers import Answers
from .clients import Viewer, frame_order
from .errors import Refusal
from .pools import off_loop
from .protocol import AskedQuestion, ErrorCode, Hello, HydrostaticsInfo, Limits, Status, limits
from .room_stats import room_stats
from .settings import Settings
from .state_frame import dumps_state, frame_content
from .still_frames import StillFrames
from .tick_data import Audience, HelloKey, Prepared
from .wire import wire_frame

if TYPE_CHECKING:
    from ..simulation.ghost import Ghost
    from ..simulation.live import LiveSimulation

# The simulation's modules (numpy, the engine) are imported where a room uses them: a server
# without rooms has not loaded them (`Rooms.physics_ready` loads them with the first).

log = logging.getLogger("sixdof.server")

#: A room whose physics is estimated to cost more than this per tick ticks alone, in a task
#: and thread of its own; the others tick together in one shared engine call, whose Python
#: overhead (~40 µs a room instead of ~380 µs alone) is what lets a server tick 200 rooms.
SOLO_SECONDS = 0.001


def check_room_name(name: str) -> str:
    """`name` if it is a valid room name (fields.check_room), else raise Refusal."""
    try:
        return check_room(name)
    except FieldError as exc:
        raise Refusal.of(exc) from None


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
        self.ticker: asyncio.Task[None] | None = None  # ticking.tick_room, while it has clients
        self.made_by_watcher = False  # counted against max_watcher_rooms
        self.ghost: Ghost | None = None  # the room's inputs through other settings (set_ghost)
        self._step_cost: float | None = None  # s per step of `step` messages, measured
        self.solo = False  # ticks alone, in a task and thread of its own (ticking.py)
        # changes carried out (control.carry_out, a PUT) and being carried out, counted on the
        # event loop: a frame made while one ran is not sent after its ack (`deliver`)
        self.changes = 0
        self.changing = 0
        self._hydro: tuple[int, list[HydrostaticsInfo]] | None = None  # (version, entries)
        self.answers = Answers()  # the question it asks, its answers (answers.py)
        # what every client was last sent: a frame that has not changed (paused, or at rest
        # between pushes) is sent again once a heartbeat, and to a client that has had no
        # frame since its hello, and not made while it cannot have changed
        self.still = StillFrames(settings.frame_rate)

    # ------------------------------------------------------------------ cost
    def step_cost(self) -> float:
        """Seconds one step of a `step` message costs here (measured; a guess before)."""
        if self._step_cost is not None:
            return self._step_cost
        return 2e-5 + 1e-6 * len(self.sim.names)

    def note_cost(self) -> bool:
        """Whether this room should tick alone from now on (`solo`), by its estimate."""
        try:
            self.solo = self.tick_estimate() > SOLO_SECONDS
        except Exception:  # an estimate must never cost the room its frame
            log.exception("room %s: estimating its cost failed", self.name)
        return self.solo

    def tick_estimate(self) -> float:
        """The estimated computing seconds of this room's physics per tick: a step's estimate
        (worked out by whoever changed the world, simulation/world.step_estimate) × the steps
        a frame owes."""
        sim = self.sim
        steps = sim.time_scale / (self.settings.frame_rate * sim.step_size)
        return sim.step_estimate() * max(steps, 1.0)

    def note_step_cost(self, seconds: float) -> None:
        old = self._step_cost
        self._step_cost = seconds if old is None else 0.7 * old + 0.3 * seconds

    # ------------------------------------------------------------------ lifecycle
    def stop(self) -> None:
        if self.expiry is not None:
            self.expiry.cancel()
        self.expiry = None
        if self.ticker is not None:
            self.ticker.cancel()
        ghosts.room_closed(self)  # a ghost still being built for it is dropped, not attached
        self.end_ghost()

    def prepare(
        self, now: float, audience: Audience, advanced: Exception | bool = False
    ) -> Prepared:
        """The physics part of a tick, in a worker thread (ticking.py): advance the simulation
        to wall time `now` (unless the shared tick did: `advanced` True, or the exception its
        advance raised for this room), then make what its clients (`audience`, read on the
        event loop) are to be sent: pause notices, a new hello if the room changed, this
        tick's frame encoded once per kind. Nothing is sent from here: `deliver` does that
        on the loop. Notes whether the room should tick alone from now on (`solo`)."""
        started = time.thread_time()
        seen = (self.changes, self.changing)
        error: Exception | None = advanced if isinstance(advanced, Exception) else None
        if advanced is False:  # ticking alone: its own advance, and whether it still should
            try:
                self.sim.advance(now)
            except Exception as exc:  # a fault pauses this room only
                error = exc
            self.note_cost()
        notes: list[str] = []
        if isinstance(error, FieldError):
            notes += self._pause_for(error.code, error.message)
        elif error is not None:
            notes += self._fault("advancing the simulation", error)
        if not audience.kinds:
            return Prepared(notes, {}, {}, time.thread_time() - started, seen)
        notes += self._announce_pause()
        notes += self._follow_ghost()
        self.seq += 1
        still = self.still.key(self.sim, audience, seen, self.seq, self._settled())
        if still is not None and still == self.still.last:  # the frames it would make: the last
            return Prepared(notes, {}, {}, time.thread_time() - started, seen, None, True)
        # a change being carried out: its sender gets the hello after its ack (sync_hello)
        hellos = self._hellos(audience.hello_keys) if not seen[1] else {}
        frames: dict[bool, tuple[str | bytes, bytes | None]] = {}
        try:
            payloads = {kind: self._encode(kind) for kind in audience.kinds}
        except ValueError:  # a non-finite number refused by the encoder
            notes += self._pause_for("diverged", "diverged: the state is no longer finite")
            payloads = {}
        except Exception as exc:
            notes += self._fault("encoding a frame", exc)
            payloads = {}
        content = {kind: frame_content(payload) for kind, payload in payloads.items()}
        repeat = bool(content) and self.still.repeats(content, self.seq)
        self.still.last = still if repeat else None
        if repeat and not audience.lacking and not hellos:  # a hello now: a frame after it
            payloads = {}  # nothing new for anyone: no wire frames to make
        for kind, payload in payloads.items():
            frames[kind] = (payload, wire_frame(payload) if kind in audience.wired else None)
        cpu = time.thread_time() - started
        return Prepared(notes, hellos, frames, cpu, seen, content, repeat)

    def _settled(self) -> bool:
        """No ghost follows another run and the clients' hello describes the world: nothing
        of the room's own asks for a new frame (still_frames.StillFrames.key)."""
        return self.ghost is None and self.sim.version == self._version

    def tick_is_still(self, audience: Audience) -> bool:
        """Whether this tick would make nothing, read on the event loop without waiting: then
        `prepare_still` there instead of `prepare` in a thread (still_frames.py)."""
        seen = (self.changes, self.changing)
        return self.still.is_still(self.sim, audience, seen, self.seq + 1, self._settled())

    def prepare_still(self) -> Prepared:
        """`prepare` of a tick `tick_is_still` found still: it only counts the tick (a paused
        simulation's advance would only note the time, which `resume` notes itself)."""
        self.seq += 1
        return Prepared([], {}, {}, 0.0, (self.changes, 0), None, True)

    def audience(self) -> Audience:
        """What this tick's clients need (on the event loop, before `prepare`)."""
        clients = tuple(self.clients)
        return Audience(
            frozenset(c.binary for c in clients),
            frozenset(c.binary for c in clients if c.wire is not None),
            frozenset((c.can_control, c.binary) for c in clients),
            any(c.lacks_frame for c in clients),
        )

    def deliver(self, prepared: Prepared) -> None:
        """The sending part of a tick, on the event loop: notices, hellos, then the frame to
        every client (who sent something recently first)."""
        for text in prepared.notes:
            self.broadcast(text)
        if prepared.seen != (self.changes, 0):
            # made while a change was carried out, or before one that has been acked since:
            # it may show the world before the change, after the change's ack and hello.
            # Dropped (the next tick's is fresh); its hello is sent again by the next.
            if prepared.hellos:
                self._version = -1  # no version: the next hello goes out
            return
        if prepared.content and not prepared.repeat:
            self.still.note_sent(prepared.content, self.seq)
        now = time.monotonic()
        for client in frame_order(self.clients, now):
            hello = prepared.hellos.get((client.can_control, client.binary))
            if hello is not None:
                client.send_hello(*hello)
            frame = prepared.frames.get(client.binary)
            if frame is not None and (client.lacks_frame or not prepared.repeat):
                client.offer(*frame, now)

    def _encode(self, binary: bool) -> str | bytes:
        """This tick's state message, as JSON text or as the binary layout (binary.py, which
        carries no ghost)."""
        if binary:
            from .binary import encode_state

            return encode_state(self.seq, *self.sim.frame_arrays())
        frame = self.sim.frame()
        if self.ghost is not None:
            frame["ghost"] = self.ghost.frame(frame["bodies"])  # type: ignore[arg-type]  # list of dicts
        return dumps_state(self.seq, frame)

    def _follow_ghost(self) -> list[str]:
        ghost = self.ghost
        if ghost is None:
            return []
        try:
            ghost.follow()
        except Exception as exc:  # the ghost must never take the room down
            log.warning("room %s: ghost ended: %r", self.name, exc)
            self.end_ghost()
            return [Refusal("invalid", f"ghost ended: {exc}", "changes").text()]
        return []

    def end_ghost(self) -> None:
        if self.ghost is not None:
            self.ghost.close()
            self.ghost = None

    def _pause_for(self, code: ErrorCode, message: str) -> list[str]:
        """Pause the simulation with `message` as its reason; the notice for every client
        (once)."""
        if not self.sim.running and self.sim.paused_reason == message:
            return []
        try:
            self.sim.pause(reason=message)
        except Exception:
            log.exception("room %s: could not pause", self.name)
        self._announced = message
        return [Refusal(code, message).text()]

    def _announce_pause(self) -> list[str]:
        """The notice for the clients, once, when the simulation paused itself (diverged)."""
        reason = self.sim.paused_reason
        if reason is not None and reason != self._announced:
            self._announced = reason
            code: ErrorCode = "diverged" if reason.startswith("diverged") else "internal"
            return [Refusal(code, reason).text()]
        if reason is None:
            self._announced = None
        return []

    def _fault(self, doing: str, exc: BaseException) -> list[str]:
        log.exception("room %s: error while %s", self.name, doing, exc_info=exc)
        self.fault = f"{type(exc).__name__}: {exc}"
        reason = f"paused after a server error while {doing}: {self.fault}"
        return self._pause_for("internal", reason)

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
            hydrostatics=self.hydrostatics(),
            question=self._question(),
        ).model_dump_json()

    def _question(self) -> AskedQuestion | None:
        asked = self.answers.question
        return None if asked is None else AskedQuestion(**asdict(asked))

    def ask(self, text: str, preset: str | None = None) -> None:
        """Ask `text` (none: "") from now on; the clients get a new hello (`sync_hello`)."""
        self.answers.ask(text, preset)
        self._version = -1  # a hello differs although the world does not

    def hydrostatics(self) -> list[HydrostaticsInfo]:
        """The floating bodies' upright hydrostatics, computed once per scenario version
        (a few ms for a ship hull; never per frame)."""
        version = self.sim.version
        if self._hydro is None or self._hydro[0] != version:
            entries: list[HydrostaticsInfo] = []
            scenario = self.sim.scenario
            if any(e.kind == "buoyancy" for e in scenario.elements):
                from ..analysis.hydrostatics import scenario_hydrostatics

                try:
                    found = scenario_hydrostatics(scenario)
                except Exception:  # a number for a caption must never cost the room
                    log.exception("room %s: hydrostatics failed", self.name)
                    found = []
                entries = [HydrostaticsInfo.model_validate(h.message()) for h in found]
            self._hydro = (version, entries)
        return self._hydro[1]

    async def sync_hello(self) -> None:
        """Re-send hello to every client if the scenario, a parameter or the integrator
        changed. Built in the requests' pool (pools.off_loop): a hello carries the scenario
        and its hydrostatics, milliseconds of work for a room of many bodies or a ship's hull,
        and a burst of go_back/undo messages asks for one each. Frames made meanwhile are not
        sent (`changing`): they may show the new world before its hello."""
        if self.sim.version == self._version:
            return
        clients = tuple(self.clients)
        self.changing += 1
        try:
            hellos = await off_loop(self._hellos, {(c.can_control, c.binary) for c in clients})
        finally:
            self.changing -= 1
            self.changes += 1
        for client in clients:
            hello = hellos.get((client.can_control, client.binary))
            if hello is not None:
                client.send_hello(*hello)

    def _hellos(self, keys: Iterable[HelloKey]) -> dict[HelloKey, tuple[str, bytes]]:
        """The hello of each (can_control, binary) in `keys`, as text and as a whole websocket
        frame, if the room changed since the clients were last told; else none."""
        with self.sim.lock:
            version = self.sim.version
            if version == self._version:
                return {}
            self._version = version
            return {key: (text := self.hello(*key), wire_frame(text)) for key in set(keys)}

    # ------------------------------------------------------------------ control
    async def carry_out(self, msg: Any, left: float, settings: Settings) -> tuple[list[str], float]:
        """Carry out one validated control message (control.py); raise Refusal and change
        nothing if refused."""
        return await control.carry_out(self, msg, left, settings)

    def load(self, scenario: Scenario | None) -> None:
        """Replace the scenario (the caller then calls `sync_hello`)."""
        assert scenario is not None  # LoadScenario guarantees one of preset/scenario
        self.sim.load(scenario)

    def stats(self) -> dict[str, Any]:
        """The room's figures for `/api/rooms/{room}/stats` (room_stats.py)."""
        return room_stats(self)

    def expires_in(self) -> float | None:
        """Seconds until this room, which nobody watches, is removed (`room_ttl` from the last
        one's leaving); None while someone watches. Read on the event loop."""
        if self.expiry is None:
            return None
        return max(0.0, self.expiry.when() - asyncio.get_running_loop().time())
