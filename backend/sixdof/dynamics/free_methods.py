"""`integrate` for the two methods of the free rigid body: `exact` (exact.py, the closed
form) and `geometric` (splitting.py, the fourth-order splitting). Apart from
integrators.py so that the kernel's dispatch gains two lines, not two methods.
"""

from __future__ import annotations

import numpy as np

from .elements import System
from .integrators import (
    KERNEL_CHUNK,
    IntegratorSettings,
    ProgressCallback,
    RunStats,
    _check_finite,
)
from .model import STATE_SIZE
from .params import Bodies
from .quaternion import Array


def integrate_free(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
    system: System | None = None,
) -> tuple[Array, RunStats]:
    """States at t_out (T, N, 13) from x (N, 13) at t_out[0], constant inputs u (N, 6)."""
    if settings.method == "exact":
        from .exact import check_exact, exact_states

        check_exact(bodies, x, u, system is not None)
        out = exact_states(bodies, x, u, t_out, float(t_out[0]))
        if progress is not None:
            progress(float(t_out[-1]))
        return out, RunStats()
    return _integrate_geometric(bodies, x, u, t_out, settings, progress, system)


def _integrate_geometric(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
    system: System | None,
) -> tuple[Array, RunStats]:
    """Span i takes n_i = ceil(span/step) equal steps, as the kernel's fixed steps do."""
    from . import kernel, splitting

    splitting.check_geometric(bodies, system is not None)
    params, loads = splitting.pack(bodies), kernel.load_rows(u, len(bodies))
    spans = np.diff(t_out)
    counts = np.where(
        spans > 0, np.maximum(1.0, np.ceil(spans / settings.step - 1e-9)), 0.0
    ).astype(np.int64)
    h = np.divide(spans, counts, out=np.zeros_like(spans), where=counts > 0)
    out = np.empty((t_out.size, len(bodies), STATE_SIZE))
    out[0] = x
    state = np.array(x, dtype=float, order="C")
    chunk = max(1, KERNEL_CHUNK // len(bodies))
    for j in range(spans.size):
        left = int(counts[j])
        while left > 0:  # long spans in pieces: progress and a blown-up run stop early
            n = min(left, chunk)
            splitting.advance(params, state, loads, float(h[j]), n)
            left -= n
            _check_finite(state, float(t_out[j + 1]))
        out[j + 1] = state
        if progress is not None:
            progress(float(t_out[j + 1]))
    steps = int(counts.sum())
    # per step: three Strang steps, each two kicks (a load evaluation each)
    return out, RunStats(steps=steps, evaluations=6 * steps)
