"""What taking a 64-body room back into its past costs the event loop, beside the
re-simulation (which runs in pieces): `Timeline.go_back` (keeping what an undo needs) and
`Timeline.undo`, against what a whole copy of the past (the history, 8 MiB, and the
recording) cost before they were shared.

    .venv/bin/python benchmarks/bench_undo.py [--rounds 20] [--bodies 64]

A paused room with a full history (history_bytes 8 MiB) and recording; each round goes
back to a random past frame, steps the room 30 frames on (overwriting rows the undo must
give back), and undoes. Prints median and max in ms of each part.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from sixdof.simulation.live import LiveSimulation
from sixdof.simulation.replay import go_back
from sixdof.simulation.timeline import Timeline


def timed(record: list[float], fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            record.append(time.perf_counter() - started)

    return wrapper


def figures(name: str, seconds: list[float]) -> None:
    ms = [s * 1e3 for s in seconds]
    print(f"{name:<34} median {statistics.median(ms):7.3f} ms   max {max(ms):7.3f} ms   "
          f"({len(ms)} calls)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--bodies", type=int, default=64)
    args = parser.parse_args()
    bodies = [{"Name": f"B{i}", "Pos": [i, 0, 0], "Gravity": 0.0} for i in range(args.bodies)]
    scenario = {"name": "crowd", "bodies": bodies}
    sim = LiveSimulation(scenario, running=False, history_bytes=8 << 20, recording_bytes=8 << 20)
    for _ in range(60):  # 30 s, in steps shorter than the history (a long one skips its rows)
        sim.step(500)
    rec = sim.recording
    assert rec is not None
    print(
        f"{args.bodies} bodies: history {len(sim.history)} rows, {sim.history.nbytes / 2**20:.1f}"
        f" MiB; recording {len(rec.segments)} segments, {rec.nbytes / 2**20:.2f} MiB"
    )
    backs: list[float] = []
    undos: list[float] = []
    timeline = sim.timeline
    timeline.go_back = timed(backs, timeline.go_back)  # type: ignore[method-assign]
    timeline.undo = timed(undos, timeline.undo)  # type: ignore[method-assign]
    rng = random.Random(1)
    for _ in range(args.rounds):
        times = sim.history.times
        go_back(sim, float(times[rng.randrange(1, len(times) - 1)]))
        sim.step(30 * sim.steps_per_row())
        sim.undo_go_back()
    figures("Timeline.go_back (kept for undo)", backs)
    figures("Timeline.undo", undos)
    copies: list[float] = []
    held: list[Any] = []
    for _ in range(args.rounds):  # what go_back did before: the past copied whole, and kept
        started = time.perf_counter()
        held = [*held[-1:], (timeline.history.copy(), rec.copy())]
        copies.append(time.perf_counter() - started)
    figures("before: history + recording copied", copies)
    assert isinstance(timeline, Timeline)


if __name__ == "__main__":
    main()
