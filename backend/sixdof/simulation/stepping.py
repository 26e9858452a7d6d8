"""The hot path: k fixed physics steps of a whole batch, in a tight loop.

Every body of the scenario advances at once; nothing loops over bodies in
Python. Inputs are held over each step (zero-order hold):

- when u depends on the orientation (body-frame inputs, forces at a point),
  it is evaluated at the state each step starts from and one
  `dynamics.step_fixed(bodies, x (N, 13), u (N, 6), h, method)` call takes the
  step for all bodies;
- otherwise u is constant over the whole batch and the k steps run inside one
  call of the compiled kernel (`dynamics.kernel.advance`, ~0.7 µs per RK4
  step of one body against ~8 µs through `step_fixed`), or, without numba,
  k `step_fixed` calls.

Divergence is checked once per batch of steps, not per step. When a batch ends
diverged, it is replayed from its start one step at a time (the stepping is
deterministic) to find the last good state, so the common case pays for one
check per batch and the rare one gets an exact answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ..dynamics import Bodies, step_fixed
from ..dynamics.integrators import Method
from ..dynamics.quaternion import Array
from .inputs import InputChannels
from .limits import divergence_reason

_KERNEL: ModuleType | bool | None = False  # False: not looked up yet


def _kernel() -> ModuleType | None:
    """The compiled kernel module, or None without numba (imported on first use)."""
    global _KERNEL
    if _KERNEL is False:
        from ..dynamics import kernel

        _KERNEL = kernel if kernel.AVAILABLE else None
    return _KERNEL  # type: ignore[return-value]


def run_steps(
    bodies: Bodies, x: Array, inputs: InputChannels, h: float, method: Method, k: int
) -> Array:
    """x after k steps of size h (s) with `method`, inputs held over each step; x is not modified.

    Shapes: x (N, 13) → (N, 13). Floating-point warnings are silenced: a state
    that overflows becomes inf/NaN, which the caller's divergence check reports.
    """
    if k <= 0:
        return x
    with np.errstate(all="ignore"):
        if not inputs.rotating:
            u = inputs.total(x)
            kern = _kernel()
            if kern is not None:
                y = np.array(x, dtype=np.float64, order="C")  # advanced in place
                kern.advance(kern.packed(bodies), y, u, h, k, method)
                return y
            for _ in range(k):
                x = step_fixed(bodies, x, u, h, method)
        else:
            for _ in range(k):
                x = step_fixed(bodies, x, inputs.total(x), h, method)
    return x


class StepResult(NamedTuple):
    x: Array  # the state after the last good step (the start state if none was good)
    taken: int  # good steps taken
    reason: str | None  # why stepping stopped early (divergence), None when all k were taken


def run_steps_checked(
    bodies: Bodies,
    x: Array,
    inputs: InputChannels,
    h: float,
    method: Method,
    k: int,
    names: Sequence[str],
) -> StepResult:
    """Like `run_steps`, but stop at the last good state when a step diverges."""
    start = np.array(x, dtype=float, copy=True)  # kept intact for the replay
    end = run_steps(bodies, start.copy(), inputs, h, method, k)
    reason = divergence_reason(end, names)
    if reason is None:
        return StepResult(end, k, None)
    y = start
    for i in range(k):
        y_next = run_steps(bodies, y.copy(), inputs, h, method, 1)
        why = divergence_reason(y_next, names)
        if why is not None:
            return StepResult(y, i, why)
        y = y_next
    # The replay stayed good (a nondeterministic kernel); its end state is a valid result.
    return StepResult(y, k, None)


#: Steps between checks of the compute deadline and of divergence: the first chunk of a
#: run, doubled up to CHUNK_MAX while a chunk takes less than CHUNK_SECONDS of wall time
#: (always, without a deadline), so fast kernels pay little per-chunk overhead and slow
#: ones still notice the deadline in time.
CHUNK = 32
CHUNK_MAX = 4096
CHUNK_SECONDS = 0.002


class RunResult(NamedTuple):
    x: Array  # the state after the last good step
    taken: int
    reason: str | None  # divergence that stopped the run, else None
    cut_short: bool  # stopped at the deadline with steps left


def run_until(
    bodies: Bodies,
    x: Array,
    inputs: InputChannels,
    h: float,
    method: Method,
    k: int,
    names: Sequence[str],
    clock: Callable[[], float],
    deadline: float | None,
) -> RunResult:
    """Up to k steps in chunks, stopping at divergence or once `clock()` is past `deadline`."""
    taken = 0
    chunk = CHUNK
    last = clock() if deadline is not None else 0.0
    while taken < k:
        res = run_steps_checked(bodies, x, inputs, h, method, min(chunk, k - taken), names)
        x = res.x
        taken += res.taken
        if res.reason is not None:
            return RunResult(x, taken, res.reason, False)
        if deadline is None:
            chunk = min(2 * chunk, CHUNK_MAX)
        elif taken < k:
            now = clock()
            if now > deadline:
                return RunResult(x, taken, None, True)
            if now - last < CHUNK_SECONDS:
                chunk = min(2 * chunk, CHUNK_MAX)
            last = now
    return RunResult(x, taken, None, False)


def warm_up() -> float:
    """Compile (or load from numba's cache) the stepping and input kernels; seconds taken.

    Call it once at start-up so the first advance, and the first body-frame
    input, do not stall for the compilation.
    """
    import time

    from . import input_kernel

    start = time.perf_counter()
    kern = _kernel()
    if kern is not None:
        kern.warm_up()
    input_kernel.warm_up()
    return time.perf_counter() - start
