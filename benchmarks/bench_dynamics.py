"""Throughput of the dynamics layer through its public API: steps per second.

What is measured (RK4, h = 1 ms, one asymmetric tumbling body in model `full` with a CG
offset, gravity, a constant global force and moment; a batch repeats that body):

- one body, `step_fixed` on a single state (13,) called once per step from a Python
  loop (what a live simulation does once per tick);
- one body, `integrate` over a span with an output every 10 ms (a headless run);
- one body, the numpy reference (`rk_step` on `model.derivative`), for comparison;
- batches of 1, 100 and 10,000 bodies, one `step_fixed` call per step: body-steps/s.

Each measurement is sized by a short pilot to take about `--seconds` (default 1.5 s)
after a warm-up call (which also compiles or loads the numba kernel).

    python benchmarks/bench_dynamics.py
    python benchmarks/bench_dynamics.py --json bench.json --seconds 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sixdof.dynamics import (
    Bodies,
    BodyParams,
    IntegratorSettings,
    derivative,
    integrate,
    make_state,
    step_fixed,
)
from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.integrators import TABLEAUS, rk_step

STEP = 1e-3
BODY = BodyParams.from_inertia(3.0, (0.6, 0.9, 1.2, 0.05, -0.04, 0.1), r_cg_body=(0.1, 0.0, 0.2))
X0 = make_state((0.0, 0.0, 0.0), quat.from_euler(0.3, -0.2, 0.9), (1.0, 0.5, -0.3), (1.5, -2, 2.5))
U = np.array([2.0, -1.0, -20.0, 0.4, -0.3, 0.6])


Run = Callable[[int], int]  # run(n) takes about n steps and returns how many it took


def timed(run: Run, seconds: float) -> tuple[int, float]:
    """Warm up, size n by a pilot to last ~`seconds`, and time it: (steps taken, elapsed s)."""
    run(10)
    n = 10
    while True:
        start = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - start
        if elapsed >= 0.1 * seconds:
            break
        n *= 8 if elapsed < 0.01 * seconds else 2
    n = max(10, round(n * seconds / elapsed))
    start = time.perf_counter()
    steps = run(n)
    return steps, time.perf_counter() - start


def loop_step_fixed(n_bodies: int | None) -> Run:
    """step_fixed once per step; n_bodies None passes one state (13,), else a batch (N, 13)."""
    bodies = Bodies.of([BODY] * (n_bodies or 1))
    x0 = X0.copy() if n_bodies is None else np.tile(X0, (n_bodies, 1))
    u = U.copy() if n_bodies is None else np.tile(U, (n_bodies, 1))

    def run(n: int) -> int:
        x = x0
        for _ in range(n):
            x = step_fixed(bodies, x, u, STEP, "rk4")
        return n

    return run


def via_integrate() -> Run:
    bodies = Bodies.of(BODY)
    settings = IntegratorSettings(method="rk4", step=STEP)

    def run(n: int) -> int:
        n_out = max(1, n // 10)  # an output every 10 steps (10 ms)
        times = np.linspace(0.0, n_out * 10 * STEP, n_out + 1)
        _, stats = integrate(bodies, X0[None], U, times, settings)
        return stats.steps

    return run


def numpy_reference() -> Run:
    bodies = Bodies.of(BODY)
    u = U[None]

    def run(n: int) -> int:
        x = X0[None]
        for _ in range(n):
            x = rk_step(lambda y: derivative(y, u, bodies), x, STEP, TABLEAUS["rk4"])
        return n

    return run


def measure(seconds: float, sizes: list[int]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(name: str, bodies: int, run: Run) -> None:
        steps, elapsed = timed(run, seconds)
        rows.append(
            {
                "measurement": name,
                "bodies": bodies,
                "steps": steps,
                "seconds": elapsed,
                "steps_per_s": steps / elapsed,
                "body_steps_per_s": steps * bodies / elapsed,
                "us_per_step": 1e6 * elapsed / steps,
            }
        )

    add("step_fixed (13,) state, Python loop", 1, loop_step_fixed(None))
    add("integrate (output every 10 ms)", 1, via_integrate())
    add("numpy reference rk_step, loop", 1, numpy_reference())
    for size in sizes:
        add(f"step_fixed on a batch of {size:,}", size, loop_step_fixed(size))
    return rows


def environment() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        # Other processes on the machine slow every row alike; the load says how much.
        "load_average_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "method": "rk4",
        "step_s": STEP,
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = f"{'measurement':<36} {'bodies':>7} {'steps/s':>12} {'body-steps/s':>14} {'µs/step':>10}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['measurement']:<36} {r['bodies']:>7,} {r['steps_per_s']:>12,.0f} "
            f"{r['body_steps_per_s']:>14,.0f} {r['us_per_step']:>10.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time per measurement (s)")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[1, 100, 10_000], help="batch sizes"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or any(s < 1 for s in args.sizes):
        parser.error("--seconds must be > 0 and every --sizes value ≥ 1")
    env = environment()
    rows = measure(args.seconds, args.sizes)
    print(
        f"sixdof dynamics, RK4 at h = {STEP * 1e3:g} ms; compiled kernel: "
        f"{env['compiled_kernel']}; Python {env['python']}, {env['cpus']} CPUs, "
        f"load average {env['load_average_1min'] or float('nan'):.1f}"
    )
    print(table(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"environment": env, "results": rows}, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
