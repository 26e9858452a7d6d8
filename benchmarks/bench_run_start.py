"""A short `sixdof run`'s whole process, beside the floor and numba's own ceiling.

Issue 39 asks a one-step `sixdof run` of a free body (warm cache, whole process) to cost at
most 1.3 x the floor `python -c "import numpy, numba"`. Each launch here is a fresh
interpreter, timed from spawn to exit (wall) and by its CPU time (user + system, from the
child's rusage), in a random interleaved order so a change of the machine's load falls on
every command alike; medians of `--repeat` launches each:

- floor: `import numpy, numba`, what the issue measures against;
- numba's call: the floor plus one call of a trivial `@njit(cache=True)` function loaded from
  numba's cache: what any numba program pays before its first compiled instruction (numba
  sets up its CPU target's typing and lowering registries on the first call);
- sixdof run: `sixdof run` of examples/free_fall.xml for one step (--t-end 0.001).

    python benchmarks/bench_run_start.py             # 10 launches of each
    python benchmarks/bench_run_start.py --repeat 30
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parents[1]

TRIVIAL = """
import numba
@numba.njit(cache=True)
def one(x):
    return x + 1.0
one(1.0)
"""


#: one step of the free-falling ball (its file's step is 1 ms), written where the caller says
RUN_ARGS = [
    "--input-file",
    str(REPO / "examples" / "free_fall.xml"),
    "--t-end",
    "0.001",
    "--output-file",
]


def launch(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one child process from spawn to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "trivial.py").write_text(TRIVIAL)
        commands = {
            "floor: import numpy, numba": [py, "-c", "import numpy, numba"],
            "numba's call (cached @njit)": [py, "trivial.py"],
            "sixdof run, one step": [
                py,
                "-m",
                "sixdof.cli",
                "run",
                "--quiet",
                *RUN_ARGS,
                str(work / "out.csv"),
            ],
        }
        for argv in commands.values():  # warm: bytecode and numba's caches written
            launch(argv, work)
        order = [name for name in commands for _ in range(args.repeat)]
        random.shuffle(order)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for name in order:
            wall, cpu = launch(commands[name], work)
            walls[name].append(wall)
            cpus[name].append(cpu)
    floor = median(walls["floor: import numpy, numba"])
    floor_cpu = median(cpus["floor: import numpy, numba"])
    print(f"{args.repeat} launches each, interleaved; load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<32} {'wall median':>12} {'x floor':>8} {'CPU median':>11} {'x floor':>8}")
    for name in commands:
        w, c = median(walls[name]), median(cpus[name])
        print(f"{name:<32} {w:>10.3f} s {w / floor:>8.2f} {c:>9.3f} s {c / floor_cpu:>8.2f}")
    met = median(walls["sixdof run, one step"]) <= 1.3 * floor
    print(f"issue 39's bound, sixdof run <= 1.3 x floor (wall): {'met' if met else 'not met'}")


if __name__ == "__main__":
    main()
