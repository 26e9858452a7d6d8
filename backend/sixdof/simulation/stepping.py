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

from collections.abc import Sequence
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
