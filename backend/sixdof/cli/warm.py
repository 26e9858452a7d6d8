"""`sixdof warm`: the numba kernels into their cache and the package's bytecode to disk.

The kernels compile in groups across the cores (simulation/warming.py): the free bodies'
first, the hull's beside them, then the elements' and the headless integrators' (dopri5,
geometric), and last a moment of the default preset's room, as a server's first room runs.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path
from typing import TextIO

from ..dynamics.kernel_warm import GROUPS, Done, Group
from ..scenario.presets import DEFAULT_PRESET, PRESETS
from .common import EXIT_FAILED, EXIT_OK

#: What `sixdof warm` compiles beyond a live room's kernels (kernel_warm.GROUPS), each after
#: the free bodies' kernels it calls.
HEADLESS = (
    Group("dopri5", ("dopri5",), f"{__name__}:warm_dopri5", ("free",)),
    # geometric (dynamics/splitting.py) too: else a room's first switch to it compiles for
    # a few seconds inside a tick
    Group("geometric", ("geometric",), f"{__name__}:warm_geometric", ("free",)),
    Group("room", (f"a room of {DEFAULT_PRESET}",), f"{__name__}:warm_room",
          tuple(g.name for g in GROUPS)),
)  # fmt: skip
#: In the order the workers take them: the elements' stepping kernel, the longest, after the
#: headless integrators, by when the derivative it calls is in the cache (kernel_warm.SYSTEM).
WARM_GROUPS: tuple[Group, ...] = (*GROUPS[:-1], *HEADLESS[:-1], GROUPS[-1], HEADLESS[-1])


def warm_dopri5(done: Done) -> None:
    """dopri5's kernels (dynamics/dopri5_compiled.py), compiled on a headless run's first use."""
    from ..api import run

    run(PRESETS[DEFAULT_PRESET].scenario(), integrator="dopri5", t_end=0.05)
    done("dopri5")


def warm_geometric(done: Done) -> None:
    from ..api import run

    run(PRESETS[DEFAULT_PRESET].scenario(), integrator="geometric", t_end=0.05)
    done("geometric")


def warm_room(done: Done) -> None:
    """The default preset run for a moment, as a server's first room does (every kernel it
    calls is in the cache by now: this loads them)."""
    from ..simulation import LiveSimulation, warm_up

    warm_up()
    sim = LiveSimulation(PRESETS[DEFAULT_PRESET].scenario(), frame_rate=60.0)
    sim.step(100)
    sim.frame()
    done(f"a room of {DEFAULT_PRESET}")


class KernelBar:
    """Kernels done of total: a bar redrawn in place on a terminal, else a line each."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.width = width
        self.start = time.monotonic()
        self.drawn = 0

    def __call__(self, done: int, total: int, name: str) -> None:
        elapsed = time.monotonic() - self.start
        if not self.tty:
            print(f"sixdof: kernel {done}/{total} ready ({name}, {elapsed:.1f} s)",
                  file=self.stream, flush=True)  # fmt: skip
            return
        filled = round(self.width * done / max(total, 1))
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} kernels  "
            f"{elapsed:.0f} s  ({name})"
        )
        self.stream.write("\r" + line.ljust(self.drawn))
        self.stream.flush()
        self.drawn = len(line)

    def close(self) -> None:
        """Erase the bar (if it was drawn)."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0


def handle(args: argparse.Namespace, err: TextIO) -> int:
    """Compile (or load from numba's on-disk cache) the kernels across the cores, with their
    progress on stderr, and run the default preset for a moment, as a server's first room
    does; write the package's bytecode meanwhile; print the seconds it took and where the
    caches are."""
    from ..simulation.warming import WarmFailed, compile_groups

    bytecode: list[str] = []
    writer = threading.Thread(target=lambda: bytecode.append(write_bytecode()), daemon=True)
    writer.start()  # while the workers compile: it needs no numba
    bar = KernelBar(err)
    try:
        seconds = compile_groups(WARM_GROUPS, getattr(args, "jobs", None), bar)
    except WarmFailed as exc:
        bar.close()
        print(f"sixdof: {exc}", file=err)
        return EXIT_FAILED
    bar.close()
    writer.join()
    # numba reads NUMBA_CACHE_DIR at import; this process does not import numba
    where = f"numba cache: {os.environ.get('NUMBA_CACHE_DIR') or 'next to the package'}"
    print(f"sixdof: kernels warm in {seconds:.1f} s ({where})", flush=True)
    print(f"sixdof: bytecode {bytecode[0]}", flush=True)
    return EXIT_OK


def write_bytecode() -> str:
    """Compile the package's modules to bytecode beside them; what happened, in words.

    Python writes bytecode itself on import unless PYTHONDONTWRITEBYTECODE is set (as in many
    containers and CI machines); then every `serve` would compile ~80 modules again (~0.15 s
    of its start-up). A wheel installed by pip has its bytecode already; an editable install
    does not. A package directory nobody may write to is left as it is.
    """
    import compileall

    package = Path(__file__).resolve().parents[1]  # sixdof/, this cli/ and every sub-package
    # quiet=2: a read-only install prints nothing; the result says whether all were written
    written = compileall.compile_dir(package, quiet=2, workers=1)
    return f"current in {package}" if written else f"not writable in {package} (left as it is)"
