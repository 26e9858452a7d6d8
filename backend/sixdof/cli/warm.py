"""`sixdof warm`: the numba kernels into their cache and the package's bytecode to disk."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO

from ..scenario.presets import DEFAULT_PRESET, PRESETS
from .common import EXIT_OK


def handle(args: argparse.Namespace, err: TextIO) -> int:
    """Compile (or load from numba's on-disk cache) the kernels and run the default preset
    for a moment, as a server's first room does; write the package's bytecode; print the
    seconds it took and where the caches are."""
    from ..simulation import LiveSimulation, warm_up

    start = time.perf_counter()
    warm_up()
    sim = LiveSimulation(PRESETS[DEFAULT_PRESET].scenario(), frame_rate=60.0)
    sim.step(100)
    sim.frame()
    from ..api import run  # the headless integrators too: dopri5 is compiled on first use

    run(PRESETS[DEFAULT_PRESET].scenario(), integrator="dopri5", t_end=0.05)
    # geometric (dynamics/splitting.py) too: else a room's first switch to it compiles
    # for a few seconds inside a tick
    run(PRESETS[DEFAULT_PRESET].scenario(), integrator="geometric", t_end=0.05)
    seconds = time.perf_counter() - start
    from numba.core import config as numba_config

    cache_dir = getattr(numba_config, "CACHE_DIR", "")  # set from NUMBA_CACHE_DIR at import
    where = f"numba cache: {cache_dir or 'next to the package'}"
    print(f"sixdof: kernels warm in {seconds:.1f} s ({where})", flush=True)
    print(f"sixdof: bytecode {write_bytecode()}", flush=True)
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
