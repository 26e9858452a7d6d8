"""Looking back in a live room: a past frame of its current run (`past_frame`), or the room
taken back to one (`go_back`), re-simulated from its recording exactly as the room ran.

A look back replays one segment: from its keyframe (or from where the last look back in it
stopped, a `Cursor`) in a fresh, paused LiveSimulation, stepping exactly to each logged item
with the same compiled kernel and applying each event through the method the live room used
(events.py). It runs in pieces (pieces.py), so the server's event loop is given back between
them; reading a keyframe's scenario is the piece that cannot be cut, offloaded, and its
result kept by its keyframe (`MOMENTS`). A whole recording is re-simulated by
resimulation.py.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..fields import FieldError
from .events import PHYSICS_EVENTS, apply_event
from .live import LiveSimulation
from .pieces import FIRST_PIECE_BODY_STEPS, PIECE_SECONDS, Offload, Pieces, finish, serial
from .timeline import Moment, moment_of

#: Keyframes whose world (`Moment`) is kept, by their JSON text: reading one's scenario again
#: costs ~15 ms for 64 bodies, and a look back starts from the same few keyframes over and
#: over (a slider dragged across the past).
MOMENTS_KEPT = 32


def _frames_until(segment: Mapping[str, Any], t: float) -> int:
    """How many of the segment's frame stamps are at or before simulated time t.

    Times follow the live simulation's own arithmetic, t = t_base + n_steps × h, with h
    changed (and t_base moved) only by a set_params that changes the step, so no physics
    is needed to know them."""
    keyframe = segment["keyframe"]
    t_base, h = float(keyframe["t_base"]), float(keyframe["step_size"])
    base_step = int(keyframe["step"]) - int(keyframe["n_steps"])
    frames = 0
    for item in segment["items"]:
        now = t_base + (int(item["step"]) - base_step) * h
        if item["kind"] == "frame":
            if now > t + 1e-12:
                break
            frames += 1
        elif item["kind"] == "set_params" and "step" in item["fields"]:
            step = float(item["fields"]["step"])
            if step != h:
                t_base, h, base_step = now, step, int(item["step"])
    return frames


@dataclass
class Cursor:
    """Where a re-simulation of one segment stands: the next request further on in the same
    segment goes on from here instead of from the keyframe (playing the past forward costs
    what running it did, not its square). The live simulation's timeline keeps the last one
    (`Timeline.cursor`) and drops it when its past is rewritten."""

    segment_step: int  # the segment's keyframe step
    sim: LiveSimulation
    index: int  # the next item to take
    step: int
    frames: int


class _Moments:
    """The worlds of the last MOMENTS_KEPT keyframes asked for, by their JSON text."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Moment] = OrderedDict()

    def starting(
        self, keyframe: str, parsed: Mapping[str, Any], frame_rate: float
    ) -> Pieces[LiveSimulation]:
        """A paused simulation exactly at `keyframe` (its JSON text, and `parsed`): made
        from its kept world (~1 ms), or off the caller's loop (`Offload`) when the
        keyframe's scenario must be read first (~15 ms for 64 bodies, not to be cut)."""
        moment = self._kept.get(keyframe)
        if moment is not None:  # ~1 ms: here (a thread's turns for the GIL cost the loop more)
            self._kept.move_to_end(keyframe)
            return _made(moment, parsed, frame_rate)[0]
        sim, moment = yield Offload(_made, (None, parsed, frame_rate))
        self._kept[keyframe] = moment
        while len(self._kept) > MOMENTS_KEPT:
            self._kept.popitem(last=False)
        return sim


def _made(
    moment: Moment | None, keyframe: Mapping[str, Any], frame_rate: float
) -> tuple[LiveSimulation, Moment]:
    """A paused simulation at `keyframe`, whose world is `moment` (read from the keyframe
    if None), and that moment."""
    moment = moment_of(keyframe) if moment is None else moment
    sim = LiveSimulation(_BLANK, running=False, frame_rate=frame_rate, history_seconds=1.0)
    own = moment.copy()  # the replay changes its state and inputs
    with sim.lock:
        sim.timeline.become(keyframe, own)
    return sim, moment


#: A one-body scenario: what a replay's simulation is made with before it becomes the
#: keyframe's world (making it with the keyframe's scenario would read that again).
_BLANK: dict[str, Any] = {"name": "replay", "bodies": [{"Name": "B"}]}


MOMENTS = _Moments()


def _replaying(
    segment: Mapping[str, Any],
    keyframe: str,
    frame_rate: float,
    t: float,
    wanted: int | None = None,
    cursor: Cursor | None = None,
    piece_seconds: float = PIECE_SECONDS,
) -> Pieces[tuple[LiveSimulation, int, Cursor] | None]:
    """In pieces: a simulation exactly at the segment's last frame at or before t (with the
    events before that frame applied, none after), or at its `wanted`-th frame stamp, how
    many frame stamps that is, and a cursor there; None when there is no such frame.
    `keyframe`: the segment's keyframe as its JSON text (`Segment.keyframe`). `cursor`: a
    previous result in this segment to go on from, used when it is not past `wanted`."""
    wanted = _frames_until(segment, t) if wanted is None else wanted
    if wanted < 1:
        return None
    key = int(segment["keyframe"]["step"])
    if cursor is not None and cursor.segment_step == key and cursor.frames <= wanted:
        sim, index, step, frames = cursor.sim, cursor.index, cursor.step, cursor.frames
    else:
        sim = yield from MOMENTS.starting(keyframe, segment["keyframe"], frame_rate)
        index, step, frames = 0, key, 0
    clock = time.perf_counter
    since = clock()
    per_step: float | None = None  # s per step, measured on the first piece
    items = segment["items"]
    while frames < wanted and index < len(items):
        item = items[index]
        index += 1
        ahead = int(item["step"]) - step
        diverged = False
        while ahead > 0:  # in pieces of about piece_seconds
            if per_step is None:
                k = max(1, FIRST_PIECE_BODY_STEPS // max(1, len(sim.names)))
            else:
                k = max(1, int((piece_seconds - (clock() - since)) / per_step))
            k = min(k, ahead)
            started = clock()
            with serial():
                taken = sim.run_steps(k)
            per_step = (clock() - started) / max(taken, 1)
            ahead -= taken
            if taken < k:
                diverged = True
                break
            if ahead and clock() - since >= piece_seconds * 0.8:
                yield None
                since = clock()
        if diverged:
            break
        step = int(item["step"])
        if item["kind"] == "frame":
            frames += 1
        elif item["kind"] in PHYSICS_EVENTS:
            apply_event(sim, item)
        if clock() - since >= piece_seconds:
            yield None
            since = clock()
    if frames < 1:
        return None
    return sim, frames, Cursor(key, sim, index, step, frames)


def _replay_to(
    segment: Mapping[str, Any],
    keyframe: str,
    frame_rate: float,
    t: float,
    wanted: int | None = None,
    cursor: Cursor | None = None,
) -> tuple[LiveSimulation, int, Cursor] | None:
    """`_replaying` at once."""
    return finish(_replaying(segment, keyframe, frame_rate, t, wanted, cursor))


def go_back(sim: LiveSimulation, t: float) -> float:
    """Take the live `sim` back to its frame at or before simulated time t of the current
    run and let it go on from there (`Timeline.go_back`); returns that frame's t.
    FieldError when t is outside the recorded run."""
    return finish(going_back(sim, t))


def going_back(
    sim: LiveSimulation, t: float, piece_seconds: float = PIECE_SECONDS
) -> Pieces[float]:
    """`go_back` in pieces (the module docstring); the room ticks on between them."""
    rec = sim.recording
    if rec is None:
        raise FieldError("t", "invalid", "t: this simulation keeps no recording")
    with sim.lock:
        found = rec.segment_at(t)
        first = rec.first_time()
        now = sim.t
        keyframe = None if found is None else rec.segments[found[0]].keyframe
    if found is None or keyframe is None or t > now + 1e-9:
        span = f"[{first:g}, {now:g}] s" if first is not None else "the recorded run"
        raise FieldError("t", "out_of_range", f"t: must be within {span}, got {t:g}")
    _, segment = found
    replayed = yield from _replaying(segment, keyframe, sim.frame_rate, t,
                                     piece_seconds=piece_seconds)  # fmt: skip
    if replayed is None:
        raise FieldError("t", "out_of_range", f"t: no frame at or before {t:g} s")
    there, frames, _ = replayed
    with sim.lock:  # the room went on: find the segment again by its keyframe's text (a room
        # made by a load has two at step 0: the default world's, then the load's)
        index = next((i for i, s in enumerate(rec.segments) if s.keyframe is keyframe), None)
        if index is None or sim.recording is not rec:  # dropped, or an undo replaced it
            raise FieldError("t", "out_of_range", f"t: {t:g} s has just left the recording")
        with there.lock:  # `there` is ours alone: its world is handed over as it is
            moment = there.moment()
        sim.timeline.go_back(there.keyframe("go_back"), index, frames, moment)
    return there.t


def frame_at(segment: Mapping[str, Any], frame_rate: float, t: float) -> dict[str, Any] | None:
    """The room's frame at simulated time t, re-simulated from one segment (Recording.
    segment_at): the last frame stamp at or before t, as the state message's payload
    {"t", "bodies"} (no status: it is the past); None when no frame of it is that early."""
    keyframe = json.dumps(segment["keyframe"])  # what Recording.start wrote for it
    replayed = _replay_to(segment, keyframe, frame_rate, t)
    if replayed is None:
        return None
    frame = replayed[0].frame()
    return {"t": frame["t"], "bodies": frame["bodies"]}


def past_frame(sim: LiveSimulation, t: float, offset: int = 0) -> dict[str, Any] | None:
    """The frame at or before t of `sim`'s current run, or `offset` frames from it (−1: the
    one before), re-simulated from its recording; None outside the recorded run. The
    result also says whether it is the run's latest recorded frame ("last")."""
    return finish(past_frame_pieces(sim, t, offset))


def past_frame_pieces(
    sim: LiveSimulation, t: float, offset: int = 0, piece_seconds: float = PIECE_SECONDS
) -> Pieces[dict[str, Any] | None]:
    """`past_frame` in pieces (the module docstring)."""
    timeline = sim.timeline
    with sim.lock:
        rec = timeline.recording
        index = None if rec is None else rec.index_at(t)
        if rec is None or index is None:
            return None
        found = index
        segment = rec.segments[index].to_json()
        wanted = _frames_until(segment, t) + offset
        first = rec.run_start()
        while wanted < 1 and index > first:  # step over segment boundaries
            index -= 1
            wanted += rec.frame_count(index)
        while wanted > rec.frame_count(index) and index < len(rec.segments) - 1:
            wanted -= rec.frame_count(index)
            index += 1
        wanted = max(1, min(wanted, rec.frame_count(index)))
        last = index == len(rec.segments) - 1 and wanted == rec.frame_count(index)
        if index != found:  # `offset` went into another segment
            segment = rec.segments[index].to_json()
        keyframe = rec.segments[index].keyframe
        # the cursor is taken, not shared: two look backs at once (pieces interleave on the
        # server) must not step one simulation
        cursor, epoch = timeline.cursor, timeline.epoch
        timeline.cursor = None
    ours = cursor if isinstance(cursor, Cursor) else None
    replayed = yield from _replaying(segment, keyframe, sim.frame_rate, float("inf"), wanted,
                                     ours, piece_seconds)  # fmt: skip
    if replayed is None:
        return None
    with sim.lock:
        if timeline.epoch == epoch:  # the past it went through is still this run's
            timeline.cursor = replayed[2]
    frame = replayed[0].frame()
    return {"t": frame["t"], "bodies": frame["bodies"], "last": last}
