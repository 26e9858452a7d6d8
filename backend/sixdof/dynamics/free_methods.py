"""`integrate` for the two methods of the free rigid body: `exact` (exact.py, the closed
form) and `geometric` (splitting.py, the fourth-order splitting). Apart from
integrators.py so that the kernel's dispatch gains two lines, not two methods.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .model import STATE_SIZE
from .params import Bodies
from .quaternion import Array

#: Body-steps per compiled call of `geometric` (~0.5 s): progress and a blown-up run's
#: stop come between calls.
CHUNK = 1_000_000


def integrate_free(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    method: str,
    step: float,
    progress: Callable[[float], None] | None,
    has_elements: bool = False,
) -> tuple[Array, int, int | None]:
    """(states at t_out (T, N, 13) from x (N, 13) at t_out[0], steps taken, the index of the
    first output time whose states are not finite or None), constant inputs u (N, 6).
    Returns rather than raises for a non-finite state: integrators.py says it, as for every
    method (and this module imports nothing of it)."""
    if method == "exact":
        from .exact import check_exact, exact_states

        check_exact(bodies, x, u, has_elements)
        out = exact_states(bodies, x, u, t_out, float(t_out[0]))
        if progress is not None:
            progress(float(t_out[-1]))
        return out, 0, None
    return _integrate_geometric(bodies, x, u, t_out, step, progress, has_elements)


def _integrate_geometric(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    step: float,
    progress: Callable[[float], None] | None,
    has_elements: bool,
) -> tuple[Array, int, int | None]:
    """Span i takes n_i = ceil(span/step) equal steps, as the kernel's fixed steps do."""
    from . import kernel, splitting

    splitting.check_geometric(bodies, has_elements)
    params, loads = splitting.pack(bodies), kernel.load_rows(u, len(bodies))
    spans = np.diff(t_out)
    counts = np.where(spans > 0, np.maximum(1.0, np.ceil(spans / step - 1e-9)), 0.0).astype(
        np.int64
    )
    h = np.divide(spans, counts, out=np.zeros_like(spans), where=counts > 0)
    out = np.empty((t_out.size, len(bodies), STATE_SIZE))
    out[0] = x
    state = np.array(x, dtype=float, order="C")
    chunk = max(1, CHUNK // len(bodies))
    for j in range(spans.size):
        left = int(counts[j])
        while left > 0:  # long spans in pieces: progress and a blown-up run stop early
            n = min(left, chunk)
            splitting.advance(params, state, loads, float(h[j]), n)
            left -= n
            if not np.all(np.isfinite(state)):
                out[j + 1] = state
                return out, int(counts[: j + 1].sum()), j + 1
        out[j + 1] = state
        if progress is not None:
            progress(float(t_out[j + 1]))
    return out, int(counts.sum()), None
