"""Whether this machine is quiet enough for wall-clock figures to mean something: the timing
tier (`make test-timing`) and the benchmarks measure frame rates, gaps and first answers,
which other programs on the same cores bend as much as any regression would.

Quiet: over a window of `--window` s, the CPU busy with anything (read from /proc/stat) is at
most `--busy` of the machine. It waits up to `--wait` s for such a window, then says what it
saw and exits 0 (quiet) or 3 (not quiet: the figures would not mean anything).

    python scripts/quiet_machine.py [--busy 0.25] [--window 3] [--wait 60]
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all cores since boot, from /proc/stat's first line."""
    with open("/proc/stat") as stat:
        fields = [float(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal
    return total - idle, total


def busy_share(window: float) -> float:
    """The share of all cores' time busy over the next `window` seconds (0 to 1)."""
    busy0, total0 = cpu_times()
    time.sleep(window)
    busy1, total1 = cpu_times()
    return (busy1 - busy0) / max(total1 - total0, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=float, default=0.25, help="most busy share (0-1)")
    parser.add_argument("--window", type=float, default=3.0, help="seconds a reading covers")
    parser.add_argument("--wait", type=float, default=60.0, help="seconds to wait for quiet")
    args = parser.parse_args(argv)
    if not os.path.exists("/proc/stat"):
        print("quiet_machine: no /proc/stat here: cannot tell the load; going on")
        return 0
    cores = os.cpu_count() or 1
    deadline = time.monotonic() + args.wait
    readings = []
    while True:
        share = busy_share(args.window)
        readings.append(share)
        if share <= args.busy:
            print(f"quiet_machine: {share:.0%} of {cores} cores busy over {args.window:g} s "
                  f"(at most {args.busy:.0%}): quiet enough for timing")  # fmt: skip
            return 0
        if time.monotonic() >= deadline:
            break
    seen = ", ".join(f"{r:.0%}" for r in readings[-5:])
    print(f"quiet_machine: the machine is not quiet enough for wall-clock figures: {seen} of "
          f"{cores} cores busy (each over {args.window:g} s, for {args.wait:g} s), at most "
          f"{args.busy:.0%} wanted. Stop the other work and run again, or set "
          f"SIXDOF_TIMING_ANYWAY=1 to measure regardless.",
          file=sys.stderr)  # fmt: skip
    return 3


if __name__ == "__main__":
    sys.exit(main())
