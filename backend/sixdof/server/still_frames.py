"""A room whose frame does not change (paused, or a world at rest between pushes) repeats
it once a heartbeat (a second of ticks), not at the frame rate, and stops making it: once a
tick's frame repeated what every client has, the next ticks compare what the frame is made
of (`key`: the simulation's stamp, the changes counted, the clients' kinds) and make nothing
while it is the same. Such a tick is found still on the event loop (`is_still`) and needs
no thread (docs/performance.md, "Still rooms")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tick_data import Audience, Content

if TYPE_CHECKING:
    from ..simulation.live import LiveSimulation


class StillFrames:
    """One room's record of what every client was last sent and when, and of what the last
    tick's frames were made of when they repeated it."""

    def __init__(self, frame_rate: float) -> None:
        self.heartbeat = max(1, round(frame_rate))  # ticks between frames sent anyway
        self.sent: Content = {}
        self.sent_seq = -(10**9)
        #: `key` of the last tick, when its frames repeated what every client had: the same
        #: key again, and the next frames need not be made
        self.last: tuple[object, ...] | None = None

    def note_sent(self, content: Content, seq: int) -> None:
        self.sent, self.sent_seq = content, seq

    def repeats(self, content: Content, seq: int) -> bool:
        """Whether tick `seq`'s frames show what every client was last sent (seq aside), and
        the heartbeat is not due, so that a client (and any proxy between) hears from a paused
        room once a second."""
        return content == self.sent and seq - self.sent_seq < self.heartbeat

    def key(
        self,
        sim: LiveSimulation,
        audience: Audience,
        seen: tuple[int, int],
        seq: int,
        settled: bool,
        wait: bool = True,
    ) -> tuple[object, ...] | None:
        """What tick `seq`'s frames are made of, where they may repeat the last ones without
        being made: paused, the room `settled` (no ghost following another run, its hello
        current), no client lacking a frame, no change under way (`seen`: the room's changes
        and those being carried out), the heartbeat not due. None elsewhere (and, without
        `wait`, while the simulation is busy in another thread)."""
        due = seq - self.sent_seq >= self.heartbeat
        if sim.running or not settled or audience.lacking or seen[1] or due:
            return None
        stamp = sim.stamp(wait)
        return None if stamp is None else (stamp, seen[0], audience.kinds, audience.wired)

    def is_still(
        self,
        sim: LiveSimulation,
        audience: Audience,
        seen: tuple[int, int],
        seq: int,
        settled: bool,
    ) -> bool:
        """Whether tick `seq` would make nothing (its `key` the last tick's), read on the event
        loop without waiting for the simulation: a paused room with one client took its server
        0.040 of a core when each tick hopped to a thread and back to learn it, 0.031-0.037
        without (docs/performance.md, "Still rooms")."""
        if self.last is None or not audience.kinds:
            return False
        key = self.key(sim, audience, seen, seq, settled, wait=False)
        return key is not None and key == self.last
