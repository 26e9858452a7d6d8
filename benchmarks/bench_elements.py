"""Cost per RK4 step of bodies held, sprung, damped, stopped or driven (issue 27's elements),
against a free body, and 100 rooms with elements stepped as the server steps them.

    python benchmarks/bench_elements.py                 # table
    python benchmarks/bench_elements.py --json out.json # table, and the numbers as JSON
    python benchmarks/bench_elements.py --quick         # fewer steps (a smoke run)

Cases (RK4, h = 1 ms, the `full` model, one compiled call of many steps each, the least
CPU time of `--repeat` runs after a warm-up, so other work on a busy machine counts less): a
free body (the per-body kernel), a compound pendulum (pivot), a body on a world spring with a
rest length, a Fossen damper, a sine load, a ball rolling on the ground, a box resting on its
face (four corners touching), two bodies joined by a spring (per body-step); and two
mechanisms (issue 41), a double pendulum on two hinges (target: ≤ 3 × two free bodies a
step) and a chain of 20 links on hinges (target: live at 1 ms RK4 on ≤ 25 % of one core).
"× free" is the case's cost per body-step over the free body's; the issue's target: a
pivoted or sprung body ≤ 2 × a free body.

Rooms: 100 rooms, each one of the cases above but the mechanisms (in turn), packed into one
batch with `kernel.concat` and advanced by one `kernel.advance` per tick with per-body
steps, step counts, methods and times, as simulation/engine.py does: 17 steps a tick (60 Hz
at 1 kHz).
The figure is the time per tick and its share of a 60 Hz tick (16.7 ms).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import (
    ContactShape,
    Damper,
    Element,
    Ground,
    Joint,
    Pivot,
    Spring,
    TimedLoad,
)
from sixdof.dynamics.layout import LOAD_SIZE

STEP = 1e-3
FRAME_RATE = 60.0
STEPS_PER_TICK = 17  # 1 kHz at 60 Hz: 16.7 steps a tick
TARGET_RATIO = 2.0  # a pivoted or sprung body costs at most this many free bodies
PAIR_RATIO = 3.0  # a double pendulum's step costs at most this many two free bodies' steps
CHAIN_LINKS = 20
G = 9.81
UPRIGHT = (1.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Case:
    name: str
    params: list[BodyParams]
    elements: list[Element]
    x0: np.ndarray  # (N, 13)
    target: bool = False  # held to TARGET_RATIO
    joined: bool = False  # a mechanism (issue 41's targets), not in the rooms' mix


def tilted(angle: float) -> tuple[float, float, float, float]:
    return (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)


def cases() -> list[Case]:
    body = BodyParams.from_radii(2.0, (0.2, 0.3, 0.25), gravity=G)
    ball = BodyParams.from_radii(1.0, (math.sqrt(0.4) * 0.1,) * 3, gravity=G)
    box = BodyParams.from_radii(1.0, (0.1, 0.12, 0.14), gravity=G)
    swinging = make_state((0.0, 0.0, 0.0), tilted(1.0), (0.0, 0.0, 0.0), (0.3, 0.0, 0.2))
    moving = make_state((0.3, 0.1, 0.0), tilted(0.3), (0.5, -0.2, 0.1), (0.3, 2.0, 0.5))
    sphere = ContactShape("sphere", (0.0, 0.0, 0.0), (0.1, 0.1, 0.1))
    faces = ContactShape("box", (0.0, 0.0, 0.0), (0.2, 0.15, 0.1))
    return [
        Case("free body", [body], [], moving[None]),
        Case("pivot (compound pendulum)", [body], [Pivot(0, (0.0, 0.0, -0.5), (0.0, 0.0, 0.0))],
             swinging[None], target=True),
        Case("spring to a world point", [body],
             [Spring(0, (0.1, 0.0, 0.0), (0.0, 0.0, 0.0), 50.0, 0.5, 0.2)], moving[None],
             target=True),
        Case("damper (linear + quadratic)", [body],
             [Damper(0, (1.0, 1.0, 2.0, 0.1, 0.1, 0.1), (0.5,) * 6)], moving[None]),
        Case("sine load", [body],
             [TimedLoad(0, (1.0, 0.0, 0.0), signal="sine", amplitude=2.0, frequency=1.0)],
             moving[None]),
        Case("ground: rolling ball", [ball], [Ground(0, sphere, 0.0, 0.5, 0.3)],
             make_state((0.0, 0.0, -0.1 + G / 2e4), UPRIGHT, (1.0, 0.0, 0.0),
                        (0.0, -10.0, 0.0))[None]),
        Case("ground: box on its face", [box], [Ground(0, faces, 0.0, 0.5, 0.5)],
             make_state((0.0, 0.0, -0.1 + G / 8e4), UPRIGHT, (0.0, 0.0, 0.0),
                        (0.0, 0.0, 0.0))[None]),
        Case("two bodies joined by a spring", [body, body],
             [Spring(0, (0.1, 0.0, 0.0), (0.0, 0.1, 0.0), 50.0, 0.5, 1.0, other=1)],
             np.stack([moving, make_state((1.2, 0.0, 0.0), UPRIGHT, (0.0, 0.0, 0.0),
                                          (0.0, 1.0, 0.0))])),
        Case("double pendulum (two hinges)", [body, body],
             [Joint(0, "hinge", (0.0, 0.0, -0.5), (0.0, 0.0, 0.0)),
              Joint(1, "hinge", (0.0, 0.0, -0.5), (0.0, 0.0, 0.5), other=0)],
             np.stack([make_state((0.0, 0.0, 0.5), UPRIGHT, (0.0, 0.0, 0.0), (0.0, 2.0, 0.0)),
                       make_state((0.0, 0.0, 1.5), UPRIGHT, (0.0, 0.0, 0.0),
                                  (0.0, -3.0, 0.0))]), joined=True),
        chain(CHAIN_LINKS),
    ]  # fmt: skip


def chain(links: int) -> Case:
    """A chain of 0.2 m links on hinges, hanging from a world point, the top one swinging."""
    link = BodyParams.from_radii(0.5, (0.2 / math.sqrt(12), 0.2 / math.sqrt(12), 1e-3), gravity=G)
    joints = [Joint(0, "hinge", (0.0, 0.0, -0.1), (0.0, 0.0, 0.0))]
    joints += [Joint(i, "hinge", (0.0, 0.0, -0.1), (0.0, 0.0, 0.1), other=i - 1)
               for i in range(1, links)]  # fmt: skip
    x0 = np.array([make_state((0.0, 0.0, 0.2 * (i + 0.5)), UPRIGHT, (0.0, 0.0, 0.0),
                              (0.0, 0.5, 0.0)) for i in range(links)])  # fmt: skip
    return Case(f"chain of {links} links (hinges)", [link] * links, joints, x0, joined=True)


def goal(case: Case, times_free: float, ns_per_body_step: float) -> str:
    """Issue 41's targets: a double pendulum ≤ 3 × two free bodies a step, a 20-link chain
    live at 1 ms RK4 on ≤ 25 % of one core."""
    if not case.joined:
        return ""
    if len(case.params) == 2:
        return (
            f"≤ {PAIR_RATIO:g} × two free bodies: {'met' if times_free <= PAIR_RATIO else 'MISSED'}"
        )
    share = ns_per_body_step * 1e-9 * len(case.params) / STEP
    return f"{100 * share:.1f} % of a core at 1 kHz, ≤ 25 %: {'met' if share <= 0.25 else 'MISSED'}"


def best_of(run: Callable[[], None], repeat: int) -> float:
    """The least CPU time (this process's, all threads) of `repeat` runs after a warm-up:
    CPU time, not wall time, so that other work on a shared machine does not count."""
    run()  # warm-up: compiles or loads the signature, touches the memory
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def per_body_step(case: Case, n_steps: int, repeat: int) -> float:
    """Seconds per body-step of `case`: n_steps RK4 steps in one `advance` call."""
    pk = K.pack(Bodies.of(case.params), case.elements)
    x = np.array(case.x0, order="C")
    u = np.zeros((len(case.params), 6))

    def run() -> None:
        x[:] = case.x0
        K.advance(pk, x, u, STEP, n_steps, "rk4")

    return best_of(run, repeat) / (n_steps * len(case.params))


def per_call(case: Case, calls: int, repeat: int) -> float:
    """Seconds per `advance` call of one step: what a caller pays around the kernel."""
    pk = K.pack(Bodies.of(case.params), case.elements)
    x = np.array(case.x0, order="C")
    u = np.zeros((len(case.params), 6))

    def run() -> None:
        x[:] = case.x0
        for _ in range(calls):
            K.advance(pk, x, u, STEP, 1, "rk4")

    return best_of(run, repeat) / calls


def rooms(n_rooms: int, ticks: int, repeat: int) -> dict[str, Any]:
    """n_rooms rooms, each a case in turn, stepped together one `advance` per tick."""
    every = [c for c in cases() if not c.joined]  # the mix as it was before joints
    picked = [every[r % len(every)] for r in range(n_rooms)]
    packs = [K.pack(Bodies.of(c.params), c.elements) for c in picked]
    pk = K.concat(packs)
    sizes = np.array([len(p) for p in packs], dtype=np.int64)
    x0 = np.concatenate([c.x0 for c in picked])
    x = np.array(x0, order="C")
    u = np.zeros((len(x), LOAD_SIZE))  # load rows, as the engine passes them
    h_rows = np.full(len(x), STEP)
    codes = np.ones(len(x), dtype=np.int64)
    counts = np.repeat(np.full(n_rooms, STEPS_PER_TICK, dtype=np.int64), sizes)
    per_tick: list[float] = []

    def run() -> None:
        x[:] = x0
        t_room = np.zeros(n_rooms)
        for _ in range(ticks):
            start = time.process_time()
            K.advance(pk, x, u, h_rows, counts, codes, np.repeat(t_room, sizes))
            per_tick.append(time.process_time() - start)
            t_room += STEPS_PER_TICK * STEP

    best = best_of(run, repeat) / ticks
    tick = 1.0 / FRAME_RATE
    measured = np.array(per_tick[ticks:])  # after the warm-up
    return {
        "rooms": n_rooms,
        "bodies": len(x),
        "steps_per_tick": STEPS_PER_TICK,
        "tick_ms": 1e3 * best,
        "tick_p99_ms": 1e3 * float(np.percentile(measured, 99)),
        "share_of_60hz_tick": best / tick,
        "ns_per_body_step": 1e9 * best / (len(x) * STEPS_PER_TICK),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write every number here")
    parser.add_argument("--quick", action="store_true", help="fewer steps: a smoke run")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    results = run_all(0.05 if args.quick else 1.0, 1 if args.quick else args.repeat)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def run_all(scale: float, repeat: int) -> dict[str, Any]:
    """Every figure: per case (ns per body-step, × free, µs per one-step call) and rooms."""
    load_before = os.getloadavg()
    warm = K.warm_up()
    n_steps = max(100, int(200_000 * scale))
    rows = []
    for case in cases():
        seconds = per_body_step(case, n_steps, repeat)
        call = per_call(case, max(10, int(2000 * scale)), repeat)
        rows.append({"case": case.name, "bodies": len(case.params), "target": case.target,
                     "ns_per_body_step": 1e9 * seconds, "us_per_call": 1e6 * call})  # fmt: skip
    free = rows[0]["ns_per_body_step"]
    for case, row in zip(cases(), rows, strict=True):
        row["times_free"] = row["ns_per_body_step"] / free
        row["goal"] = goal(case, row["times_free"], row["ns_per_body_step"])
    return {
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "numba": numba.__version__,
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
            "warm_up_s": warm,
        },
        "cases": rows,
        "rooms": rooms(100, max(10, int(300 * scale)), repeat),
    }


def render(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        f"elements, RK4 at h = 1 ms; {m['cores']} cores, Python {m['python']}, numba "
        f"{m['numba']}; load average {m['load_average_before'][0]:.1f} before, "
        f"{m['load_average_after'][0]:.1f} after",
        f"{'case':34} {'ns/body-step':>13} {'× free':>7} {'µs/call':>8}  target",
    ]
    for r in results["cases"]:
        target = ""
        if r["target"]:
            ok = r["times_free"] <= TARGET_RATIO
            target = f"≤ {TARGET_RATIO:g} × free: {'met' if ok else 'MISSED'}"
        target = target or r["goal"]
        lines.append(
            f"{r['case']:34} {r['ns_per_body_step']:13.0f} {r['times_free']:7.2f} "
            f"{r['us_per_call']:8.1f}  {target}"
        )
    w = results["rooms"]
    lines.append(
        f"{w['rooms']} rooms with elements ({w['bodies']} bodies), {w['steps_per_tick']} steps a "
        f"tick, one advance: {w['tick_ms']:.2f} ms a tick (p99 {w['tick_p99_ms']:.2f}), "
        f"{100 * w['share_of_60hz_tick']:.1f} % of a 60 Hz tick, "
        f"{w['ns_per_body_step']:.0f} ns/body-step"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
