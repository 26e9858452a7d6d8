"""Compiling, or loading from numba's on-disk cache, every kernel signature the engine calls
(kernel.py's wrappers, the elements' kernels, a floating body's hull), before the first step.

Apart from kernel.py (which re-exports `warm_up`): the wrappers need none of it.
"""

from __future__ import annotations

import time

import numpy as np

from .layout import ELEMENT_SIZE, LOAD_SIZE, P_MASS, P_MASS_INV, PARAM_SIZE, RECORD_SIZE
from .model import INPUT_SIZE, STATE_SIZE
from .quaternion import Array, IntArray


def warm_up() -> float:
    """Compile, or load from numba's cache, every kernel signature; return the seconds taken.

    Call it at start-up (server, benchmark) so the first real step is not slow.
    """
    start = time.perf_counter()
    from . import kernel_compiled as k  # numba (~0.3 s) with the first call, not at import

    p = np.zeros((2, PARAM_SIZE))
    p[:, P_MASS] = 1.0
    p[:, P_MASS_INV] = p[:, P_MASS_INV + 7] = p[:, P_MASS_INV + 14] = 1.0
    p[:, P_MASS_INV + 21] = p[:, P_MASS_INV + 28] = p[:, P_MASS_INV + 35] = 1.0
    x = np.zeros((2, STATE_SIZE))
    x[:, 3] = 1.0
    u = np.zeros((2, LOAD_SIZE))
    k._derivative_batch(p, x, u, np.empty_like(x))
    k._applied_batch(u, x, np.empty((2, INPUT_SIZE)))
    spans_h = np.full(1, 1e-3)
    spans_n = np.ones(1, dtype=np.int64)
    each_h = np.full(2, 1e-3)
    each_n = np.ones(2, dtype=np.int64)
    each_m = np.ones(2, dtype=np.int64)
    out = np.empty((1, 2, STATE_SIZE))
    k._spans_serial(p, x, u, spans_h, spans_n, 1, out)
    k._spans_parallel(p, x, u, spans_h, spans_n, 1, out)
    k._uniform_serial(p, x, u, 1e-3, 1, 1)
    k._uniform_parallel(p, x, u, 1e-3, 1, 1)
    k._each_serial(p, x, u, each_h, each_n, each_m)
    k._each_parallel(p, x, u, each_h, each_n, each_m)
    _warm_system(p, x, u, each_h, each_n, each_m, spans_h, spans_n, out)
    tetra = np.array([[[0, 0, 0], [0, 1, 0], [1, 0, 0]], [[0, 0, 0], [0, 0, 1], [0, 1, 0]],
                      [[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]],
                     dtype=float)  # fmt: skip
    from .hull_submerged import submerged  # a floating body's every tick (stored, hydro)

    submerged(tetra, np.eye(3), np.zeros(3), 0.5)
    return time.perf_counter() - start


def _warm_system(
    p: Array,
    x: Array,
    u: Array,
    h: Array,
    n: IntArray,
    m: IntArray,
    spans_h: Array,
    spans_n: IntArray,
    out: Array,
) -> None:
    """Compile the element kernels' signatures (a spring joining two bodies and a pivot)."""
    from . import system_compiled as s

    groups = np.array([[0, 2]], dtype=np.int64)
    rows = np.zeros((1, ELEMENT_SIZE))
    bounds = np.array([0, 1], dtype=np.int64)
    aux = np.zeros(0)
    t = np.zeros(2)
    s.system_serial(p, x, u, groups, rows, bounds, aux, t, h, n, m)
    s.system_derivative(
        p, x, u, groups, rows, bounds, aux, 0.0, 1e-3, np.empty_like(x), np.zeros((1, RECORD_SIZE))
    )
    s.system_derivative(
        p, x, u, groups, rows, bounds, aux, 0.0, 1e-3, np.empty_like(x), np.empty((0, RECORD_SIZE))
    )


__all__ = ["warm_up"]
