"""The longest piece a 64-body ghost's rebuild holds the event loop for, inside a tick.

    .venv/bin/python benchmarks/bench_ghost_pieces.py [--rounds 5] [--bodies 64]

A paused room of `--bodies` bodies with a ghost; each round takes the room back into its
past and steps it on, and the ghost is rebuilt from a keyframe whose world is not kept
(MOMENTS cleared: the scenario is read again): once piece by piece by hand, each piece timed
(`offload`: one the generator hands out whole, which a tick runs in place), then as the
server's ticks do, each `Ghost.follow` call timed. In CPU time of this thread
(`time.thread_time`: a loaded machine does not inflate it) and wall time. Prints the most
pieces of a rebuild, the longest piece and the longest `follow`.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from sixdof.simulation.ghost import PIECE_SECONDS, REBUILD_SECONDS, Ghost
from sixdof.simulation.live import LiveSimulation
from sixdof.simulation.replay import MOMENTS, Offload, go_back


def room(bodies: int) -> LiveSimulation:
    crowd = {"name": "crowd", "bodies": [{"Name": f"B{i}", "Pos": [i, 0, 0.1 * i]}
                                         for i in range(bodies)]}  # fmt: skip
    sim = LiveSimulation(crowd, running=False, recording_bytes=8 << 20)
    sim.set_input("B1", [1.0, 0.0, 0.0], [0.0, 0.0, 0.2])
    sim.step(3000)
    sim.set_params("B2", Mass=3.0)
    sim.step(3000)
    return sim


def pieces(ghost: Ghost) -> list[tuple[str, float, float]]:
    """The pieces of a rebuild as `follow` makes it, run to its end: (kind, CPU s, wall s)
    each."""
    rebuild = ghost._building(min(PIECE_SECONDS, REBUILD_SECONDS / 3))
    out: list[tuple[str, float, float]] = []
    value: Any = None
    while True:
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            asked = rebuild.send(value)
        except StopIteration:
            break
        out.append(("piece", time.thread_time() - cpu, time.perf_counter() - wall))
        value = None
        if isinstance(asked, Offload):
            cpu, wall = time.thread_time(), time.perf_counter()
            value = asked.fn(*asked.args)
            name = getattr(asked.fn, "__name__", "?")
            out.append((f"offload {name}", time.thread_time() - cpu, time.perf_counter() - wall))
    return out


def follows(ghost: Ghost) -> list[tuple[float, float]]:
    """(CPU s, wall s) of each tick's `follow` until the rebuild is done."""
    out = []
    while True:
        cpu, wall = time.thread_time(), time.perf_counter()
        ghost.follow()
        out.append((time.thread_time() - cpu, time.perf_counter() - wall))
        if not ghost.rebuilding:
            return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bodies", type=int, default=64)
    args = parser.parse_args()
    sim = room(args.bodies)
    for changes in ({"Mass": 2.0}, {"model": "fhsim"}, {"integrator": "rk4", "step": 0.0005}):
        ghost = Ghost(sim, changes)
        longest: list[tuple[str, float, float]] = []
        ticks: list[tuple[float, float]] = []
        count = 0
        for r in range(args.rounds):
            go_back(sim, 1.0 + 0.1 * r)
            sim.step(500)
            MOMENTS._kept.clear()  # the keyframe's scenario read again
            found = pieces(ghost)
            count = max(count, len(found))
            longest.append(max(found, key=lambda p: p[1]))
            MOMENTS._kept.clear()
            ticks += follows(ghost)  # the rebuild again, as the ticks run it
        kind, cpu, wall = max(longest, key=lambda p: p[1])
        tick_cpu, tick_wall = max(ticks)
        print(f"{changes!s:<42} {count:4d} pieces; the longest: {kind:<22} "
              f"{cpu * 1e3:6.2f} ms CPU ({wall * 1e3:6.2f} wall); the longest follow() "
              f"{tick_cpu * 1e3:6.2f} ms CPU ({tick_wall * 1e3:6.2f} wall)")  # fmt: skip
        ghost.close()


if __name__ == "__main__":
    main()
