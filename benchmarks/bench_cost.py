"""A world's cost, estimated before it runs (simulation/cost.py) against measured.

For each case: the estimate of one step and of building the world, and the same measured
here (median of repeated steps in one thread; the build as a LiveSimulation made from the
scenario). An estimate should be above its measurement (an upper bound) but not by much:
too low lets a step through that holds a tick, too high refuses worlds that would run.

    python benchmarks/bench_cost.py
"""

from __future__ import annotations

import statistics
import time

from sixdof.scenario import Scenario
from sixdof.server import presets
from sixdof.simulation import cost
from sixdof.simulation.live import LiveSimulation


def fleet(n: int, waves: int, mesh: str = "ship", method: str = "rk4") -> Scenario:
    ship = presets.scenario("heeled_ship").bodies[0].model_dump()
    bodies = [{**ship, "Name": f"S{i}", "Mesh": mesh, "Pos": [30.0 * i, 0.0, ship["Pos"][2]]}
              for i in range(n)]  # fmt: skip
    water = {"waves": [{"amplitude": 0.2, "period": 4.0 + 0.3 * k, "direction": 10.0 * k}
                       for k in range(waves)]}  # fmt: skip
    return Scenario.model_validate({
        "name": "fleet", "bodies": bodies, "water": water,
        "integration": {"method": method, "stepsize": 1e-3},
        "elements": [{"kind": "buoyancy", "body": f"S{i}"} for i in range(n)],
    })  # fmt: skip


def measure(scenario: Scenario, steps: int = 5) -> tuple[float, float]:
    started = time.thread_time()
    sim = LiveSimulation(scenario, running=False)
    build = time.thread_time() - started
    sim.step(1)  # the first step's one-off costs (outputs, tables)
    per = []
    for _ in range(steps):
        started = time.thread_time()
        sim.step(1)
        per.append(time.thread_time() - started)
    return statistics.median(per), build


def main() -> None:
    cases = {
        "one free body": presets.scenario("hover"),
        "floating box, still": presets.scenario("floating_box"),
        "heeled ship, still": presets.scenario("heeled_ship"),
        "buoy in waves": presets.scenario("buoy_in_waves"),
        "1 ship, 16 waves": fleet(1, 16),
        "8 ships, 4 waves": fleet(8, 4),
        "16 ships, still": fleet(16, 0),
        "64 ships, still": fleet(64, 0),
        "64 ships, 16 waves (refused)": fleet(64, 16),
    }
    print(f"{'case':32} {'step est':>9} {'measured':>9} {'build est':>9} {'measured':>9}  (ms)")
    for name, scenario in cases.items():
        est_step, est_build = cost.step_seconds(scenario), cost.build_seconds(scenario)
        step, build = measure(scenario, 3 if est_step > 0.01 else 9)
        print(f"{name:32} {est_step * 1e3:9.3f} {step * 1e3:9.3f} {est_build * 1e3:9.2f} "
              f"{build * 1e3:9.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
