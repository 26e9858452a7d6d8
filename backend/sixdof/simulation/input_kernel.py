"""Compiled evaluation of orientation-dependent inputs (numba), one call per physics step.

The numpy form in inputs.py (`InputChannels.total`) costs ~100 µs per call in
array overhead, far more than a compiled RK4 step (~1–8 µs), and it runs once
per physics step whenever an input is in body axes or acts at a point. This is
the same arithmetic in scalars:

    R   = R(q/|q|)                           (quaternion.to_rotmat of a unit q)
    F_n = R F  (body) or F  (global)
    M_n = R M  (body) or M  (global),   M_n += (R ℓ) × F_n

summed over the two channels, for each of N bodies. Imported on first use;
`AVAILABLE` is False without numba (inputs.py then uses numpy).
"""

from __future__ import annotations

import math

import numpy as np

try:
    from numba import njit

    AVAILABLE = True
except ImportError:  # numba is a declared dependency; keep working without it
    AVAILABLE = False

    def njit(*_args: object, **_kwargs: object):  # type: ignore[no-redef]
        return lambda f: f


@njit(cache=True, fastmath=False, nogil=True)
def total_inputs(force, moment, lever, is_body, x, out):  # type: ignore[no-untyped-def]
    """out (N, 6) ← u of the records force, moment, lever (C, N, 3), is_body (C, N) at x (N, 13)."""
    n = x.shape[0]
    for i in range(n):
        w = x[i, 3]
        a = x[i, 4]
        b = x[i, 5]
        c = x[i, 6]
        inv = 1.0 / math.sqrt(w * w + a * a + b * b + c * c)
        w *= inv
        a *= inv
        b *= inv
        c *= inv
        r00 = 1.0 - 2.0 * (b * b + c * c)
        r01 = 2.0 * (a * b - w * c)
        r02 = 2.0 * (a * c + w * b)
        r10 = 2.0 * (a * b + w * c)
        r11 = 1.0 - 2.0 * (a * a + c * c)
        r12 = 2.0 * (b * c - w * a)
        r20 = 2.0 * (a * c - w * b)
        r21 = 2.0 * (b * c + w * a)
        r22 = 1.0 - 2.0 * (a * a + b * b)
        fx = fy = fz = mx = my = mz = 0.0
        for ch in range(force.shape[0]):
            f0, f1, f2 = force[ch, i, 0], force[ch, i, 1], force[ch, i, 2]
            m0, m1, m2 = moment[ch, i, 0], moment[ch, i, 1], moment[ch, i, 2]
            if is_body[ch, i]:
                f0, f1, f2 = (r00 * f0 + r01 * f1 + r02 * f2, r10 * f0 + r11 * f1 + r12 * f2,
                              r20 * f0 + r21 * f1 + r22 * f2)  # fmt: skip
                m0, m1, m2 = (r00 * m0 + r01 * m1 + r02 * m2, r10 * m0 + r11 * m1 + r12 * m2,
                              r20 * m0 + r21 * m1 + r22 * m2)  # fmt: skip
            l0, l1, l2 = lever[ch, i, 0], lever[ch, i, 1], lever[ch, i, 2]
            g0 = r00 * l0 + r01 * l1 + r02 * l2
            g1 = r10 * l0 + r11 * l1 + r12 * l2
            g2 = r20 * l0 + r21 * l1 + r22 * l2
            fx += f0
            fy += f1
            fz += f2
            mx += m0 + g1 * f2 - g2 * f1
            my += m1 + g2 * f0 - g0 * f2
            mz += m2 + g0 * f1 - g1 * f0
        out[i, 0] = fx
        out[i, 1] = fy
        out[i, 2] = fz
        out[i, 3] = mx
        out[i, 4] = my
        out[i, 5] = mz


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernel's one signature."""
    if AVAILABLE:
        z = np.zeros((2, 1, 3))
        x = np.zeros((1, 13))
        x[0, 3] = 1.0
        total_inputs(z, z, z, np.zeros((2, 1), dtype=np.bool_), x, np.empty((1, 6)))
