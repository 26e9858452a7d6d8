"""Elements that carry states of their own (layout.E_STATES: a controller's integral, a
linear system's x; later a cable's lumped masses): the one dispatch on those kinds, and a
group's stepping rows with its states after its bodies'.

A group whose elements carry states steps the array W (cnt + ⌈nz/13⌉, 13): its bodies' rows,
then its states, 13 a row, so that `stepper_compiled.rk_step`'s array path takes every stage
of bodies and states together (fourth order with RK4) with no stage sequence of its own; the
derivative (`system_compiled._group_derivative`) writes the states' rates into the rows past
the bodies'. An element reads its k-th state at W[cnt + k // 13, k % 13], k counted from the
group's first (its row's E_STATES).
"""

from __future__ import annotations

import numpy as np

from .kernel_compiled import njit
from .kinds import cable, controller, radiation
from .layout import E_KIND

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "1ba462e156f985e4"


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def state_act(p, el, e, aux, i, y, r, W, base, K, t):
    """What element e, one that carries states (layout.E_STATES), does to body i at state y
    (rotation r): its 12-tuple as `_act`'s, its states read from the group's stage rows W
    after `base` body rows and their rates written into K's (when K has rows). The one
    dispatch on the kinds that carry states."""
    if el[e, E_KIND] == controller.CODE:
        return controller.act_states(p, el, e, aux, i, y, r, W, base, K)
    if el[e, E_KIND] == radiation.CODE:
        return radiation.act_states(p, el, e, aux, i, y, r, W, base, K, t)
    if el[e, E_KIND] == cable.CODE:
        return cable.act_states(p, el, e, aux, i, y, r, W, base, K)
    return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, y[0], y[1], y[2], y[0], y[1], y[2]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def with_states(x, first, cnt, z, z0, nz):
    """A group's stepping rows: its bodies' rows of x, then its states z[z0:z0 + nz], 13 a
    row (zeros after the last: their rates are zero, they stay zero)."""
    W = np.zeros((cnt + (nz + 12) // 13, 13))
    W[:cnt] = x[first : first + cnt]
    for k in range(nz):
        W[cnt + k // 13, k % 13] = z[z0 + k]
    return W


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def without_states(W, x, first, cnt, z, z0, nz):
    """`with_states` undone: the rows back into x, the states into z."""
    x[first : first + cnt] = W[:cnt]
    for k in range(nz):
        z[z0 + k] = W[cnt + k // 13, k % 13]
