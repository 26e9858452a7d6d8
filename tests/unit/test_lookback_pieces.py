"""A look back in pieces (simulation/replay.py) is the same look back: the frame a past_frame
cut into pieces of a few steps gives is bit for bit the one it gives at once, two look backs
interleaved do not share a simulation, and go_back in pieces lands where go_back does."""

from __future__ import annotations

from typing import Any

from support.driving import crowd as driven

from sixdof.simulation.pieces import Offload, finish
from sixdof.simulation.replay import MOMENTS, going_back, past_frame, past_frame_pieces


def in_pieces(pieces: Any) -> tuple[Any, int]:
    """Run pieces as the server does (offloads in place here); the result and the count."""
    count, value = 0, None
    while True:
        try:
            asked = pieces.send(value)
        except StopIteration as done:
            return done.value, count
        count += 1
        value = asked.fn(*asked.args) if isinstance(asked, Offload) else None


def test_a_past_frame_in_tiny_pieces_is_the_frame_at_once() -> None:
    sim = driven()
    # a piece a step (480 pieces), then pieces of ~23 steps cut wherever they fall (83-270)
    for t, piece_seconds in ((0.5, 1e-9), (2.0, 1e-3), (3.9, 1e-3), (6.5, 1e-3)):
        sim.timeline.cursor = None
        whole = past_frame(sim, t)
        sim.timeline.cursor = None
        MOMENTS._kept.clear()  # and read the keyframe again, offloaded
        cut, pieces = in_pieces(past_frame_pieces(sim, t, piece_seconds=piece_seconds))
        assert cut == whole  # exact: the same floats
        assert pieces > 10


def test_two_look_backs_at_once_do_not_share_a_simulation() -> None:
    sim = driven()
    past_frame(sim, 1.0)  # a cursor in the first segment
    a = past_frame_pieces(sim, 1.5, piece_seconds=1e-9)
    b = past_frame_pieces(sim, 1.7, piece_seconds=1e-9)
    next(a), next(b)  # both started: only one may have taken the cursor
    got_a, _ = in_pieces(a)
    got_b, _ = in_pieces(b)
    sim.timeline.cursor = None
    assert got_a == past_frame(sim, 1.5)
    sim.timeline.cursor = None
    assert got_b == past_frame(sim, 1.7)


def test_go_back_in_pieces_lands_where_go_back_does() -> None:
    one, other = driven(), driven()
    t = finish(going_back(one, 2.5))
    t_cut, _ = in_pieces(going_back(other, 2.5, piece_seconds=1e-9))
    assert t == t_cut
    assert (one.state_array() == other.state_array()).all()
    one.undo_go_back()
    other.undo_go_back()
    assert one.t == other.t > 6.9
