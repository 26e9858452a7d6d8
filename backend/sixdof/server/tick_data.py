"""What a room's tick passes between its halves (ticking.py): what its clients need, read on
the event loop before the tick (`Audience`), and what the tick made for the loop to send
(`Prepared`, made in a worker thread by `Room.prepare`, or on the loop for a still tick)."""

from __future__ import annotations

from dataclasses import dataclass

HelloKey = tuple[bool, bool]  # (can_control, binary): one variant of the hello
Content = dict[bool, str | bytes]  # a frame's content without its seq, by kind (frame_content)


@dataclass(frozen=True)
class Audience:
    """What a tick's clients need: frames as JSON (False) and/or binary (True), which of
    those as ready-made websocket frames, and the hellos' (can_control, binary) variants."""

    kinds: frozenset[bool]
    wired: frozenset[bool]
    hello_keys: frozenset[HelloKey]
    #: some client has had no frame since its last hello (it joined, or the room changed)
    lacking: bool = True


@dataclass
class Prepared:
    """What a tick made for the event loop to send (Room.deliver)."""

    notes: list[str]  # notices for every client (a pause, a ghost ended)
    hellos: dict[HelloKey, tuple[str, bytes]]  # by (can_control, binary), if changed
    frames: dict[bool, tuple[str | bytes, bytes | None]]  # by binary: (payload, wire frame)
    cpu: float  # the thread's CPU seconds for this tick
    seen: tuple[int, int] = (0, 0)  # the room's (changes, changing) when it was made
    content: Content | None = None  # what its frames show (StillFrames.repeats compares it)
    #: the frames show what every client was last sent: only those lacking a frame get them
    repeat: bool = False
