"""Work in pieces: a long job on the server's event loop as a generator that yields after
about `PIECE_SECONDS` of work, so the server can give its loop back between pieces (the other
rooms tick meanwhile) and charge each piece to the client who asked. A look back
(replay.py) and a ghost's build (ghost.py) are such jobs. A piece that cannot be cut (reading
a keyframe's scenario, ~15 ms for 64 bodies) is yielded as an `Offload` for the caller to
run where it likes (the server: in a thread); `finish` runs a job to its end at once.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

#: Wall time one piece of a job may take before it yields: ~2 ms, an eighth of a
#: frame period, so a tick waits at most that for a piece to end.
PIECE_SECONDS = 0.002
#: Body-steps of a re-simulation's first piece, before its speed here is measured (~0.2 µs
#: a body-step for 64 bodies, ~0.5 µs for one on the development machine).
FIRST_PIECE_BODY_STEPS = 2_000

T = TypeVar("T")


@dataclass(frozen=True)
class Offload:
    """A piece of a job that cannot be cut: `fn(*args)`, whose result is sent back
    into the generator. The server runs it in a thread (it holds the GIL but lets the
    event loop in every few ms); `finish` runs it in place."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]


#: A job in pieces: yields None (a pause) or an Offload (run this, send me the result);
#: returns its result.
Pieces = Generator["Offload | None", Any, T]


def finish(pieces: Pieces[T]) -> T:
    """Run `pieces` to its end now, offloaded pieces in place; its result."""
    value: Any = None
    while True:
        try:
            asked = pieces.send(value)
        except StopIteration as done:
            return done.value
        value = asked.fn(*asked.args) if asked is not None else None


@contextmanager
def serial() -> Iterator[None]:
    """numba's kernels without their worker threads while a piece runs (the setting is
    this thread's own): a look back is background work, and a parallel call waits for all
    its threads, so on a busy machine a ~1 ms piece waited tens of ms for a worker thread
    the OS had given to something else, holding the event loop all that time."""
    from numba import get_num_threads, set_num_threads

    before = get_num_threads()
    set_num_threads(1)
    try:
        yield
    finally:
        set_num_threads(before)
