"""A cold compile of every kernel, in one process: each group's CPU, and every function
compiled more than once for one kind of arguments.

numba compiles a function that is not inlined once for every distinct type its callers pass,
and a constant passed as an argument has a literal type of its own: `left` passed as False in
three RK4 stages and True in the last had the element loop and every kind's force compiled
twice; a count that started at the literal 0, `joint.fill`; a prange index (unsigned) beside
a serial one (signed), every free body's kernel (docs/physics.md, "A cold compile"). This
compiles `kernel_warm.GROUPS` into an empty temporary cache (numba's on-disk index of a
function whose file did not change keeps the signatures older code compiled, so a cache
in use cannot tell), then lists every function whose signatures are the same once their
literals are made plain and their unsigned integers signed; the exit status is 1 if any is.

    python benchmarks/bench_compile.py        # ~150 s of one core
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

# before numba is imported: it reads its cache folder once
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="sixdof-bench-compile-")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from numba.core import types
from numba.core.registry import CPUDispatcher


def plain(t: types.Type) -> types.Type:
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and not t.signed:
        return types.Integer.from_bitwidth(t.bitwidth, signed=True)
    return t


def twice() -> dict[str, list[tuple]]:
    """Every sixdof function compiled for two signatures that are one kind of arguments."""
    found: dict[str, list[tuple]] = {}
    seen_ids: set[int] = set()
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("sixdof."):
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, CPUDispatcher) or id(obj) in seen_ids:
                continue
            seen_ids.add(id(obj))
            kinds: dict[tuple, tuple] = {}
            for sig in obj.signatures:
                key = tuple(plain(t) for t in sig)
                if key in kinds:
                    name = f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"
                    found.setdefault(name, []).extend([kinds[key], sig])
                kinds[key] = sig
    return found


def main() -> int:
    from sixdof.dynamics.kernel_warm import GROUPS, run_group

    total = time.process_time()
    for group in GROUPS:
        start = time.process_time()
        run_group(group, lambda name: None)
        print(f"{group.name:20} {time.process_time() - start:6.1f} s of CPU", flush=True)
    print(f"{'every group':20} {time.process_time() - total:6.1f} s of CPU")
    found = twice()
    for name, sigs in sorted(found.items()):
        print(f"compiled twice: {name}: {', '.join(str(s) for s in sigs)}")
    print("no function compiled twice for one kind of arguments" if not found else
          f"{len(found)} functions compiled more than once for one kind of arguments")  # fmt: skip
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
