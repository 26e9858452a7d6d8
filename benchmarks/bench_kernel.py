"""Steps per second of the compiled kernel, the Python-loop API, and MuJoCo on the same body.

One free rigid body (mass 3 kg, diagonal inertia (0.4, 0.6, 0.9) kg·m², constant
global force and moment at the CG, gravity 9.81 m/s² along +z), RK4, h = 1 ms.
MuJoCo gets the same body as a free joint with `xfrc_applied` and gravity
"0 0 9.81", so its world frame is our NED frame. Its free joint includes the
gyroscopic term, so the trajectory check compares it with our `full` model.

    python benchmarks/bench_kernel.py                 # table
    python benchmarks/bench_kernel.py --json out.json # table, and the numbers as JSON
    python benchmarks/bench_kernel.py --quick         # fewer steps (a smoke run)
    python benchmarks/bench_kernel.py --threshold     # serial vs prange per batch size

Times are the best of `--repeat` runs (default 3), after a warm-up call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from sixdof.dynamics import (
    Bodies,
    BodyParams,
    IntegratorSettings,
    integrate,
    make_state,
    step_fixed,
)
from sixdof.dynamics import kernel as K
from sixdof.dynamics import kernel_compiled as C

try:
    import mujoco
    from mujoco import rollout as mj_rollout
except ImportError:  # MuJoCo is optional: its rows are left out
    mujoco = None

MASS = 3.0
INERTIA = (0.4, 0.6, 0.9)  # kg·m², principal, body axes
FORCE = (2.0, -1.0, 0.5)  # N, global
MOMENT = (0.1, -0.2, 0.3)  # N·m, global
GRAVITY = 9.81
STEP = 1e-3
X0 = make_state(
    pos=(0.0, 0.0, 0.0),
    quater=np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2]),
    local_vel=(1.0, 0.5, -0.3),
    ang_vel=(0.3, 2.0, 0.5),  # mostly about the intermediate axis: gyroscopic terms matter
)
U0 = np.array([*FORCE, *MOMENT])


def body(model: str) -> BodyParams:
    radii = np.sqrt(np.array(INERTIA) / MASS)
    return BodyParams.from_radii(MASS, radii, gravity=GRAVITY, model=model)  # type: ignore[arg-type]


def best_of(run: Callable[[], None], repeat: int) -> float:
    run()  # warm-up: compile/load, fault in pages
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


# --------------------------------------------------------------------------- sixdof


def sixdof_kernel(model: str, n_bodies: int, n_steps: int, repeat: int, parallel: bool | None):
    """integrate_fixed: n_steps RK4 steps of n_bodies bodies in one compiled call."""
    pk = K.pack(Bodies.of([body(model)] * n_bodies))
    x = np.ascontiguousarray(np.tile(X0, (n_bodies, 1)))
    u = np.ascontiguousarray(np.tile(U0, (n_bodies, 1)))
    out = np.empty((1, n_bodies, 13))
    h = np.full(1, STEP)
    n = np.full(1, n_steps, dtype=np.int64)

    def run() -> None:
        x[:] = X0
        if parallel is None:
            K.integrate_fixed(pk, x, u, STEP, n_steps, "rk4", out)
        elif parallel:
            C._spans_parallel(pk.params, x, u, h, n, 1, out)
        else:
            C._spans_serial(pk.params, x, u, h, n, 1, out)

    return best_of(run, repeat)


def sixdof_python_loop(model: str, n_bodies: int, n_steps: int, repeat: int) -> float:
    """step_fixed called once per step from Python (what a naive server tick loop does)."""
    bodies = Bodies.of([body(model)] * n_bodies)
    x0 = np.tile(X0, (n_bodies, 1))
    u = np.tile(U0, (n_bodies, 1))

    def run() -> None:
        x = x0
        for _ in range(n_steps):
            x = step_fixed(bodies, x, u, STEP)

    return best_of(run, repeat)


def sixdof_trajectory() -> np.ndarray:
    """Pos of the `full` model every 1 ms over 1 s, (1001, 3)."""
    times = np.arange(1001) * STEP
    states, _ = integrate(Bodies.of(body("full")), X0, U0, times, IntegratorSettings("rk4", STEP))
    return states[:, 0, 0:3]


# --------------------------------------------------------------------------- MuJoCo


def mujoco_model(n_bodies: int) -> Any:
    bodies = "".join(
        f'<body name="b{i}"><freejoint/><inertial pos="0 0 0" mass="{MASS}" '
        f'diaginertia="{INERTIA[0]} {INERTIA[1]} {INERTIA[2]}"/></body>'
        for i in range(n_bodies)
    )
    xml = (
        f'<mujoco><option timestep="{STEP}" integrator="RK4" gravity="0 0 {GRAVITY}"/>'
        f"<worldbody>{bodies}</worldbody></mujoco>"
    )
    return mujoco.MjModel.from_xml_string(xml)


def mujoco_initial(model: Any) -> tuple[Any, np.ndarray]:
    """MjData at X0 for every body: qpos (p, q), qvel (R v global, ω body)."""
    data = mujoco.MjData(model)
    q = X0[3:7]
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, q)
    vel_world = rot.reshape(3, 3) @ X0[7:10]
    for i in range(model.nbody - 1):
        data.qpos[7 * i : 7 * i + 7] = X0[0:7]
        data.qvel[6 * i : 6 * i + 3] = vel_world
        data.qvel[6 * i + 3 : 6 * i + 6] = X0[10:13]
        data.xfrc_applied[i + 1] = U0
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(model, full))
    mujoco.mj_getState(model, data, state, full)
    return data, state


def mujoco_rollout(n_batch: int, n_steps: int, repeat: int, threads: int):
    """mujoco.rollout: n_batch independent 1-body rollouts; xfrc_applied is its control."""
    model = mujoco_model(1)
    _, state0 = mujoco_initial(model)
    spec = mujoco.mjtState.mjSTATE_XFRC_APPLIED
    xfrc = np.zeros((n_batch, n_steps, mujoco.mj_stateSize(model, spec)))
    xfrc[:, :, 6:12] = U0  # body 1 (body 0 is the world)
    init = np.tile(state0, (n_batch, 1))
    nstate = state0.size
    states = np.empty((n_batch, n_steps, nstate))
    sensors = np.empty((n_batch, n_steps, 0))
    datas = [mujoco.MjData(model) for _ in range(max(1, threads))]
    with mj_rollout.Rollout(nthread=threads if n_batch > 1 else 0) as pool:

        def run() -> None:
            pool.rollout([model] * n_batch, datas, init, xfrc, control_spec=spec.value,
                         state=states, sensordata=sensors)  # fmt: skip

        seconds = best_of(run, repeat)
    return seconds, states


def mujoco_step_loop(n_bodies: int, n_steps: int, repeat: int) -> float:
    """mj_step from a Python loop on one model holding n_bodies free bodies."""
    model = mujoco_model(n_bodies)
    data, state0 = mujoco_initial(model)
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS

    def run() -> None:
        mujoco.mj_setState(model, data, state0, full)
        for _ in range(n_steps):
            mujoco.mj_step(model, data)

    return best_of(run, repeat)


def mujoco_trajectory() -> np.ndarray:
    """Pos every 1 ms over 1 s by mujoco.rollout, (1001, 3)."""
    _, states = mujoco_rollout(1, 1000, 1, 0)
    pos = states[0, :, 1:4]  # FULLPHYSICS state: time, qpos, qvel, ...
    return np.vstack([X0[0:3], pos])


# --------------------------------------------------------------------------- compile time


def compile_times() -> dict[str, float]:
    """Seconds for warm_up() in a fresh process: with an empty numba cache, then a filled one."""
    code = (
        "import time; t = time.perf_counter()\n"
        "from sixdof.dynamics import kernel\n"
        "t_import = time.perf_counter() - t\n"
        "print(t_import, kernel.warm_up())\n"
    )
    result = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold", "warm"):
            run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)  # fmt: skip
            t_import, t_warm = (float(v) for v in run.stdout.split())
            result[f"import_kernel_s_{label}"] = t_import
            result[f"warm_up_s_{label}"] = t_warm
    return result


# --------------------------------------------------------------------------- driver


def threshold_table(repeat: int) -> None:
    print(f"{'bodies':>7} {'steps':>6} {'work':>7} {'serial µs':>10} {'prange µs':>10}  faster")
    for n_bodies in (2, 4, 16, 64, 256, 1024):
        for n_steps in (1, 4, 16, 64):
            ts = sixdof_kernel("full", n_bodies, n_steps, repeat, parallel=False)
            tp = sixdof_kernel("full", n_bodies, n_steps, repeat, parallel=True)
            print(f"{n_bodies:7d} {n_steps:6d} {n_bodies * n_steps:7d} {ts * 1e6:10.1f} "
                  f"{tp * 1e6:10.1f}  {'prange' if tp < ts else 'serial'}")  # fmt: skip
    print(f"PARALLEL_MIN_WORK = {K.PARALLEL_MIN_WORK} body-steps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer steps: a smoke run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best counts")
    parser.add_argument("--threshold", action="store_true", help="serial vs prange table only")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time runs")
    args = parser.parse_args()
    K.warm_up()
    if args.threshold:
        threshold_table(args.repeat)
        return
    scale = 0.05 if args.quick else 1.0
    repeat = 1 if args.quick else args.repeat
    rows: list[dict[str, Any]] = []

    def add(engine: str, path: str, model: str, bodies: int, steps: int, seconds: float) -> None:
        rows.append({"engine": engine, "path": path, "model": model, "bodies": bodies,
                     "steps": steps, "seconds": seconds,
                     "body_steps_per_s": bodies * steps / seconds})  # fmt: skip

    def steps_for(budget: float, bodies: int) -> int:
        return max(1, int(budget * scale / bodies))

    for model in ("full", "fhsim"):
        n = steps_for(2e6, 1)
        add(
            "sixdof",
            "kernel integrate_fixed",
            model,
            1,
            n,
            sixdof_kernel(model, 1, n, repeat, None),
        )
        n = steps_for(5e4, 1)
        add(
            "sixdof",
            "step_fixed, Python loop",
            model,
            1,
            n,
            sixdof_python_loop(model, 1, n, repeat),
        )
    for bodies in (100, 10_000):
        n = steps_for(5e6, bodies)
        add("sixdof", "kernel integrate_fixed", "full", bodies, n,
            sixdof_kernel("full", bodies, n, repeat, None))  # fmt: skip
        add("sixdof", "kernel, serial (1 core)", "full", bodies, n,
            sixdof_kernel("full", bodies, n, repeat, False))  # fmt: skip
        n = steps_for(5e5, bodies)
        add("sixdof", "step_fixed, Python loop", "full", bodies, n,
            sixdof_python_loop("full", bodies, n, repeat))  # fmt: skip
    trajectory = None
    if mujoco is not None:
        n = steps_for(2e5, 1)
        add("mujoco", "rollout", "free joint", 1, n, mujoco_rollout(1, n, repeat, 0)[0])
        add("mujoco", "mj_step, Python loop", "free joint", 1, n, mujoco_step_loop(1, n, repeat))
        for bodies in (100, 10_000):
            n = steps_for(4e5, bodies)
            add("mujoco", "rollout, 2 threads", "free joint", bodies, n,
                mujoco_rollout(bodies, n, repeat, 2)[0])  # fmt: skip
            if bodies <= 1000:  # compiling a 10,000-body MJCF takes ~20 s: left out
                add("mujoco", "mj_step loop, all bodies in 1 model", "free joint", bodies, n,
                    mujoco_step_loop(bodies, n, repeat))  # fmt: skip
        ours, theirs = sixdof_trajectory(), mujoco_trajectory()
        trajectory = {
            "duration_s": 1.0,
            "max_pos_difference_m": float(np.max(np.abs(ours - theirs))),
            "distance_travelled_m": float(np.linalg.norm(ours[-1] - ours[0])),
        }
    compile_info = None if args.no_compile else compile_times()

    print(f"RK4, h = {STEP * 1e3:g} ms, one free body (m = {MASS} kg, I = {INERTIA} kg·m²); "
          f"{os.cpu_count()} cores, numba {numba.__version__}"
          + (f", mujoco {mujoco.__version__}" if mujoco else ""))  # fmt: skip
    header = (
        f"{'engine':7} {'path':38} {'model':10} {'bodies':>6} {'body-steps/s':>13} {'µs/step':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        per_call = r["seconds"] / r["steps"] * 1e6
        print(f"{r['engine']:7} {r['path']:38} {r['model']:10} {r['bodies']:6d} "
              f"{r['body_steps_per_s']:13,.0f} {per_call:8.2f}")  # fmt: skip
    print("(µs/step: wall time of one step of the whole batch)")
    if trajectory:
        print(f"trajectory over 1 s, sixdof `full` vs MuJoCo: max |Δpos| = "
              f"{trajectory['max_pos_difference_m']:.3e} m "
              f"(the body travels {trajectory['distance_travelled_m']:.3f} m)")  # fmt: skip
    if compile_info:
        print(
            "warm_up(): cold cache {warm_up_s_cold:.2f} s, warm cache {warm_up_s_warm:.3f} s; "
            "importing the kernel module {import_kernel_s_warm:.2f} s".format(**compile_info)
        )
    if args.json:
        machine = {"cores": os.cpu_count(), "python": platform.python_version(),
                   "numba": numba.__version__, "numpy": np.__version__,
                   "mujoco": mujoco.__version__ if mujoco else None,
                   "load_average": os.getloadavg()}  # fmt: skip
        with open(args.json, "w") as fh:
            json.dump({"machine": machine, "rows": rows, "trajectory": trajectory,
                       "compile": compile_info, "quick": args.quick}, fh, indent=2)  # fmt: skip


if __name__ == "__main__":
    main()
