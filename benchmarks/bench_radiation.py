"""What a hull's radiation memory costs per step (issue 43), against the floating body alone.

    python benchmarks/bench_radiation.py            # table
    python benchmarks/bench_radiation.py --quick    # fewer steps (a smoke run)

The OES sphere of the `oes_sphere_1m` preset (R = 5 m, 960 triangles, released 1 m above its
draft), RK4 at h = 1 ms, the `full` model: floating on its hull alone (buoyancy), and with its
`radiation` element too (the fitted state-space memory, its states stepped with the body at
every stage; the preset's fit). Then the preset's linear twin (linear hydrostatics and the
memory, no hull). The issue's target: radiation states add ≤ 2 × a floating body's cost per
step. CPU time per step, the least of `--repeat` runs of many steps after a warm-up, the
cases in turn, so other work on a shared machine counts less.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from sixdof.dynamics.kernel import advance
from sixdof.dynamics.kernel_args import element_states
from sixdof.dynamics.packing import pack
from sixdof.scenario import Scenario
from sixdof.scenario.presets import PRESETS

STEP = 1e-3
#: Issue 43: radiation states may add at most this many times a floating body's cost a step
TARGET = 2.0


def one_body(preset: Scenario, body: str, kinds: set[str]) -> Scenario:
    """The preset with only `body` and its elements of `kinds`."""
    data: dict[str, Any] = preset.model_dump(mode="json", exclude_none=True)
    data["bodies"] = [b for b in data["bodies"] if b["Name"] == body]
    data["elements"] = [e for e in data["elements"] if e["body"] == body and e["kind"] in kinds]
    for e in data["elements"]:
        e.pop("file", None)  # the preset carries its fit: nothing to read
    return Scenario.model_validate(data)


def per_step(scenario: Scenario, n: int, repeat: int) -> float:
    """CPU seconds of one RK4 step of the scenario, least of `repeat` runs of n steps."""
    system = scenario.system()
    pk = pack(scenario.batch(), system if system is not None else ())
    x0 = scenario.initial_states()
    z0 = element_states(pk, None)
    x = np.array(x0, order="C")
    z = z0.copy()
    u = scenario.inputs()

    def run() -> None:
        x[:] = x0
        z[:] = z0
        advance(pk, x, u, STEP, n, "rk4", z=z)

    run()
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps (a smoke run)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = 2_000 if args.quick else 20_000
    preset = PRESETS["oes_sphere_1m"].scenario()
    cases = [
        ("floating (buoyancy)", one_body(preset, "Sphere", {"buoyancy"})),
        ("floating + radiation", one_body(preset, "Sphere", {"buoyancy", "radiation"})),
        ("linear twin (radiation, linear)", one_body(preset, "GhostSphere", {"radiation"})),
    ]
    best = [math.inf] * len(cases)
    for _ in range(args.repeat):  # in turn: a change of the machine's load falls on each
        for k, (_, scenario) in enumerate(cases):
            best[k] = min(best[k], per_step(scenario, n, 1))
    print(f"RK4 at h = {STEP:g} s, {n} steps, least of {args.repeat} runs in turn (CPU)")
    print(f"{'case':<34}{'µs a step':>10}{'× floating':>12}")
    for (name, _), cost in zip(cases, best, strict=True):
        print(f"{name:<34}{1e6 * cost:>10.2f}{cost / best[0]:>12.2f}")
    added = best[1] / best[0]
    verdict = "met" if added <= TARGET else "MISSED"
    print(
        f"with radiation: {added:.2f} × the floating body's step (asked: ≤ {TARGET:g} ×): {verdict}"
    )


if __name__ == "__main__":
    main()
