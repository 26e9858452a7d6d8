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
step) and a chain of 20 links on hinges (target: live at 1 ms RK4 on ≤ 25 % of one core),
each with the path its steps take (kernel.joint_paths: "tree", in the hinges' angles);
a PID controller; a buoy moored by a cable of 10, 20 and 40 segments (issue 44: the line's
inner nodes are states stepped with the body, drag and buoyancy on each), printed again in
µs per step with what its frame's outputs cost (dynamics/cable_lines.py, per frame).
"× free" is the case's cost per body-step over the free body's; the issue's target: a
pivoted or sprung body ≤ 2 × a free body.

Live: the 20-link chain as a room runs it (simulation.LiveSimulation, RK4 at 1 ms): 17 steps
and a state frame a tick, 60 ticks a second, everything on the way included (the history's
outputs, the joints' gaps and reactions, the frame); its CPU time for one simulated second
is its share of a core, the issue's figure.

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
from sixdof.dynamics.cable_lines import lines
from sixdof.dynamics.elements import (
    Cable,
    ContactShape,
    Controller,
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
CABLE_SEGMENTS = (10, 20, 40)
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
    states: bool = False  # its elements carry states (issue 44), not in the rooms' mix


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
        Case("PID controller (6 axes, 6 states)", [body],
             [Controller(0, "pid", target_pos=(0.2, 0.1, 0.0), kp=(50.0,) * 6, ki=(5.0,) * 6,
                         kd=(20.0,) * 6, limit=(100.0,) * 6)], moving[None], states=True),
        *(moored(n) for n in CABLE_SEGMENTS),
    ]  # fmt: skip


def moored(segments: int) -> Case:
    """A 200 kg buoy at the surface on 30 m of chain to an anchor 20 m down and 20 m away
    (slack, in water: weight, buoyancy, Morison drag on every node), moving."""
    buoy = BodyParams.from_radii(200.0, (0.5, 0.5, 0.5), gravity=G)
    line = Cable(0, (0.0, 0.0, 0.5), (20.0, 0.0, 20.0), 30.0, segments, 20.0, 1e8, 0.05,
                 ends=((0.0, 0.0, 0.5), (20.0, 0.0, 20.0)))  # fmt: skip
    x0 = make_state((0.0, 0.0, 0.0), UPRIGHT, (0.5, 0.2, 0.0), (0.0, 0.0, 0.1))[None]
    return Case(f"cable, {segments} segments", [buoy], [line], x0, states=True)


def frame_cost(case: Case, calls: int, repeat: int) -> float:
    """Seconds per frame of a cable's outputs (nodes, tensions, end forces, seabed, energy:
    what payload.py and engine.py read of it), at its initial states."""
    pk = K.pack(Bodies.of(case.params), case.elements)
    z = K.element_states(pk, None)

    def run() -> None:
        for _ in range(calls):
            lines(pk.system, pk.bodies, case.x0, z)

    return best_of(run, repeat) / calls


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
    z = K.element_states(pk, None) if pk.system is not None else None

    def run() -> None:
        x[:] = case.x0
        if z is not None and pk.system is not None:
            z[:] = pk.system.initial_states()
        K.advance(pk, x, u, STEP, n_steps, "rk4", 0.0, z)

    return best_of(run, repeat) / (n_steps * len(case.params))


def per_call(case: Case, calls: int, repeat: int) -> float:
    """Seconds per `advance` call of one step: what a caller pays around the kernel."""
    pk = K.pack(Bodies.of(case.params), case.elements)
    x = np.array(case.x0, order="C")
    u = np.zeros((len(case.params), 6))
    z = K.element_states(pk, None) if pk.system is not None else None

    def run() -> None:
        x[:] = case.x0
        for _ in range(calls):
            K.advance(pk, x, u, STEP, 1, "rk4", 0.0, z)

    return best_of(run, repeat) / calls


def live_chain(links: int, seconds: float, repeat: int) -> dict[str, Any]:
    """The chain of `chain(links)` as a live room: CPU seconds per simulated second of ticks of
    STEPS_PER_TICK steps and a frame (the share of a core it takes running live)."""
    from sixdof.scenario import Scenario
    from sixdof.simulation import LiveSimulation

    case = chain(links)
    r = 0.2 / math.sqrt(12)
    bodies = [{"Name": f"L{i}", "Mass": 0.5, "InertiaRadi": [r, r, 1e-3], "Gravity": G,
               "Pos": case.x0[i, 0:3].tolist(), "AngVel": case.x0[i, 10:13].tolist()}
              for i in range(links)]  # fmt: skip
    joints: list[dict[str, Any]] = [{"kind": "joint", "type": "hinge", "body": "L0",
                                     "point": [0.0, 0.0, -0.1]}]  # fmt: skip
    joints += [{"kind": "joint", "type": "hinge", "body": f"L{i}", "point": [0.0, 0.0, -0.1],
                "to": {"body": f"L{i - 1}", "point": [0.0, 0.0, 0.1]}}
               for i in range(1, links)]  # fmt: skip
    spec = {"name": "chain", "bodies": bodies, "elements": joints,
            "integration": {"method": "rk4", "stepsize": STEP}}  # fmt: skip
    sim = LiveSimulation(Scenario.model_validate(spec))
    ticks = max(1, round(seconds * FRAME_RATE))

    def run() -> None:
        for _ in range(ticks):
            sim.step(STEPS_PER_TICK)
            sim.frame()

    share = best_of(run, repeat) / (ticks * STEPS_PER_TICK * STEP)
    return {"links": links, "share_of_core": share, "met": share <= 0.25}


def rooms(n_rooms: int, ticks: int, repeat: int) -> dict[str, Any]:
    """n_rooms rooms, each a case in turn, stepped together one `advance` per tick."""
    every = [c for c in cases() if not (c.joined or c.states)]  # the mix before joints
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
        if any(isinstance(e, Cable) for e in case.elements):
            rows[-1]["us_per_frame_outputs"] = 1e6 * frame_cost(case, max(10, int(2000 * scale)),
                                                                repeat)  # fmt: skip
    free = rows[0]["ns_per_body_step"]
    for case, row in zip(cases(), rows, strict=True):
        row["times_free"] = row["ns_per_body_step"] / free
        row["goal"] = goal(case, row["times_free"], row["ns_per_body_step"])
        if case.joined:  # which way its steps go: its hinges' angles, or the general solve
            row["paths"] = K.joint_paths(K.pack(Bodies.of(case.params), case.elements))
            row["goal"] += f" ({', '.join(row['paths'])} path)"
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
        "live_chain": live_chain(CHAIN_LINKS, max(0.2, 2.0 * scale), repeat),
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
    free = results["cases"][0]["ns_per_body_step"]
    for r in results["cases"]:
        if "us_per_frame_outputs" in r:
            lines.append(
                f"{r['case']}: {r['ns_per_body_step'] / 1e3:.2f} µs a step against "
                f"{free / 1e3:.3f} µs for the free body ({r['times_free']:.0f} × free), "
                f"{r['us_per_frame_outputs']:.0f} µs for a frame's outputs"
            )
    c = results["live_chain"]
    lines.append(
        f"chain of {c['links']} links live (a room: {STEPS_PER_TICK} steps and a frame a tick): "
        f"{100 * c['share_of_core']:.1f} % of a core, ≤ 25 %: {'met' if c['met'] else 'MISSED'}"
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
