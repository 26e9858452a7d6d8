"""Compiled fixed-step integration of the 6DBody model (numba), for one body or many.

The numpy reference (`model.derivative` driven by `integrators.rk_step`) builds
dozens of small temporaries per evaluation and costs ~300 µs per RK4 step. Here
the same equations (model.py's docstring; DESIGN.md sections 2 and 3)

    ṗ = R(q) v
    q̇ = ½ q ⊗ (0, ω) + (1/(2τ)) (1 − qᵀq) q,                τ = NORM_TIME_CONSTANT
    ν̇ = M_RB⁻¹ (τ_b − c C_RB(ν) ν),                           ν = (v, ω)
    τ_b = (F_b, Rᵀ M_n + r_g × F_b),   F_b = Rᵀ (F_n + m g_n),   g_n = (0, 0, g)
    C ν = (m ω × (v + ω × r_g),  m r_g × (ω × v) + ω × (I_o ω))

are written out in scalar arithmetic: the state lives in a 13-tuple (registers),
R(q), the cross products and the 6×6 product with M_RB⁻¹ are inlined, so a step
allocates nothing. Whole runs (many steps, many bodies) happen inside one
compiled call; `prange` spreads bodies over the cores for large batches.

Parameters are packed once (`pack`) into a float64 array, one row per body, so
a call needs no Python-object conversion. The row holds m, g, the model factor
c (1 `full`, 0 `fhsim`), r_g, I_o (3×3) and M_RB⁻¹ (6×6) exactly as `Bodies`
has them, so kernel and reference agree to rounding (~1e-15 relative), and a
flag for r_g = 0, where the r_g terms are exact zeros and are skipped (~20 %
faster, same bits).

Methods are FhSim's `IntegratorMethod` numbers: 0 explicit Euler, 1 classic RK4.
Step sizes are checked against the explicit methods' stability limits
(`integrators.check_step`). Nothing compiles at import; `warm_up()` compiles (or
loads from numba's on-disk cache) every kernel signature the wrappers use. If
numba cannot be imported, `AVAILABLE` is False and every public function here
runs the numpy reference instead, with the same results.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from .integrators import TABLEAUS, Method, check_step, rk_step
from .kernel_compiled import (  # the compiled core; re-exported for tests and benchmarks
    AVAILABLE,
    METHOD_CODES,
    P_BLOCK,
    P_CORIOLIS,
    P_GRAVITY,
    P_INERTIA_O,
    P_MASS,
    P_MASS_INV,
    P_R_CG,
    PARALLEL_MIN_WORK,
    PARAM_SIZE,
    STAGES,
    _derivative_batch,
    _each_parallel,
    _each_serial,
    _spans_parallel,
    _spans_serial,
    _uniform_parallel,
    _uniform_serial,
    numba,
)
from .model import INPUT_SIZE, NORM_TIME_CONSTANT, STATE_SIZE
from .model import derivative as reference_derivative
from .params import Bodies
from .quaternion import Array

# --------------------------------------------------------------------------- packing


@dataclass(frozen=True, eq=False)
class PackedBodies:
    """N bodies ready for the kernels.

    `params` (N, PARAM_SIZE) float64, one row per body (layout: the P_* offsets);
    `bodies` is the `Bodies` it was packed from (the numpy fallback needs it).
    Treat both as read-only: to change a parameter, pack the new `Bodies`.
    """

    params: Array
    bodies: Bodies

    def __len__(self) -> int:
        return int(self.params.shape[0])


def pack(bodies: Bodies) -> PackedBodies:
    """Pack a `Bodies` batch into one float64 array (N, PARAM_SIZE), once per parameter set."""
    n = len(bodies)
    params = np.zeros((n, PARAM_SIZE))
    params[:, P_MASS] = bodies.mass
    params[:, P_GRAVITY] = bodies.gravity
    params[:, P_CORIOLIS] = bodies.coriolis
    params[:, P_R_CG : P_R_CG + 3] = bodies.r_cg_body
    params[:, P_INERTIA_O : P_INERTIA_O + 9] = bodies.inertia_o.reshape(n, 9)
    params[:, P_MASS_INV : P_MASS_INV + 36] = bodies.mass_matrix_inv.reshape(n, 36)
    inv = bodies.mass_matrix_inv
    block = ~np.any(inv[:, 0:3, 3:6], axis=(1, 2)) & ~np.any(inv[:, 3:6, 0:3], axis=(1, 2))
    params[:, P_BLOCK] = block & ~np.any(bodies.r_cg_body, axis=1)
    return PackedBodies(params, bodies)


def concat(packs: Sequence[PackedBodies]) -> PackedBodies:
    """One batch of all bodies of several packs, in order (e.g. every room of a server)."""
    if not packs:
        raise ValueError("at least one PackedBodies is needed")
    bodies = Bodies(
        **{
            f.name: np.concatenate([getattr(p.bodies, f.name) for p in packs])
            for f in fields(Bodies)
        }
    )
    return PackedBodies(np.concatenate([p.params for p in packs]), bodies)


def _take(bodies: Bodies, index: Array) -> Bodies:
    return Bodies(**{f.name: getattr(bodies, f.name)[index] for f in fields(Bodies)})


_CACHE: dict[int, tuple[weakref.ref[Bodies], PackedBodies]] = {}


def packed(bodies: Bodies) -> PackedBodies:
    """`pack(bodies)`, remembered for as long as that `Bodies` object lives.

    `Bodies` is frozen; this assumes its arrays are not changed in place either.
    """
    key = id(bodies)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is bodies:
        return hit[1]
    result = pack(bodies)

    def forget(_ref: object, key: int = key, cache: dict = _CACHE) -> None:
        cache.pop(key, None)  # bound now: at interpreter exit the global may be gone

    _CACHE[key] = (weakref.ref(bodies, forget), result)
    return result


# --------------------------------------------------------------------------- checked wrappers


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


_NAMES = {code: name for name, code in METHOD_CODES.items()}


def _codes(method: str | int | Sequence[str | int] | Array, n: int) -> Array:
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


def _check_steps(h: Array, codes: Array, active: Array, field: str) -> None:
    """Every active step must satisfy check_step; raise for the first that does not."""
    limit = np.where(codes == 0, 2.0, TABLEAUS["rk4"].real_stability) * NORM_TIME_CONSTANT
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


def _use_parallel(n_bodies: int, work: int) -> bool:
    return n_bodies > 1 and work >= PARALLEL_MIN_WORK and numba.get_num_threads() > 1


# --------------------------------------------------------------------------- public API


def derivative(pk: PackedBodies, x: ArrayLike, u: ArrayLike) -> Array:
    """ẋ = f(x, u) for N bodies, shape (N, 13): the compiled twin of model.derivative."""
    n = len(pk)
    xs = _c_array(x, (n, STATE_SIZE), "x")
    us = _c_array(u, (n, INPUT_SIZE), "u")
    if not AVAILABLE:
        return reference_derivative(xs, us, pk.bodies)
    out = np.empty((n, STATE_SIZE))
    _derivative_batch(pk.params, xs, us, out)
    return out


def advance(
    pk: PackedBodies,
    x: Array,
    u: ArrayLike,
    h: float | ArrayLike,
    n_steps: int | ArrayLike = 1,
    method: str | int | Sequence[str | int] = "rk4",
) -> None:
    """Advance N bodies in place: body i takes n_steps[i] steps of h[i] s with method[i].

    x (N, 13) float64, C-contiguous, is overwritten with the new states; u (N, 6)
    or (6,) holds each body's global Force and Moment, constant over the call
    (zero-order hold). h, n_steps and method are each one value for all bodies
    or one per body, so a server can step every body of every room, each room
    with its own step size, step count and method, in one call per tick.
    Bad input raises (StepSizeError / ValueError naming the field) before any
    state changes.
    """
    n = len(pk)
    _writable_state(x, n)
    us = _c_array(u, (n, INPUT_SIZE), "u")
    if isinstance(method, str | int) and _is_scalar(h) and _is_scalar(n_steps):
        _advance_uniform(pk, x, us, h, n_steps, method)  # type: ignore[arg-type]
        return
    codes = _codes(method, n)
    hs_arr = _c_array(h, (n,), "step")
    counts = _counts(n_steps, (n,), "n_steps")
    _check_steps(hs_arr, codes, counts > 0, "step")
    if not AVAILABLE:
        groups = np.stack([hs_arr, counts.astype(float), codes.astype(float)], axis=1)
        for key in np.unique(groups, axis=0):
            idx = np.flatnonzero(np.all(groups == key, axis=1))
            if key[1] > 0:
                x[idx] = _reference_run(
                    _take(pk.bodies, idx), x[idx], us[idx], key[0], int(key[1]), _NAMES[int(key[2])]
                )
        return
    if _use_parallel(n, int(counts.sum())):
        _each_parallel(pk.params, x, us, hs_arr, counts, codes)
    else:
        _each_serial(pk.params, x, us, hs_arr, counts, codes)


def _advance_uniform(
    pk: PackedBodies, x: Array, u: Array, h: float, n_steps: int, method: str | int
) -> None:
    """`advance` with one h, step count and method for all bodies (the common, fast path)."""
    code = method_code(method)
    if isinstance(n_steps, bool) or not isinstance(n_steps, int | np.integer) or n_steps < 0:
        raise ValueError(f"n_steps: expected a whole number ≥ 0, got {n_steps!r}")
    steps = int(n_steps)
    if steps == 0:
        return
    hs = check_step(_NAMES[code], h, "step")
    n = len(pk)
    if not AVAILABLE:
        x[:] = _reference_run(pk.bodies, x, u, hs, steps, _NAMES[code])
    elif _use_parallel(n, n * steps):
        _uniform_parallel(pk.params, x, u, hs, steps, code)
    else:
        _uniform_serial(pk.params, x, u, hs, steps, code)


def integrate_fixed(
    pk: PackedBodies,
    x: Array,
    u: ArrayLike,
    h: float | ArrayLike,
    n_steps: int | ArrayLike,
    method: str | int = "rk4",
    out: Array | None = None,
) -> Array:
    """Run all bodies through S spans; return the states after each span, (S, N, 13).

    Span s is n_steps[s] equal steps of h[s] s (h and n_steps: scalars for one
    span, or (S,) arrays); all bodies share the spans, each keeps its own input
    row of u (constant). x (N, 13) is advanced in place to the final state.
    `out`, if given, must be a C-contiguous float64 array (S, N, 13) to fill.
    With h = span/n per output interval this is `integrate`'s fixed-step path.
    """
    n = len(pk)
    _writable_state(x, n)
    us = _c_array(u, (n, INPUT_SIZE), "u")
    code = method_code(method)
    hs = np.atleast_1d(np.asarray(h, dtype=np.float64))
    s = hs.size
    hs = _c_array(hs, (s,), "step")
    counts = _counts(n_steps, (s,), "n_steps")
    _check_steps(hs, np.full(s, code), counts > 0, "step")
    if out is None:
        out = np.empty((s, n, STATE_SIZE))
    elif not (
        isinstance(out, np.ndarray)
        and out.dtype == np.float64
        and out.shape == (s, n, STATE_SIZE)
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        raise ValueError(f"out: expected a writeable C-contiguous float64 array ({s}, {n}, 13)")
    if not AVAILABLE:
        y = x.copy()
        for j in range(s):
            if counts[j] > 0:
                y = _reference_run(pk.bodies, y, us, float(hs[j]), int(counts[j]), _NAMES[code])
            out[j] = y
        x[:] = y
    elif _use_parallel(n, n * int(counts.sum())):
        _spans_parallel(pk.params, x, us, hs, counts, code, out)
    else:
        _spans_serial(pk.params, x, us, hs, counts, code, out)
    return out


def _reference_run(bodies: Bodies, x: Array, u: Array, h: float, n: int, method: Method) -> Array:
    """The numpy reference: n steps of `rk_step` on `model.derivative`."""
    tableau = TABLEAUS[method]
    for _ in range(n):
        x = rk_step(lambda y: reference_derivative(y, u, bodies), x, h, tableau)
    return x


def warm_up() -> float:
    """Compile, or load from numba's cache, every kernel signature; return the seconds taken.

    Call it at start-up (server, benchmark) so the first real step is not slow.
    Without numba it does nothing and returns 0.
    """
    if not AVAILABLE:
        return 0.0
    start = time.perf_counter()
    p = np.zeros((2, PARAM_SIZE))
    p[:, P_MASS] = 1.0
    p[:, P_MASS_INV] = p[:, P_MASS_INV + 7] = p[:, P_MASS_INV + 14] = 1.0
    p[:, P_MASS_INV + 21] = p[:, P_MASS_INV + 28] = p[:, P_MASS_INV + 35] = 1.0
    x = np.zeros((2, STATE_SIZE))
    x[:, 3] = 1.0
    u = np.zeros((2, INPUT_SIZE))
    _derivative_batch(p, x, u, np.empty_like(x))
    spans_h = np.full(1, 1e-3)
    spans_n = np.ones(1, dtype=np.int64)
    each_h = np.full(2, 1e-3)
    each_n = np.ones(2, dtype=np.int64)
    each_m = np.ones(2, dtype=np.int64)
    for f in (_spans_serial, _spans_parallel):
        f(p, x, u, spans_h, spans_n, 1, np.empty((1, 2, STATE_SIZE)))
    for f in (_uniform_serial, _uniform_parallel):
        f(p, x, u, 1e-3, 1, 1)
    for f in (_each_serial, _each_parallel):
        f(p, x, u, each_h, each_n, each_m)
    return time.perf_counter() - start


__all__ = [
    "AVAILABLE",
    "METHOD_CODES",
    "PARAM_SIZE",
    "PackedBodies",
    "advance",
    "concat",
    "derivative",
    "integrate_fixed",
    "method_code",
    "pack",
    "packed",
    "warm_up",
]
