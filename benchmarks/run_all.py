"""Every speed figure in one run, side by side: kernel, batches, MuJoCo, the live server.

    python benchmarks/run_all.py                    # the table (takes ~3 minutes)
    python benchmarks/run_all.py --json out.json    # the table, and every number as JSON
    python benchmarks/run_all.py --quick            # a smoke run: shorter, fewer phases

Sections (targets of the issue "Speed" in the last column; they are benchmarks, not tests):

- one body, RK4, h = 1 ms, `full` and `fhsim` models: steps/s of the compiled kernel, of
  MuJoCo's rollout and of a Python loop of mj_step (MuJoCo rows only when it is installed);
- batches of 1, 100 and 10,000 bodies: body-steps/s of the kernel (and of MuJoCo's rollout);
- elements (bench_elements.py): ns per body-step of a pivoted, sprung, damped, loaded,
  grounded and joined body against a free body (target: pivot and spring ≤ 2 × free), and
  100 rooms with elements stepped by one `kernel.advance` a tick (share of a 60 Hz tick);
- `sixdof serve`: seconds from launching the process to its first answer (compile cache warm);
- the live server (one process, `--serve` below: `sixdof serve`'s app and uvicorn settings
  with max_rooms raised): clients in one room at 60 Hz (frames delivered per client, p50/p99
  latency from a set_input to the first frame showing it), and N rooms with one client each,
  every room at h = 1 ms (1 kHz): the real-time factor of every room, frames per client;
  server CPU (% of one core) and RSS for every phase.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import bench_elements as be
import bench_kernel as bk
import bench_server as bs
import numba
import numpy as np

from sixdof.dynamics import kernel as K

FRAME_RATE = 60.0


# --------------------------------------------------------------------------- physics


def physics_rows(scale: float, repeat: int) -> list[dict[str, Any]]:
    """One body (both models) and batches, sixdof kernel and MuJoCo, RK4 at h = 1 ms."""
    rows: list[dict[str, Any]] = []

    def add(section: str, case: str, bodies: int, steps: int, seconds: float) -> None:
        rate = bodies * steps / seconds
        rows.append(
            {
                "section": section,
                "case": case,
                "bodies": bodies,
                "value": rate,
                "unit": "steps/s" if bodies == 1 else "body-steps/s",
            }
        )

    def steps_for(budget: float, bodies: int) -> int:
        return max(1, int(budget * scale / bodies))

    for model in ("full", "fhsim"):
        n = steps_for(2e6, 1)
        add(
            "one body", f"sixdof kernel, {model}", 1, n, bk.sixdof_kernel(model, 1, n, repeat, None)
        )
    if bk.mujoco is not None:
        n = steps_for(2e5, 1)
        add("one body", "MuJoCo rollout", 1, n, bk.mujoco_rollout(1, n, repeat, 0)[0])
        add("one body", "MuJoCo mj_step, Python loop", 1, n, bk.mujoco_step_loop(1, n, repeat))
    for bodies in (1, 100, 10_000):
        n = steps_for(2e6 if bodies == 1 else 5e6, bodies)
        add(
            "batch",
            f"sixdof kernel, {bodies:,} bodies",
            bodies,
            n,
            bk.sixdof_kernel("full", bodies, n, repeat, None),
        )
    if bk.mujoco is not None:
        for bodies in (100, 10_000):
            n = steps_for(4e5, bodies)
            add(
                "batch",
                f"MuJoCo rollout, 2 threads, {bodies:,} bodies",
                bodies,
                n,
                bk.mujoco_rollout(bodies, n, repeat, 2)[0],
            )
    return rows


def element_rows(scale: float, repeat: int) -> list[dict[str, Any]]:
    """bench_elements.py's cases and rooms as table rows (figure and target filled in)."""
    results = be.run_all(scale, repeat)
    rows: list[dict[str, Any]] = []
    for r in results["cases"]:
        target = ""
        if r["target"]:
            ok = r["times_free"] <= be.TARGET_RATIO
            target = f"≤ {be.TARGET_RATIO:g} × free body: {_ok(ok)}"
        target = target or r["goal"]
        rows.append(
            {
                "section": "elements",
                "case": r["case"],
                "bodies": r["bodies"],
                "value": r["ns_per_body_step"],
                "unit": "ns/body-step",
                "figure": f"{r['ns_per_body_step']:,.0f} ns/body-step "
                f"({r['times_free']:.2f} × free)",
                "target": target,
            }
        )
    w = results["rooms"]
    rows.append(
        {
            "section": "elements",
            "case": f"{w['rooms']} rooms with elements, one advance a tick",
            "bodies": w["bodies"],
            "value": w["tick_ms"],
            "unit": "ms/tick",
            "figure": f"{w['tick_ms']:.2f} ms a tick ({100 * w['share_of_60hz_tick']:.1f} % of "
            f"16.7 ms), {w['ns_per_body_step']:.0f} ns/body-step",
            "target": f"< 100 % of a 60 Hz tick: {_ok(w['share_of_60hz_tick'] < 1.0)}",
        }
    )
    return rows


# --------------------------------------------------------------------------- live server


def serve_main(max_rooms: int) -> None:
    """`sixdof serve --port 0` as launch.serve builds it, with max_rooms and a short room TTL."""
    import uvicorn

    from sixdof.server import Settings, create_app, launch
    from sixdof.simulation import warm_up

    # room_ttl 1 s: a phase's rooms are gone before the next phase connects
    settings = Settings(port=0, max_rooms=max_rooms, frame_rate=FRAME_RATE, room_ttl=1.0)
    warm_up()  # the physics loaded before the phases (a plain serve loads it at the first room)
    app = create_app(settings)
    launch.quiet_garbage_collector()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        ws_max_size=launch.WS_MAX_SIZE,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        lifespan="on",
    )
    server = launch._Server(config, settings, open_browser=False)
    server.run(sockets=[launch.listening_socket(config)])


def rooms_phase(server: bs.Server, n: int, seconds: float, procs: int) -> dict[str, Any]:
    """n rooms with one client each: per-room real-time factor, frames per client, CPU, RSS."""
    prefix = f"rt{n}x"
    url = f"ws://127.0.0.1:{server.port}/ws?room={prefix}{{i}}"
    go_at = time.time() + 3.0 + n / 50
    workers = bs.start_workers(url, n, seconds, procs, False, go_at)
    time.sleep(max(0.0, go_at - time.time()))

    def snapshot() -> dict[str, dict[str, Any]]:
        return {s["room"]: s for s in server.all_stats() if s["room"].startswith(prefix)}

    cpu0, wall0 = server.cpu_seconds(), time.monotonic()
    first = snapshot()
    rtf_samples: list[float] = []
    while time.monotonic() < wall0 + seconds - 1.0:
        time.sleep(1.0)
        rtf_samples += [s["rtf"] for s in snapshot().values()]
    last = snapshot()
    rates = bs.collect(workers, seconds)
    cpu = (server.cpu_seconds() - cpu0) / (time.monotonic() - wall0)
    # Simulated time per wall time over the whole phase, room by room; wall time is the
    # server's own tick time (both are read at the same tick), not the client's clock.
    phase_rtf = [
        (last[r]["t"] - s["t"]) / (last[r]["ticked_at"] - s["ticked_at"])
        for r, s in first.items()
        if r in last and s["ticked_at"] is not None and last[r]["ticked_at"] is not None
    ]
    return {
        "rooms": n,
        "rooms_seen": len(phase_rtf),
        "rtf_min": float(np.min(rtf_samples)),
        "rtf_p1": float(np.percentile(rtf_samples, 1)),
        "rtf_mean": float(np.mean(rtf_samples)),
        "phase_rtf_min": float(np.min(phase_rtf)),
        "phase_rtf_mean": float(np.mean(phase_rtf)),
        "rooms_rtf_ge_099": int(sum(r >= 0.99 for r in phase_rtf)),
        "overruns": int(sum(s["overruns"] for s in last.values())),
        "fps_mean": float(np.mean(rates)),
        "fps_min": float(np.min(rates)),
        "tick_error_p99_ms": 1e3 * max(s["tick_error_p99"] for s in last.values()),
        "tick_busy_p50_ms": 1e3 * float(np.median([s["tick_busy_p50"] for s in last.values()])),
        "cpu_percent": 100 * cpu,
        "rss_mib": server.rss_mib(),
    }


def server_results(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    starts = []
    for _ in range(2):  # the first launch may fill numba's cache; the second finds it warm
        s = bs.Server()
        starts.append(s.started_s)
        s.stop()
    out["startup_s"] = starts
    max_rooms = sum(args.rooms) + len(args.clients) + 64
    cmd = [sys.executable, __file__, "--serve", "--max-rooms", str(max_rooms)]
    server = bs.Server(cmd)
    try:
        out["clients"] = []
        for n in args.clients:
            out["clients"].append(bs.phase(server, n, args.seconds, args.procs, False))
            print(f"  {n} clients in one room: done", file=sys.stderr, flush=True)
        out["rooms"] = []
        for n in args.rooms:
            out["rooms"].append(rooms_phase(server, n, args.seconds, args.procs))
            print(f"  {n} rooms: done", file=sys.stderr, flush=True)
    finally:
        server.stop()
    return out


# --------------------------------------------------------------------------- the table


def table(physics: list[dict[str, Any]], server: dict[str, Any] | None) -> list[list[str]]:
    lines = [["section", "case", "figure", "target"]]
    mj = next((r["value"] for r in physics if r["case"] == "MuJoCo rollout"), None)
    for r in physics:
        target = ""
        if r["section"] == "one body" and r["case"].startswith("sixdof"):
            target = "≥ 1,000,000" + (
                f" and ≥ MuJoCo rollout: {_ok(r['value'] >= max(1e6, mj))}"
                if mj
                else f": {_ok(r['value'] >= 1e6)}"
            )
        if r["case"] == "sixdof kernel, 10,000 bodies":
            target = f"≥ 10,000,000: {_ok(r['value'] >= 1e7)}"
        figure = r.get("figure") or f"{r['value']:,.0f} {r['unit']}"
        lines.append([r["section"], r["case"], figure, r.get("target") or target])
    if server is None:
        return lines
    cold, warm = server["startup_s"]
    lines.append(
        [
            "server",
            "sixdof serve: launch → first answer",
            f"{warm:.2f} s (first launch {cold:.2f} s)",
            f"≤ 2 s: {_ok(warm <= 2.0)}",
        ]
    )
    for c in server["clients"]:
        n = c["clients"]
        delivered = c["fps_mean"] / FRAME_RATE
        case = f"{n} clients, one room"
        lines.append(
            [
                "server",
                f"{case}: frames delivered",
                f"{100 * delivered:.1f} % ({c['fps_mean']:.1f}/s, worst {c['fps_min']:.1f})",
                f"≥ 99 %: {_ok(delivered >= 0.99)}" if n >= 500 else "",
            ]
        )
        lines.append(
            [
                "server",
                f"{case}: command → frame",
                f"p50 {c['latency_p50_ms']:.1f} ms, p99 {c['latency_p99_ms']:.1f} ms",
                f"p99 ≤ 25 ms: {_ok(c['latency_p99_ms'] <= 25.0)}",
            ]
        )
        lines.append(
            [
                "server",
                f"{case}: CPU, memory",
                f"{c['cpu_percent']:.0f} % of a core, {c['rss_mib']:.0f} MiB",
                f"≤ 200 MB: {_ok(c['rss_mib'] * 1.048576 <= 200)}",
            ]
        )
    for r in server["rooms"]:
        n = r["rooms"]
        lines.append(
            [
                "server",
                f"{n} rooms × 1 client, 1 kHz: real-time factor",
                f"min {r['phase_rtf_min']:.3f} over the run, {r['rooms_rtf_ge_099']}/"
                f"{r['rooms_seen']} rooms ≥ 0.99 (1 s windows: min {r['rtf_min']:.3f})",
                (f"≥ 0.99 in each: {_ok(r['phase_rtf_min'] >= 0.99)}" if n >= 200 else ""),
            ]
        )
        lines.append(
            [
                "server",
                f"{n} rooms: frames per client, tick",
                f"{r['fps_mean']:.1f}/s (worst {r['fps_min']:.1f}); tick "
                f"{r['tick_busy_p50_ms']:.1f} ms, late p99 {r['tick_error_p99_ms']:.1f} ms",
                "",
            ]
        )
        lines.append(
            [
                "server",
                f"{n} rooms: CPU, memory",
                f"{r['cpu_percent']:.0f} % of a core, {r['rss_mib']:.0f} MiB",
                f"≤ 200 MB: {_ok(r['rss_mib'] * 1.048576 <= 200)}",
            ]
        )
    return lines


def _ok(flag: bool) -> str:
    return "met" if flag else "MISSED"


def render(lines: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]
    out = [
        " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in lines
    ]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write every number here")
    parser.add_argument("--quick", action="store_true", help="a smoke run: shorter, fewer phases")
    parser.add_argument("--clients", type=int, nargs="*", help="clients per one-room phase")
    parser.add_argument("--rooms", type=int, nargs="*", help="rooms per real-time phase")
    parser.add_argument("--seconds", type=float, help="measuring time per server phase")
    parser.add_argument("--procs", type=int, default=2, help="client worker processes (1-2)")
    parser.add_argument("--no-server", action="store_true", help="physics rows only")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--max-rooms", type=int, default=64, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_main(args.max_rooms)
        return
    args.clients = (
        args.clients if args.clients is not None else [1, 500] if not args.quick else [10]
    )
    args.rooms = (
        args.rooms if args.rooms is not None else [50, 100, 200] if not args.quick else [20]
    )
    args.seconds = args.seconds or (2.0 if args.quick else 6.0)
    args.procs = max(1, min(2, args.procs))
    load_before = os.getloadavg()
    print(f"compile/load warm-up: {K.warm_up():.2f} s", file=sys.stderr, flush=True)
    physics = physics_rows(0.05 if args.quick else 1.0, 1 if args.quick else 3)
    physics += element_rows(0.05 if args.quick else 0.25, 1 if args.quick else 3)
    print("physics: done", file=sys.stderr, flush=True)
    server = None if args.no_server else server_results(args)
    machine = {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "mujoco": bk.mujoco.__version__ if bk.mujoco else None,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
    }
    print(
        f"sixdof speed, RK4 at h = 1 ms; {machine['cores']} cores, Python {machine['python']}, "
        f"numba {machine['numba']}"
        + (f", MuJoCo {machine['mujoco']}" if bk.mujoco else "")
        + f"; load average {load_before[0]:.1f} before, {machine['load_average_after'][0]:.1f}"
        " after"
    )
    print(render(table(physics, server)))
    if args.json:
        args.json.write_text(
            json.dumps(
                {"machine": machine, "physics": physics, "server": server, "quick": args.quick},
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
