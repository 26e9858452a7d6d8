"""The compiled kernels' arguments, checked before any state changes: states, load rows,
method codes, step sizes and counts, and the elements' own states (layout.E_STATES).
Apart from `kernel` so that its entry points stay readable."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .layout import L_M_GLOBAL, LOAD_SIZE, STAGES
from .methods import TABLEAUS, check_step
from .names import METHOD_CODES, NORM_TIME_CONSTANT, Method
from .packing import PackedBodies
from .quaternion import Array, BoolArray, IntArray
from .sizes import INPUT_SIZE, STATE_SIZE


def _writable_state(x: Array, n: int) -> Array:
    if not isinstance(x, np.ndarray) or x.dtype != np.float64 or x.shape != (n, STATE_SIZE):
        shape = getattr(x, "shape", None)
        raise ValueError(f"x: expected a float64 array of shape ({n}, 13), got {shape}")
    if not (x.flags.c_contiguous and x.flags.writeable):
        raise ValueError("x: must be C-contiguous and writeable (it is advanced in place)")
    return x


def _c_array(a: ArrayLike, shape: tuple[int, ...], name: str) -> Array:
    """A C-contiguous, writeable float64 array of `shape` (broadcast, copied if needed)."""
    arr = np.asarray(a, dtype=np.float64)
    if arr.shape != shape and shape[0] == 1 and arr.shape == shape[1:]:
        arr = arr[None]  # one body: a view, no copy (the per-step hot path)
    if arr.shape != shape:
        try:
            arr = np.broadcast_to(arr, shape)
        except ValueError:
            raise ValueError(f"{name}: expected shape {shape}, got {arr.shape}") from None
    if not (arr.flags.c_contiguous and arr.flags.writeable):
        arr = np.array(arr, dtype=np.float64, order="C")
    return arr


def load_rows(u: ArrayLike, n: int) -> Array:
    """u as C-contiguous load rows (n, LOAD_SIZE): (n, 6) or (6,) global Force and Moment at
    the CG are padded with zeros (nothing state-dependent); load rows pass as they are."""
    arr = np.asarray(u, dtype=np.float64)
    if arr.shape[-1:] == (LOAD_SIZE,):
        return _c_array(arr, (n, LOAD_SIZE), "u")
    rows = np.zeros((n, LOAD_SIZE))
    rows[:, : L_M_GLOBAL + 3] = _c_array(arr, (n, INPUT_SIZE), "u")
    return rows


def method_code(method: str | int) -> int:
    """0 for "euler", 1 for "rk4" (FhSim's IntegratorMethod numbers); anything else is refused."""
    if isinstance(method, str) and method in METHOD_CODES:
        return METHOD_CODES[method]
    if isinstance(method, int | np.integer) and int(method) in STAGES:
        return int(method)
    raise ValueError(
        f"integrator: the kernels run {list(METHOD_CODES)} (codes 0, 1), got {method!r}; "
        "use integrators.integrate for dopri5 and radau"
    )


_NAMES: dict[int, Method] = {code: name for name, code in METHOD_CODES.items()}


def _codes(method: str | int | Sequence[str | int] | IntArray, n: int) -> IntArray:
    """Method codes, (n,) int64; an integer array of codes is taken as is (no Python loop)."""
    if isinstance(method, np.ndarray) and method.dtype.kind in "iu":
        codes = method.astype(np.int64)
        bad = ~np.isin(codes, list(STAGES))
        if np.any(bad):
            method_code(int(codes[np.argmax(bad)]))  # raises, naming the bad code
    else:
        items = np.atleast_1d(np.asarray(method, dtype=object))
        codes = np.array([method_code(m) for m in items], dtype=np.int64)
    try:
        return np.array(np.broadcast_to(codes, (n,)), order="C")
    except ValueError:
        raise ValueError(f"integrator: expected 1 or {n} methods, got {codes.size}") from None


def _check_steps(h: Array, codes: IntArray, active: BoolArray, field: str) -> None:
    """Every active step must satisfy check_step; raise for the first that does not."""
    stability = np.array([TABLEAUS[_NAMES[int(c)]].real_stability for c in STAGES])
    limit = stability[codes] * NORM_TIME_CONSTANT
    ok = ~active | (np.isfinite(h) & (h > 0.0) & (h < limit))
    if not np.all(ok):
        j = int(np.argmin(ok))
        name = field if h.size == 1 else f"{field}[{j}]"
        check_step(_NAMES[int(codes.flat[j])], float(h.flat[j]), name)  # raises


def _counts(n_steps: ArrayLike, shape: tuple[int, ...], field: str) -> Array:
    """Step counts as a writeable int64 array of `shape` (numba types read-only arrays apart)."""
    arr = np.asarray(n_steps)
    if arr.dtype.kind not in "iu" or np.any(arr < 0):
        raise ValueError(f"{field}: expected whole numbers ≥ 0, got {n_steps!r}")
    try:
        return np.array(np.broadcast_to(arr, shape), dtype=np.int64, order="C")
    except ValueError:
        raise ValueError(f"{field}: expected shape {shape}, got {arr.shape}") from None


def _is_scalar(value: object) -> bool:
    return isinstance(value, int | float | np.number) or (
        isinstance(value, np.ndarray) and value.ndim == 0
    )


def element_states(pk: PackedBodies, z: ArrayLike | None) -> Array:
    """The elements' states z (Z,) as the kernels take them (layout.E_STATES): pk's initial
    ones when None, else checked for their length."""
    s = pk.system
    if s is None:
        return np.zeros(0)
    if z is None:
        return s.initial_states()
    arr = np.asarray(z, dtype=np.float64)
    if arr.shape != (s.n_states,):
        raise ValueError(f"z: the elements carry {s.n_states} states, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def writable_z(pk: PackedBodies, z: Array | None) -> Array:
    """z as `advance` steps it in place; an empty one when pk's elements carry no states."""
    s = pk.system
    assert s is not None
    if z is None:
        if s.n_states:
            raise ValueError(
                f"z: the elements carry {s.n_states} states (a controller's): pass them "
                "(kernel.element_states(pk, None) for their initial values), they step in place"
            )
        return np.zeros(0)
    if not (
        isinstance(z, np.ndarray)
        and z.dtype == np.float64
        and z.shape == (s.n_states,)
        and z.flags.c_contiguous
        and z.flags.writeable
    ):
        raise ValueError(f"z: expected a writeable float64 array ({s.n_states},)")
    return z
