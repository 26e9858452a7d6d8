"""Integrators against scipy at equal achieved error: error, steps, derivative calls, CPU time.

    python benchmarks/bench_integrators.py [--quick] [--write]

First geometric and exact on the tennis racket: error after 20 s against the closed form,
energy error over 10⁵ steps, CPU per step (RK4 beside them). Then, for each shipped example
(the tennis racket among them, the most sensitive spin), the claims table README.md and
docs/physics.md show (`--write` puts it between their markers, so it is generated, never
typed):

- sixdof's dopri5 at tolerance 1e-6 and 1e-9, at HMax 0.1 s and at the example's own HMax
  (0.01 s, which holds the step down and the error with it): achieved error = max over
  every output and component of |x − x_ref| / (tol + tol |x_ref|), x_ref from scipy DOP853
  at 1e-13; its derivative calls against scipy RK45's at the same tolerance;
- its CPU time against solve_ivp RK45 and Hairer's Fortran dopri5 (scipy.integrate.ode, the
  same compiled derivative as a Python callback), each over a ladder of tolerances: the
  cheapest run whose absolute error is no larger than sixdof's is "at equal achieved error".

Then Radau (sixdof's, stepping scipy's Radau on the compiled derivative with the analytic
Jacobian) against scipy's own Radau (solve_ivp, numpy derivative, finite-difference
Jacobian) at 1e-8, and the live integrator's error: RK4 on the tennis racket after 10 s at
h = 1, 0.5 and 0.1 ms. CPU times are process CPU (time.process_time), the best of 3 runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.integrate import ode, solve_ivp

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


def fortran_run(scenario: Scenario, times: np.ndarray, tol: float, hmax: float) -> tuple:
    """Hairer's Fortran dopri5 through scipy.integrate.ode, the compiled derivative as a
    Python callback: (states (T, N, 13), f calls)."""
    rhs, x0 = problem(scenario)
    calls = [0]

    def f(t: float, y: np.ndarray) -> np.ndarray:
        calls[0] += 1
        return rhs(t, y)

    solver = ode(f).set_integrator("dopri5", rtol=tol, atol=tol, nsteps=10**8, max_step=hmax)
    solver.set_initial_value(x0.ravel(), times[0])
    out = [x0.ravel()]
    for t in times[1:]:
        out.append(solver.integrate(t))
    return np.array(out).reshape(len(times), *x0.shape), calls[0]


def _cheapest(runs: list[tuple[float, float, int]], err: float) -> tuple[float, int] | None:
    """(CPU s, f calls) of the cheapest ladder run whose error is no larger than `err`."""
    good = [r for r in runs if r[0] <= err]
    if not good:
        return None
    _, seconds, nfev = min(good, key=lambda r: r[1])
    return seconds, nfev


def claims_table(cases: list[tuple[str, Scenario]], tolerances: list[float]) -> list[str]:
    """The one table README.md and docs/physics.md show (written by --write): per case and
    tolerance, at HMax 0.1 s and as the example ships it, sixdof dopri5's achieved error /
    tol, its derivative calls against scipy RK45's at the same tolerance, and its CPU time
    against solve_ivp RK45 and Hairer's Fortran dopri5 (scipy.integrate.ode, a Python
    callback) at equal achieved error (the cheapest run of a tolerance ladder whose error
    is no larger)."""
    lines = [
        "| case | tol | HMax s | achieved/tol | f calls | RK45 f calls at tol | sixdof ms "
        "| × solve_ivp RK45 | × Fortran dopri5 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, sc in cases:
        times = sc.integration.output_times()
        shape = sc.initial_states().shape
        ref = scipy_run(sc, times, "DOP853", 1e-13).y.T.reshape(len(times), *shape)
        rk45, fortran = [], []
        for tol in LADDER:
            seconds, sol = cpu(lambda t=tol, s=sc, ts=times: scipy_run(s, ts, "RK45", t), 1)
            rk45.append((error(sol.y.T.reshape(ref.shape), ref), seconds, sol.nfev))
            seconds, (out, nfev) = cpu(lambda t=tol, s=sc, ts=times: fortran_run(s, ts, t, 0.1), 1)
            fortran.append((error(out, ref), seconds, nfev))
        for tol in tolerances:
            same_tol = scipy_run(sc, times, "RK45", tol).nfev
            for hmax, label in (
                (0.1, "0.1"),
                (sc.integration.HMax, f"{sc.integration.HMax:g} (shipped)"),
            ):
                settings = IntegratorSettings("dopri5", hmax=hmax, hmin=1e-12, abstol=tol,
                                              reltol=tol)  # fmt: skip
                args = (sc.batch(), sc.initial_states(), sc.inputs(), times, settings)
                seconds, (out, stats) = cpu(lambda a=args: integrate(*a))
                achieved = float(np.max(np.abs(out - ref) / (tol + tol * np.abs(ref))))
                err = error(out, ref)
                row = [name, f"{tol:g}", label, f"{achieved:.2f}", str(stats.evaluations),
                       str(same_tol), f"{seconds * 1e3:.2f}"]  # fmt: skip
                for runs in (rk45, fortran):
                    best = _cheapest(runs, err)
                    row.append("not reached" if best is None else f"{best[0] / seconds:.0f}")
                lines.append("| " + " | ".join(row) + " |")
    return lines


def free_methods_table() -> list[str]:
    """geometric and exact on the tennis racket: error against the closed form after 20 s,
    energy error over 10⁵ steps, CPU per step (per output for exact)."""
    from sixdof.dynamics import splitting
    from sixdof.dynamics.exact import exact_states

    sc = preset_scenario("tennis_racket")
    bodies, x0 = sc.batch(), sc.initial_states()
    u = np.zeros((1, 6))
    moments = np.diag(bodies.inertia_cg[0])

    def energy(x: np.ndarray) -> float:
        w = x[0, 10:13]
        return 0.5 * float(moments @ (w * w))

    e0 = energy(x0)
    exact20 = exact_states(bodies, x0, u, np.array([20.0]))[0]
    lines = [
        "| method | h ms | error after 20 s (vs exact) | max |ΔE|/E over 10⁵ steps | CPU ns/step |",
        "|---|---|---|---|---|",
    ]
    pk, params, loads = kernel.packed(bodies), splitting.pack(bodies), kernel.load_rows(u, 1)
    for method in ("rk4", "geometric"):
        for h in (0.01, 0.005, 0.0025):
            n = round(20.0 / h)
            x = np.array(x0, order="C")
            if method == "rk4":
                kernel.advance(pk, x, u, h, n, "rk4")
            else:
                splitting.advance(params, x, loads, h, n)
            err = float(np.max(np.abs(x - exact20)))
            x = np.array(x0, order="C")
            worst = 0.0
            for _ in range(100):
                if method == "rk4":
                    kernel.advance(pk, x, u, h, 1000, "rk4")
                else:
                    splitting.advance(params, x, loads, h, 1000)
                worst = max(worst, abs(energy(x) - e0) / e0)
            y = np.array(x0, order="C")
            if method == "rk4":
                seconds, _ = cpu(lambda y=y, h=h: kernel.advance(pk, y, u, h, 200_000, "rk4"))
            else:
                seconds, _ = cpu(lambda y=y, h=h: splitting.advance(params, y, loads, h, 200_000))
            lines.append(f"| {method} | {h * 1e3:g} | {err:.2e} | {worst:.2e} | "
                         f"{seconds / 200_000 * 1e9:.0f} |")  # fmt: skip
    times = np.linspace(0.0, 20.0, 2001)
    seconds, _ = cpu(lambda: exact_states(bodies, x0, u, times))
    lines.append(
        f"| exact | – | 0 (closed form) | 0 | {seconds / times.size * 1e9:.0f} per output |"
    )
    return lines


MARK_BEGIN = "<!-- bench_integrators: begin (python benchmarks/bench_integrators.py --write) -->"
MARK_END = "<!-- bench_integrators: end -->"


def write_between_markers(path: Path, lines: list[str]) -> None:
    """Replace the text between the markers in `path` with `lines` (the markers stay)."""
    text = path.read_text()
    a, b = text.index(MARK_BEGIN) + len(MARK_BEGIN), text.index(MARK_END)
    path.write_text(text[:a] + "\n" + "\n".join(lines) + "\n" + text[b:])


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
    from sixdof.dynamics.exact import exact_states

    times = np.array([0.0, 10.0])
    # the closed form, not DOP853 at 1e-13: near the separatrix DOP853's own rounding grows
    # to ~2e-10 in 10 s, the floor an earlier table showed as RK4's error at 0.1 ms
    x0 = scenario.initial_states()
    ref = exact_states(scenario.batch(), x0, np.zeros((1, 6)), times)[-1, 0]
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
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the claims table into README.md and docs/physics.md",
    )
    args = parser.parse_args()
    kernel.warm_up()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example's impossible inertia (FhSim runs it too)
        cases = [(p.stem, load_scenario_file(p)) for p in sorted((ROOT / "examples").glob("*.xml"))]
    # free bodies only: dopri5 refuses elements (and scipy's side here would ignore them)
    cases = [(name, sc) for name, sc in cases if not sc.elements]
    if args.quick:
        cases = cases[-2:]
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}"
    print("\n## geometric and exact, tennis racket\n")
    print("\n".join(free_methods_table()))
    lines = claims_table(cases, [1e-6, 1e-9])
    lines = [f"`bench_integrators.py{' --quick' if args.quick else ''}` on {machine}:", "",
             *lines]  # fmt: skip
    print("\n## dopri5: achieved error and cost against scipy (CPU ratios, equal error)\n")
    print("\n".join(lines))
    if args.write:
        for path in (ROOT / "README.md", ROOT / "docs" / "physics.md"):
            write_between_markers(path, lines)
            print(f"wrote the table into {path}")
    racket = preset_scenario("tennis_racket")
    radau_table(racket, 1e-8)
    rk4_table(racket)


if __name__ == "__main__":
    main()
