"""A live simulation's recording: keyframes, and every change at the step it took effect.

The live run is a fixed-step integration whose only outside influences are the changes
clients make between advances. So a run is fully described by a *keyframe* (scenario with
its current parameters, state, time, input records) and the ordered log of what happened
after it, each item stamped with the simulation's step counter:

- `event`: a change that reached the simulation (set_input, set_params, reset of a body),
  or one that did not touch the physics (set_time_scale, pause, resume: kept for a replay
  of the session, ignored by the re-simulation);
- `frame`: a history row was taken here (the frame times of the room's plots and CSV).

Re-simulating (resimulation.py, replay.py) from a keyframe with the same kernel, applying
each event at its step, reproduces the history bit for bit. A load or a full reset starts a
new segment with its own keyframe, and so does every `keyframe_seconds` of simulated time,
so that memory can be bounded by dropping whole segments from the front (`max_bytes`), and
so that a replay can start from the keyframe nearest to the time it wants.
"""

from __future__ import annotations

import json
from array import array
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..fields import FieldError, check_number
from ..scenario.errors import field_error
from ..scenario.model import MAX_BODY_ROWS, MAX_BODY_STEPS

FORMAT = "sixdof-recording"
FORMAT_VERSION = 1
#: Bytes of one logged event or keyframe beyond its JSON text (a tuple and a str object),
#: and of one frame stamp.
EVENT_OVERHEAD = 160
#: A segment holds at most this many steps × bodies, so a replay from its keyframe to any
#: of its frames costs at most about 20–40 ms.
KEYFRAME_BODY_STEPS = 200_000
FRAME_BYTES = 8


class RecordingFormatError(ValueError):
    """A recording this version of sixdof cannot read; the message says why."""


@contextmanager
def named_at(where: str) -> Iterator[None]:
    """What goes wrong while a recording's part at `where` (`segments[3].keyframe`,
    `segments[3].items[7]`) is made into a simulation, as one RecordingFormatError naming
    the field, worded as a scenario's errors are (scenario/errors.py): pydantic's own
    message is several lines naming its model, and a missing key was just its name."""
    try:
        yield
    except RecordingFormatError:
        raise
    except ValidationError as exc:
        # a keyframe's scenario is the one model a recording's parts are validated by
        text = field_error(exc, "scenario" if exc.title == "Scenario" else "", "").message
        raise RecordingFormatError(where + (text if text.startswith(":") else f".{text}")) from None
    except FieldError as exc:
        raise RecordingFormatError(f"{where}: {exc.message}") from None
    except KeyError as exc:
        raise RecordingFormatError(f"{where}: {exc.args[0]!r:.60} is missing") from None
    except (TypeError, ValueError, IndexError, AttributeError) as exc:
        raise RecordingFormatError(f"{where}: {str(exc)[:200]}") from None


@dataclass
class Segment:
    """A keyframe and what followed it, until the next keyframe. Kept as JSON text and a
    packed array (not as Python objects, which take 5–10 times more memory)."""

    step: int  # the step counter at the keyframe
    t: float  # simulated time at the keyframe, s
    origin: str  # load, reset or periodic
    keyframe: str  # JSON: step, origin, scenario, x, t_base, n_steps, inputs, …
    # (step, frames taken before it, kind, args as JSON): the frame count orders events
    # and frames
    events: list[tuple[int, int, str, str]] = field(default_factory=list)
    frames: array[int] = field(default_factory=lambda: array("q"))  # 8 bytes per stamp
    nbytes: int = 0

    def to_json(self) -> dict[str, Any]:
        """Items in order: {"step", "kind", ...args} for events, {"step", "kind": "frame"}
        for frame stamps (their order against events matters: a row is taken before the
        changes that arrive after it)."""
        items: list[dict[str, Any]] = []
        done = 0
        for step, before, kind, args in self.events:
            items += [{"step": s, "kind": "frame"} for s in self.frames[done:before]]
            done = before
            items.append({"step": step, "kind": kind, **json.loads(args)})
        items += [{"step": s, "kind": "frame"} for s in self.frames[done:]]
        return {"keyframe": json.loads(self.keyframe), "items": items}


class Recording:
    """Segments of one room's run, at most `max_bytes` (older segments dropped whole)."""

    def __init__(self, *, frame_rate: float, max_bytes: int, keyframe_seconds: float = 10.0):
        self.frame_rate = frame_rate
        self.max_bytes = max_bytes
        self.keyframe_seconds = keyframe_seconds
        self.segments: deque[Segment] = deque()
        self.dropped = 0  # segments dropped to stay within max_bytes
        self.nbytes = 0

    def start(self, keyframe: dict[str, Any]) -> None:
        """A new segment from `keyframe` (a load, a full reset, or a periodic keyframe)."""
        text = json.dumps(keyframe)
        size = len(text) + EVENT_OVERHEAD
        t = float(keyframe["t_base"]) + int(keyframe["n_steps"]) * float(keyframe["step_size"])
        seg = Segment(int(keyframe["step"]), t, str(keyframe["origin"]), text, nbytes=size)
        self.segments.append(seg)
        self.nbytes += size
        self._bound()

    def event(self, step: int, kind: str, args: dict[str, Any] | None = None) -> None:
        if not self.segments:
            return
        text = json.dumps(args or {})
        size = len(text) + EVENT_OVERHEAD
        seg = self.segments[-1]
        seg.events.append((step, len(seg.frames), kind, text))
        seg.nbytes += size
        self.nbytes += size
        self._bound()

    def frame(self, step: int) -> None:
        if not self.segments:
            return
        seg = self.segments[-1]
        seg.frames.append(step)
        seg.nbytes += FRAME_BYTES
        self.nbytes += FRAME_BYTES
        if len(seg.frames) % 512 == 0:
            self._bound()

    def needs_keyframe(self, step: int, step_size: float, bodies: int) -> bool:
        """True once the last segment spans `keyframe_seconds` of simulated time or
        KEYFRAME_BODY_STEPS steps × bodies: a replay from a keyframe never has more to do."""
        if not self.segments:
            return False
        steps = step - self.segments[-1].step
        return steps * step_size >= self.keyframe_seconds or steps * bodies >= KEYFRAME_BODY_STEPS

    def run_start(self) -> int:
        """Index of the first segment of the current run (after the last load or reset)."""
        first = 0
        for i, seg in enumerate(self.segments):
            if seg.origin != "periodic":
                first = i
        return first

    def frame_count(self, index: int) -> int:
        return len(self.segments[index].frames)

    def segment_at(self, t: float) -> tuple[int, dict[str, Any]] | None:
        """(index, JSON) of the segment holding simulated time t of the latest run: the last
        one whose keyframe is at or before t, from the last load or full reset on."""
        best = self.index_at(t)
        return None if best is None else (best, self.segments[best].to_json())

    def index_at(self, t: float) -> int | None:
        """`segment_at`'s index alone (its JSON costs ~1 ms for 64 bodies: made once)."""
        first = self.run_start()
        best = None
        for i in range(first, len(self.segments)):
            if self.segments[i].t <= t:
                best = i
        return best

    def truncate(self, index: int, frames: int) -> None:
        """Keep segments up to `index`, and in it the first `frames` frame stamps and the
        events before the last of them (the time axis went back to that frame)."""
        while len(self.segments) > index + 1:
            self.nbytes -= self.segments.pop().nbytes
        seg = self.segments[index]
        del seg.frames[frames:]
        seg.events = [e for e in seg.events if e[1] < frames]
        old = seg.nbytes
        seg.nbytes = (len(seg.keyframe) + EVENT_OVERHEAD + FRAME_BYTES * len(seg.frames)
                      + sum(len(e[3]) + EVENT_OVERHEAD for e in seg.events))  # fmt: skip
        self.nbytes += seg.nbytes - old

    def truncate_sharing(self, index: int, frames: int) -> Recording:
        """`truncate`, returning the recording as it was before, for an undo, without a
        copy of it: the segments are shared (only the last one is ever appended to, and
        segment `index`, which this one goes on appending to, is replaced here by a copy
        of the part kept: at most one segment's stamps and events)."""
        before = Recording(frame_rate=self.frame_rate, max_bytes=self.max_bytes,
                           keyframe_seconds=self.keyframe_seconds)  # fmt: skip
        before.segments = deque(self.segments)  # references: a pointer per segment
        before.dropped, before.nbytes = self.dropped, self.nbytes
        seg = self.segments[index]
        self.segments[index] = Segment(seg.step, seg.t, seg.origin, seg.keyframe,
                                       [e for e in seg.events if e[1] < frames],
                                       seg.frames[:frames], seg.nbytes)  # fmt: skip
        self.truncate(index, frames)
        return before

    def copy(self) -> Recording:
        other = Recording(frame_rate=self.frame_rate, max_bytes=self.max_bytes,
                          keyframe_seconds=self.keyframe_seconds)  # fmt: skip
        for seg in self.segments:
            frames = array("q", seg.frames)
            other.segments.append(
                Segment(seg.step, seg.t, seg.origin, seg.keyframe, list(seg.events), frames,
                        seg.nbytes)
            )  # fmt: skip
        other.dropped, other.nbytes = self.dropped, self.nbytes
        return other

    def first_time(self) -> float | None:
        """Simulated time of the first keyframe of the current run, or None."""
        if not self.segments:
            return None
        first = self.segments[0].t
        for seg in self.segments:
            if seg.origin != "periodic":
                first = seg.t
        return first

    def _bound(self) -> None:
        while self.nbytes > self.max_bytes and len(self.segments) > 1:
            old = self.segments.popleft()
            self.nbytes -= old.nbytes
            self.dropped += 1

    @classmethod
    def from_json(cls, data: Any, *, max_bytes: int) -> Recording:
        """The recording `to_json` gave (checked by `check_format`), to go on recording into:
        the inverse of `to_json`, segment by segment."""
        data = check_format(data)
        rec = cls(frame_rate=float(data["frame_rate"]), max_bytes=max_bytes)
        for seg_json in data["segments"]:
            rec.start(seg_json["keyframe"])
            for item in seg_json["items"]:
                step = int(item["step"])
                if item["kind"] == "frame":
                    rec.frame(step)
                else:
                    args = {k: v for k, v in item.items() if k not in ("step", "kind")}
                    rec.event(step, str(item["kind"]), args)
        rec.dropped = int(data.get("segments_dropped", 0))
        return rec

    def tail_json(self, max_chars: int) -> dict[str, Any]:
        """`to_json` of the latest segments whose JSON fits in about `max_chars` characters
        (at least the last one): what a snapshot carries of the past."""
        keep: list[Segment] = []
        size = 0
        for seg in reversed(self.segments):
            size += seg.nbytes
            if keep and size > max_chars:
                break
            keep.insert(0, seg)
        return self.to_json(keep)

    def to_json(self, segments: list[Segment] | None = None) -> dict[str, Any]:
        """The documented recording (docs/recording.md); of `segments` (the latest of this
        recording) if given, those before them counted as dropped."""
        chosen = list(self.segments) if segments is None else segments
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "sixdof_version": __version__,
            "frame_rate": self.frame_rate,
            "segments_dropped": self.dropped + len(self.segments) - len(chosen),
            "segments": [seg.to_json() for seg in chosen],
        }


def check_format(data: Any) -> dict[str, Any]:
    """`data` if it is a recording this version reads; RecordingFormatError saying why not."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordingFormatError(f'not a sixdof recording (no "format": "{FORMAT}")')
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        made = data.get("sixdof_version", "an unknown version")
        raise RecordingFormatError(
            f"recording format version {version!r} (made by sixdof {made}); this sixdof "
            f"({__version__}) reads version {FORMAT_VERSION} only"
        )
    if not isinstance(data.get("segments"), list) or not data["segments"]:
        raise RecordingFormatError("the recording holds no segment")
    return data


# --------------------------------------------------------------------------- reading a file

#: A recording file `sixdof run` reads at most (a room's is 8 MiB by default).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Segments and items a recording may hold: an 8 MiB room's has some thousands of segments and
#: about a million items; each segment costs a simulation made from its keyframe.
MAX_SEGMENTS = 100_000
MAX_ITEMS = 20_000_000
#: Steps × bodies a re-simulation may take, and frames × bodies it may write: those of a
#: headless run (scenario.model's MAX_BODY_STEPS, MAX_BODY_ROWS).
ORIGINS = ("load", "reset", "periodic")


def read(path: Any) -> dict[str, Any]:
    """The recording in file `path` (a pathlib.Path), read strictly and checked before any of
    it is simulated: RecordingFormatError naming the field for a file too large, nested too
    deep, with NaN or Infinity, steps that go back or are negative, or more segments, items
    or work than a headless run may have."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise RecordingFormatError(
            f"the file is {size / 2**20:.0f} MiB; a recording may have at most "
            f"{MAX_FILE_BYTES // 2**20} MiB"
        )
    return parse(path.read_text(encoding="utf-8"))


def _not_a_number(word: str) -> float:
    raise RecordingFormatError(f"{word} is not a number a recording may hold (finite only)")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        _not_a_number(text)  # 1e400 reads as infinity
    return value


def parse(text: str) -> dict[str, Any]:
    """A recording from its JSON text, checked (`read`)."""
    try:
        data = json.loads(text, parse_constant=_not_a_number, parse_float=_finite)
    except RecursionError:
        raise RecordingFormatError(
            "the JSON is nested too deeply (a recording nests a few levels)"
        ) from None
    except ValueError as exc:
        if isinstance(exc, RecordingFormatError):
            raise
        raise RecordingFormatError(f"not valid JSON: {exc}") from None
    check_format(data)
    check_structure(data)
    return data


def _whole(value: Any, where: str, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise RecordingFormatError(f"{where}: a whole number ≥ {least}, got {value!r:.40}")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordingFormatError(f"{where}: a number, got {value!r:.40}")
    return float(value)


def check_structure(data: dict[str, Any]) -> None:
    """RecordingFormatError naming the field where a recording (check_format's) is not as
    `to_json` writes it, or would take more work than a headless run may: counts first,
    then every segment's keyframe numbers and item steps, then the work they add up to."""
    try:
        check_number(data.get("frame_rate"), "frame_rate")
    except FieldError as exc:
        raise RecordingFormatError(exc.message) from None
    segments = data["segments"]
    if len(segments) > MAX_SEGMENTS:
        raise RecordingFormatError(
            f"segments: {len(segments):,} of them; a recording may have at most {MAX_SEGMENTS:,}"
        )
    items = 0
    for i, segment in enumerate(segments):
        where = f"segments[{i}]"
        if not isinstance(segment, dict) or not isinstance(segment.get("items"), list):
            raise RecordingFormatError(f"{where}: an object with a keyframe and items")
        items += len(segment["items"])
    if items > MAX_ITEMS:
        raise RecordingFormatError(
            f"segments: {items:,} items in all; a recording may have at most {MAX_ITEMS:,}"
        )
    body_steps = body_rows = 0
    for i, segment in enumerate(segments):
        where = f"segments[{i}].keyframe"
        keyframe = segment.get("keyframe")
        if not isinstance(keyframe, dict):
            raise RecordingFormatError(f"{where}: an object")
        scenario = keyframe.get("scenario")
        if not isinstance(scenario, dict) or not isinstance(scenario.get("bodies"), list):
            raise RecordingFormatError(f"{where}.scenario: a scenario with its bodies")
        bodies = max(1, len(scenario["bodies"]))
        step = _whole(keyframe.get("step"), f"{where}.step")
        _whole(keyframe.get("n_steps"), f"{where}.n_steps")
        _number(keyframe.get("t_base"), f"{where}.t_base")
        if _number(keyframe.get("step_size"), f"{where}.step_size") <= 0.0:
            raise RecordingFormatError(f"{where}.step_size: must be > 0")
        if keyframe.get("origin") not in ORIGINS:
            raise RecordingFormatError(f"{where}.origin: one of {', '.join(ORIGINS)}")
        last = step
        for j, item in enumerate(segment["items"]):
            at = f"segments[{i}].items[{j}]"
            if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
                raise RecordingFormatError(f"{at}: an object with a step and a kind")
            now = _whole(item.get("step"), f"{at}.step")
            if now < last:
                raise RecordingFormatError(
                    f"{at}.step: {now} is before the step before it ({last}); steps only go on"
                )
            last = now
            body_rows += bodies if item["kind"] == "frame" else 0
        body_steps += (last - step) * bodies
    if body_steps > MAX_BODY_STEPS:
        raise RecordingFormatError(
            f"segments: re-simulating them takes {body_steps:.2g} steps × bodies; a headless "
            f"run may take at most {MAX_BODY_STEPS:.0e}"
        )
    if body_rows > MAX_BODY_ROWS:
        raise RecordingFormatError(
            f"segments: {body_rows:,} frames × bodies to write; a headless run may write at "
            f"most {MAX_BODY_ROWS:,}"
        )
