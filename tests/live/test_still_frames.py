"""A room whose frame does not change (paused, or a world at rest between pushes) sends it
once a second, not at the frame rate: a class of thirty phones watching a paused room got
1,800 identical frames a second. A client still gets a frame at once when it joins, when the
room changes (its hello), and whenever the frame shows something new.

The room is ticked by hand here as the server ticks it (ticking.py: a tick found still on the
event loop makes nothing there, any other is prepared, in a thread there, then delivered), so
these count ticks, not seconds.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from sixdof.cluster.failover import Owned
from sixdof.server.rooms import Room
from sixdof.server.settings import Settings
from sixdof.server.state_frame import dumps_state, frame_content
from sixdof.simulation.live import LiveSimulation

RATE = 60  # frames a second (Settings' default): the heartbeat is every RATE-th tick


class Viewer:
    """A room's client that keeps what it is offered."""

    def __init__(self, binary: bool = False) -> None:
        self.can_control = True
        self.binary = binary
        self.wire = None
        self.last_message_at = -1e9
        self.lacks_frame = True
        self.frames: list[str | bytes] = []
        self.hellos = 0

    @property
    def frames_dropped(self) -> int:
        return 0

    def offer(self, text: str | bytes, wire_frame: bytes | None, now: float) -> None:
        self.lacks_frame = False
        self.frames.append(text)

    def send_hello(self, text: str, frame: bytes) -> None:
        self.lacks_frame = True
        self.hellos += 1

    def send_reply(self, text: str, kind: str = "reply") -> None:
        if kind == "hello":
            self.lacks_frame = True
            self.hellos += 1


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def paused_room() -> tuple[Room, Clock]:
    clock = Clock()
    sim = LiveSimulation({"name": "still", "bodies": [{"Name": "A"}]}, clock=clock, running=False)
    return Room("still", sim, Settings()), clock


def tick(room: Room, clock: Clock, n: int = 1) -> int:
    """Tick `room` n times as ticking.tick_room does; how many ticks were prepared (the rest
    were found still, which in the server needs no thread)."""
    prepared = 0
    for _ in range(n):
        clock.now += 1.0 / RATE
        audience = room.audience()
        if room.tick_is_still(audience):
            room.deliver(room.prepare_still())
        else:
            room.deliver(room.prepare(clock.now, audience))
            prepared += 1
    return prepared


def join(room: Room, viewer: Viewer) -> Viewer:
    room.join(viewer)  # type: ignore[arg-type]  # a Viewer by shape (clients.Viewer)
    return viewer


def test_a_paused_room_sends_its_frame_once_a_second() -> None:
    room, clock = paused_room()
    viewer = join(room, Viewer())
    tick(room, clock, 3 * RATE)
    # the first tick's frame, then one a second: ticks 61 and 121 (the seq counts ticks)
    assert len(viewer.frames) == 3, len(viewer.frames)
    seqs = [int(str(f).split('"seq":')[1].split(",")[0]) for f in viewer.frames]
    assert seqs == [1, 1 + RATE, 1 + 2 * RATE], seqs
    assert len({frame_content(f) for f in viewer.frames}) == 1  # the same state each time


def test_a_running_room_sends_every_frame() -> None:
    room, clock = paused_room()
    room.sim.resume()
    viewer = join(room, Viewer())
    tick(room, clock, RATE)
    assert len(viewer.frames) == RATE


def test_a_client_who_joins_a_paused_room_gets_its_frame_at_the_next_tick() -> None:
    room, clock = paused_room()
    first = join(room, Viewer())
    tick(room, clock, 10)
    second = join(room, Viewer())
    tick(room, clock)
    assert len(second.frames) == 1
    assert len(first.frames) == 1  # the repeat went only to the one who lacked it
    assert frame_content(second.frames[0]) == frame_content(first.frames[0])


def test_a_change_in_a_paused_room_is_sent_at_once() -> None:
    room, clock = paused_room()
    viewer = join(room, Viewer())
    tick(room, clock, 10)
    room.sim.set_input("A", force=[0.0, 0.0, 5.0])  # a push shows in the frame's loads
    tick(room, clock)
    assert len(viewer.frames) == 2
    assert frame_content(viewer.frames[0]) != frame_content(viewer.frames[1])
    tick(room, clock, 10)
    assert len(viewer.frames) == 2  # and then it is still again


def test_after_a_hello_every_client_gets_the_next_frame() -> None:
    room, clock = paused_room()
    viewer = join(room, Viewer())
    tick(room, clock, 10)
    room.sim.set_params("A", Mass=2.0)  # a new hello: the page waits for a frame after it
    tick(room, clock)
    assert viewer.hellos == 2
    assert len(viewer.frames) == 2


def test_a_gateway_joining_a_workers_still_room_gets_the_next_frame() -> None:
    """A cluster's worker: its room's client is the bus; a gateway that joins may hold no frame
    of the room, so the next tick's goes out on the bus though nothing changed."""
    room, clock = paused_room()
    bus = join(room, Viewer())
    tick(room, clock, 10)
    owned = Owned(room, revision=1, viewers={False: bus})  # type: ignore[dict-item]
    owned.joined_by("gateway-2")
    tick(room, clock)
    assert len(bus.frames) == 2
    assert owned.empty_since is None and "gateway-2" in owned.gateways


def test_json_and_binary_clients_alike() -> None:
    room, clock = paused_room()
    text, binary = join(room, Viewer()), join(room, Viewer(binary=True))
    tick(room, clock, RATE + 5)
    assert len(text.frames) == len(binary.frames) == 2
    assert isinstance(binary.frames[0], bytes)
    assert frame_content(binary.frames[0]) == frame_content(binary.frames[1])
    assert binary.frames[0] != binary.frames[1]  # their seqs differ


def test_frame_content_leaves_out_the_seq_only() -> None:
    frame: dict[str, Any] = {"t": 0.5, "status": {"running": False}, "bodies": [{"Pos": [1]}]}
    a, b = dumps_state(7, frame), dumps_state(1234, frame)
    assert a != b and frame_content(a) == frame_content(b)
    assert frame_content(a) != frame_content(dumps_state(7, {**frame, "t": 0.6}))


def counting_encodes(room: Room) -> list[bool]:
    """Every frame the room makes from here on (its kind: binary or not), in a list."""
    made: list[bool] = []
    encode = room._encode

    def counted(binary: bool) -> str | bytes:
        made.append(binary)
        return encode(binary)

    room._encode = counted  # type: ignore[method-assign]
    return made


def test_a_still_room_makes_its_frame_only_around_its_heartbeat() -> None:
    """Not at the frame rate: a paused room whose frame cannot have changed costs a tick's
    checks only (a frame's encoding took ~0.5 ms of CPU a tick on a two-core VM: 0.035 of a
    core for each paused room a class leaves open)."""
    room, clock = paused_room()
    viewer = join(room, Viewer())
    made = counting_encodes(room)
    tick(room, clock, 3 * RATE)
    # the first frame, the tick that finds it repeated, then the heartbeat and the tick after
    assert len(made) <= 2 + 2 * 3, len(made)
    assert len(viewer.frames) == 3  # and every client heard from it as before


def test_a_still_rooms_ticks_need_no_thread_but_around_its_heartbeat() -> None:
    """A paused room's tick that would make nothing is found so on the event loop: it does
    not hop to a thread to learn it (~0.03 of a core at 60 ticks a second)."""
    room, clock = paused_room()
    viewer = join(room, Viewer())
    prepared = tick(room, clock, 3 * RATE)
    assert prepared <= 2 + 2 * 3, prepared  # the first two, then each heartbeat and the tick after
    assert len(viewer.frames) == 3
    room.sim.resume()
    assert tick(room, clock, 5) == 5  # running: every tick's physics in a thread


def test_the_loop_does_not_wait_for_a_simulation_busy_in_another_thread() -> None:
    """A still room whose simulation another thread holds (a change, a long step) is ticked
    in a thread, as any other: the event loop never waits for the physics' lock."""
    room, clock = paused_room()
    join(room, Viewer())
    tick(room, clock, 10)
    assert room.tick_is_still(room.audience())
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with room.sim.lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        assert not room.tick_is_still(room.audience())  # without waiting for the lock
    finally:
        release.set()
        holder.join()
    assert room.tick_is_still(room.audience())


def test_a_running_room_makes_every_ticks_frame() -> None:
    room, clock = paused_room()
    join(room, Viewer())
    made = counting_encodes(room)
    room.sim.resume()
    tick(room, clock, 10)
    assert len(made) == 10  # running: every tick's


#: What can change a paused room's frame, each applied to a room gone still.
CHANGES = {
    "push": lambda sim: sim.set_input("A", force=[0.0, 0.0, 5.0], channel="push"),
    "constant at a point": lambda sim: sim.set_input("A", force=[1.0, 0.0, 0.0], point=[0, 0, 1]),
    "moment in body axes": lambda sim: sim.set_input("A", moment=[0, 0, 2.0], frame="body"),
    "a drag spring": lambda sim: sim.set_input(
        "A", channel="push", point=[0, 0, 0.5],
        spring={"target": [1, 0, 0], "stiffness": 10.0, "damping": 1.0}),
    "mass": lambda sim: sim.set_params("A", Mass=2.0),
    "a reset of its spin": lambda sim: sim.reset("A", {"AngVel": [0.0, 0.0, 1.0]}),
    "a step": lambda sim: sim.step(1),
    "the time scale": lambda sim: sim.set_time_scale(0.5),
    "an element": lambda sim: sim.set_elements(
        [{"kind": "spring", "body": "A", "stiffness": 50.0, "to": [0, 0, -1]}]),
    "a pause's reason": lambda sim: sim.pause(reason="diverged: a test"),
}  # fmt: skip


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_change_to_a_still_room_shows_in_the_next_tick(change: Any) -> None:
    room, clock = paused_room()
    viewer = join(room, Viewer())
    tick(room, clock, 10)  # still: frames no longer made
    made = counting_encodes(room)
    tick(room, clock, 5)
    assert made == []
    change(room.sim)
    now = frame_content(dumps_state(0, room.sim.frame()))
    tick(room, clock)
    # a frame at once, of the world as it is now (a mass shows in the hello, and the page
    # waits for a frame after one)
    assert len(viewer.frames) == 2
    assert frame_content(viewer.frames[-1]) == now
