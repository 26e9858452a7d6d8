"""Cost per RK4 step of a floating body (issue 28's buoyancy) by hull size, against a free body.

    python benchmarks/bench_water.py            # table
    python benchmarks/bench_water.py --quick    # fewer steps (a smoke run)
    python benchmarks/bench_water.py --live     # the live rooms only (issue 42's figure)

Each hull floats at about half its height, heeled and heaving a little (RK4, h = 1 ms, the
`full` model), in still water and in two wave components. The hulls: the shipped box (12
triangles), cylinder (160), ship (652) and sphere (960), and icospheres of 1280 and 5120
triangles built here. In still water a stage clips only the triangles along the waterline
(the hull's tree, dynamics/hull_tree.py); in waves it clips every triangle, so the cost grows
with the triangle count; "× free" is the case's cost per step over the free body's (the issue's
target: a hull of a few thousand triangles ≤ 4 × a free body). CPU time, least of
`--repeat` runs after a warm-up, so other work on a shared machine counts less.

Then the same hulls as a user meets them, a live room each (`LiveSimulation`, 60 Hz ticks of
17 steps with the outputs, history and frame), CPU per tick against a free body's room; the
last a sphere of 100,000 triangles from a file, floating on its simplified physics hull
(scenario/physics_hull.py; issue 42's target: ≤ 4 × a free room).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Buoyancy, Element
from sixdof.dynamics.water import Water, Wave
from sixdof.scenario import Scenario
from sixdof.scenario.elements import hull_triangles

STEP = 1e-3
RHO = 1025.0
#: Issue 42: a room floating a 100,000-triangle mesh (on its physics hull) may cost at most
#: this many times a free body's room per tick.
FINE_TARGET = 4.0


def icosphere(subdivisions: int) -> np.ndarray:
    """A unit-diameter icosphere, (20 · 4ⁿ, 3, 3), outward."""
    t = (1.0 + math.sqrt(5.0)) / 2.0
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
         (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]  # fmt: skip
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]  # fmt: skip
    pts = np.array(v, dtype=float)
    tri = pts[np.array(f)]
    for _ in range(subdivisions):
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        ab, bc, ca = (a + b) / 2, (b + c) / 2, (c + a) / 2
        tri = np.concatenate(
            [np.stack(s, axis=1) for s in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))]
        )
    return 0.5 * tri / np.linalg.norm(tri, axis=2, keepdims=True)


def hulls() -> list[tuple[str, np.ndarray]]:
    out = []
    for mesh in ("box.stl", "cylinder.glb", "ship.glb", "fhSphere.mesh"):
        sc = Scenario.model_validate({"bodies": [{"Name": "B", "Mesh": mesh}]})
        out.append((mesh, hull_triangles(sc.bodies[0])))
    out.append(("icosphere 3", icosphere(3)))
    out.append(("icosphere 4", icosphere(4)))
    return out


def per_step(
    params: BodyParams, elements: list[Element], x0: np.ndarray, n: int, repeat: int
) -> float:
    pk = K.pack(Bodies.of([params]), elements)
    x = np.array(x0[None], order="C")
    u = np.zeros((1, 6))

    def run() -> None:
        x[:] = x0
        K.advance(pk, x, u, STEP, n, "rk4")

    run()
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--live", action="store_true", help="only the live rooms")
    args = parser.parse_args()
    n = 2000 if args.quick else 20000
    K.warm_up()
    if args.live:
        return live_ticks(120 if args.quick else 600)
    q = (math.cos(0.05), math.sin(0.05), 0.0, 0.0)
    x0 = make_state((0.0, 0.0, 0.02), q, (0.0, 0.0, 0.05), (0.1, 0.0, 0.0))
    free = per_step(BodyParams.from_radii(100.0, (0.3, 0.3, 0.3), gravity=9.81), [], x0, n * 10,
                    args.repeat)  # fmt: skip
    print(f"free body: {1e9 * free:.0f} ns per step")
    print(
        f"{'hull':<16}{'triangles':>10}{'still ns':>12}{'× free':>9}{'waves ns':>12}{'× free':>9}"
    )
    waves = Water(waves=(Wave(0.2, 6.0, 0.0), Wave(0.1, 4.0, 30.0)))
    for name, tri in hulls():
        volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6
        params = BodyParams.from_radii(0.5 * RHO * volume, (0.3, 0.3, 0.3), gravity=9.81)
        still = per_step(params, [Buoyancy(0, tri, Water())], x0, n, args.repeat)
        wavy = per_step(params, [Buoyancy(0, tri, waves)], x0, n, args.repeat)
        print(f"{name:<16}{len(tri):>10}{1e9 * still:>12.0f}{still / free:>9.1f}"
              f"{1e9 * wavy:>12.0f}{wavy / free:>9.1f}")  # fmt: skip
    live_ticks(120 if args.quick else 600)


#: Ticks a room runs in turn before the next room's (`per_tick`).
BLOCK = 30


def per_tick(scenarios: list[Scenario], ticks: int) -> list[tuple[float, float]]:
    """CPU seconds of one 60 Hz tick of each live room (advance to the clock, with its
    outputs and history, and the frame its viewers are sent): (median, p99) over `ticks`
    ticks. The rooms take turns, BLOCK ticks at a time, so on a shared machine the load
    varies alike for each (one room after the other, a change of load between them moved
    the ratio by 20 %); the first tick of a turn, on caches the other rooms filled, and the
    first turn, a warm-up, are not counted (tick by tick, the free room's cold caches made
    it ~40 % dearer, a more flattering ratio)."""
    from sixdof.simulation import LiveSimulation

    clocks = [[0.0] for _ in scenarios]
    sims = [
        LiveSimulation(scenario, clock=lambda now=now: now[0])
        for scenario, now in zip(scenarios, clocks, strict=True)
    ]
    samples: list[list[float]] = [[] for _ in sims]
    turn = 0
    while len(samples[0]) < ticks:
        for sim, now, times in zip(sims, clocks, samples, strict=True):
            for k in range(BLOCK):
                now[0] += 1.0 / 60.0
                start = time.process_time()
                sim.advance()
                sim.frame()
                if turn > 0 and k > 0:
                    times.append(time.process_time() - start)
        turn += 1
    return [(float(np.median(t)), float(np.percentile(t, 99))) for t in samples]


def live_ticks(ticks: int) -> None:
    """The same hulls as a user meets them: one room each, the whole tick a server spends on
    it (17 steps of 1 ms, outputs, Draft and StoredEnergy, the frame), against a free room."""
    from sixdof.scenario.presets import PRESETS

    sphere = Scenario.model_validate({"bodies": [{"Name": "B", "Mesh": "fhSphere.mesh",
        "Mass": 0.5 * RHO * math.pi / 6, "InertiaRadi": [0.2, 0.2, 0.2]}],
        "elements": [{"kind": "buoyancy", "body": "B"}]})  # fmt: skip
    fine, hull = fine_sphere()
    rooms = [
        ("free body", Scenario.model_validate({"bodies": [{"Name": "B", "Mass": 820.0}]})),
        ("floating_box (12)", PRESETS["floating_box"].scenario()),
        ("heeled_ship (652)", PRESETS["heeled_ship"].scenario()),
        ("sphere (960)", sphere),
        ("buoy_in_waves (160)", PRESETS["buoy_in_waves"].scenario()),
        (f"sphere 100k ({hull})", fine),
    ]
    print(f"\nlive room, CPU per 60 Hz tick over {ticks}+ ticks, the rooms taking turns")
    print(f"{'room':<22}{'median µs':>11}{'p99 µs':>9}{'× free':>9}")
    timed = per_tick([scenario for _, scenario in rooms], ticks)
    base = timed[0][0]
    ratio = math.nan
    for (name, _), (median, p99) in zip(rooms, timed, strict=True):
        ratio = median / base
        print(f"{name:<22}{1e6 * median:>11.0f}{1e6 * p99:>9.0f}{ratio:>9.1f}")
    verdict = "met" if ratio <= FINE_TARGET else "MISSED"
    print(f"the 100,000-triangle sphere's room: {ratio:.2f} × a free room's tick "
          f"(asked: ≤ {FINE_TARGET:g} ×): {verdict}")  # fmt: skip


def fine_sphere() -> tuple[Scenario, int]:
    """A floating room of a 1 m UV sphere of ~100,000 triangles, uploaded as an STL would
    be, and the triangles of the hull it floats on."""
    import struct

    import trimesh

    from sixdof.meshfiles import checked
    from sixdof.meshstore import mesh_store, remember_name

    tri = trimesh.creation.uv_sphere(radius=0.5, count=[115, 225]).triangles.astype("<f4")
    rec = np.zeros(len(tri), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = tri
    data = b"\0" * 80 + struct.pack("<I", len(tri)) + rec.tobytes()
    checked(data, "sphere_100k.stl")
    key = mesh_store().put(data)
    remember_name(key, "sphere_100k.stl")  # its suffix says how to read it, as an upload's
    scenario = Scenario.model_validate({"bodies": [{"Name": "B", "Mesh": key,
        "Mass": 0.5 * RHO * math.pi / 6, "InertiaRadi": [0.2, 0.2, 0.2]}],
        "elements": [{"kind": "buoyancy", "body": "B"}]})  # fmt: skip
    return scenario, len(hull_triangles(scenario.bodies[0]))


if __name__ == "__main__":
    main()
