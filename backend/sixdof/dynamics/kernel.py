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

import os
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from .integrators import TABLEAUS, Method, check_step, rk_step
from .model import INPUT_SIZE, NORM_TIME_CONSTANT, STATE_SIZE
from .model import derivative as reference_derivative
from .params import Bodies
from .quaternion import Array

# OpenMP worker threads that spin while they wait steal a core from everything
# else; on a shared 2-core machine that made a one-step prange call over 10,000
# bodies take ~16 ms instead of ~1.5 ms. Passive waiting costs ~50 µs per
# parallel call instead, which PARALLEL_MIN_WORK keeps small calls clear of.
# libgomp reads this when numba first loads it; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

try:
    import numba
    from numba import njit, prange

    AVAILABLE = True
except ImportError:  # numba is a declared dependency; keep the package importable without it
    numba = None
    AVAILABLE = False
    prange = range

    def njit(*_args: object, **_kwargs: object):  # type: ignore[no-redef]
        return lambda f: f


#: Method codes of the kernels (FhSim's IntegratorMethod numbers).
METHOD_CODES: dict[str, int] = {"euler": 0, "rk4": 1}
STAGES = {0: 1, 1: 4}

# Row layout of a packed parameter array (N, PARAM_SIZE).
P_MASS = 0
P_GRAVITY = 1
P_CORIOLIS = 2
P_R_CG = 3  # r_g, 3 entries
P_INERTIA_O = 6  # I_o, 3×3 row-major
P_MASS_INV = 15  # M_RB⁻¹, 6×6 row-major
P_BLOCK = 51  # 1.0 without a CG offset (r_g = 0, M_RB⁻¹ block diagonal), else 0.0
PARAM_SIZE = 52

#: Below this many body-steps per call the serial kernel runs, above it `prange`
#: spreads bodies over the cores. With passive OpenMP waiting, waking the second
#: thread costs ~50 µs per call (benchmarks/bench_kernel.py --threshold): prange
#: wins from ~1000–4000 body-steps (~0.1–0.5 ms serial), up to 2× on 2 idle cores.
PARALLEL_MIN_WORK = 4096

_TAU_GAIN = 0.5 / NORM_TIME_CONSTANT  # 1/(2τ)
_B1 = 1.0 / 6.0  # RK4 weights, as integrators.RK4.b
_B2 = 1.0 / 3.0


# --------------------------------------------------------------------------- compiled core


@njit(cache=True, fastmath=False)
def _derivative(p, u, i, y):
    """ẋ of body i at state y (13-tuple), parameter row p[i], input row u[i]; a 13-tuple."""
    qw = y[3]
    qx = y[4]
    qy = y[5]
    qz = y[6]
    vx = y[7]
    vy = y[8]
    vz = y[9]
    wx = y[10]
    wy = y[11]
    wz = y[12]
    # R(q) = E + 2ηS(ε) + 2S(ε)², the same formula as quaternion.to_rotmat (valid for |q| ≠ 1).
    r00 = 1.0 - 2.0 * (qy * qy + qz * qz)
    r01 = 2.0 * (qx * qy - qw * qz)
    r02 = 2.0 * (qx * qz + qw * qy)
    r10 = 2.0 * (qx * qy + qw * qz)
    r11 = 1.0 - 2.0 * (qx * qx + qz * qz)
    r12 = 2.0 * (qy * qz - qw * qx)
    r20 = 2.0 * (qx * qz - qw * qy)
    r21 = 2.0 * (qy * qz + qw * qx)
    r22 = 1.0 - 2.0 * (qx * qx + qy * qy)
    # ṗ = R v
    pdx = r00 * vx + r01 * vy + r02 * vz
    pdy = r10 * vx + r11 * vy + r12 * vz
    pdz = r20 * vx + r21 * vy + r22 * vz
    # q̇ = ½ q ⊗ (0, ω) + (1/(2τ)) (1 − qᵀq) q
    kn = _TAU_GAIN * (1.0 - (qw * qw + qx * qx + qy * qy + qz * qz))
    qdw = 0.5 * (-(qx * wx + qy * wy + qz * wz)) + kn * qw
    qdx = 0.5 * (qw * wx + (qy * wz - qz * wy)) + kn * qx
    qdy = 0.5 * (qw * wy + (qz * wx - qx * wz)) + kn * qy
    qdz = 0.5 * (qw * wz + (qx * wy - qy * wx)) + kn * qz
    # F_b = Rᵀ (F_n + m g_n), M_b = Rᵀ M_n + r_g × F_b
    m = p[i, P_MASS]
    fnx = u[i, 0]
    fny = u[i, 1]
    fnz = u[i, 2] + m * p[i, P_GRAVITY]
    mnx = u[i, 3]
    mny = u[i, 4]
    mnz = u[i, 5]
    t0 = r00 * fnx + r10 * fny + r20 * fnz
    t1 = r01 * fnx + r11 * fny + r21 * fnz
    t2 = r02 * fnx + r12 * fny + r22 * fnz
    t3 = r00 * mnx + r10 * mny + r20 * mnz
    t4 = r01 * mnx + r11 * mny + r21 * mnz
    t5 = r02 * mnx + r12 * mny + r22 * mnz
    # Without a CG offset (P_BLOCK) every r_g term is an exact zero: skipping them
    # changes no bit of the result, and M_RB⁻¹ is block diagonal.
    offset = p[i, P_BLOCK] == 0.0
    rx = p[i, P_R_CG]
    ry = p[i, P_R_CG + 1]
    rz = p[i, P_R_CG + 2]
    if offset:
        t3 += ry * t2 - rz * t1
        t4 += rz * t0 - rx * t2
        t5 += rx * t1 - ry * t0
    c = p[i, P_CORIOLIS]
    if c != 0.0:
        # C ν = (m ω × (v + ω × r_g), m r_g × (ω × v) + ω × (I_o ω)); `fhsim` (c = 0) drops it.
        o = P_INERTIA_O
        iwx = p[i, o] * wx + p[i, o + 1] * wy + p[i, o + 2] * wz
        iwy = p[i, o + 3] * wx + p[i, o + 4] * wy + p[i, o + 5] * wz
        iwz = p[i, o + 6] * wx + p[i, o + 7] * wy + p[i, o + 8] * wz
        ax = vx
        ay = vy
        az = vz
        if offset:
            ax += wy * rz - wz * ry
            ay += wz * rx - wx * rz
            az += wx * ry - wy * rx
            bx = wy * vz - wz * vy
            by = wz * vx - wx * vz
            bz = wx * vy - wy * vx
            t3 -= c * (m * (ry * bz - rz * by) + (wy * iwz - wz * iwy))
            t4 -= c * (m * (rz * bx - rx * bz) + (wz * iwx - wx * iwz))
            t5 -= c * (m * (rx * by - ry * bx) + (wx * iwy - wy * iwx))
        else:
            t3 -= c * (wy * iwz - wz * iwy)
            t4 -= c * (wz * iwx - wx * iwz)
            t5 -= c * (wx * iwy - wy * iwx)
        t0 -= c * (m * (wy * az - wz * ay))
        t1 -= c * (m * (wz * ax - wx * az))
        t2 -= c * (m * (wx * ay - wy * ax))
    # ν̇ = M_RB⁻¹ τ (row-major 6×6, written out: no loop, no temporaries). Without a CG
    # offset M_RB⁻¹ is block diagonal (its off-diagonal blocks are exact zeros), so the
    # two 3×3 blocks give the same numbers for less than half the work.
    o = P_MASS_INV
    if not offset:
        n0 = p[i, o] * t0 + p[i, o + 1] * t1 + p[i, o + 2] * t2
        n1 = p[i, o + 6] * t0 + p[i, o + 7] * t1 + p[i, o + 8] * t2
        n2 = p[i, o + 12] * t0 + p[i, o + 13] * t1 + p[i, o + 14] * t2
        n3 = p[i, o + 21] * t3 + p[i, o + 22] * t4 + p[i, o + 23] * t5
        n4 = p[i, o + 27] * t3 + p[i, o + 28] * t4 + p[i, o + 29] * t5
        n5 = p[i, o + 33] * t3 + p[i, o + 34] * t4 + p[i, o + 35] * t5
    else:
        n0 = (
            p[i, o] * t0
            + p[i, o + 1] * t1
            + p[i, o + 2] * t2
            + p[i, o + 3] * t3
            + p[i, o + 4] * t4
            + p[i, o + 5] * t5
        )
        n1 = (
            p[i, o + 6] * t0
            + p[i, o + 7] * t1
            + p[i, o + 8] * t2
            + p[i, o + 9] * t3
            + p[i, o + 10] * t4
            + p[i, o + 11] * t5
        )
        n2 = (
            p[i, o + 12] * t0
            + p[i, o + 13] * t1
            + p[i, o + 14] * t2
            + p[i, o + 15] * t3
            + p[i, o + 16] * t4
            + p[i, o + 17] * t5
        )
        n3 = (
            p[i, o + 18] * t0
            + p[i, o + 19] * t1
            + p[i, o + 20] * t2
            + p[i, o + 21] * t3
            + p[i, o + 22] * t4
            + p[i, o + 23] * t5
        )
        n4 = (
            p[i, o + 24] * t0
            + p[i, o + 25] * t1
            + p[i, o + 26] * t2
            + p[i, o + 27] * t3
            + p[i, o + 28] * t4
            + p[i, o + 29] * t5
        )
        n5 = (
            p[i, o + 30] * t0
            + p[i, o + 31] * t1
            + p[i, o + 32] * t2
            + p[i, o + 33] * t3
            + p[i, o + 34] * t4
            + p[i, o + 35] * t5
        )
    return (pdx, pdy, pdz, qdw, qdx, qdy, qdz, n0, n1, n2, n3, n4, n5)


@njit(cache=True, fastmath=False)
def _axpy(y, h, k):
    """y + h k for 13-tuples."""
    return (
        y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2], y[3] + h * k[3],
        y[4] + h * k[4], y[5] + h * k[5], y[6] + h * k[6], y[7] + h * k[7],
        y[8] + h * k[8], y[9] + h * k[9], y[10] + h * k[10], y[11] + h * k[11],
        y[12] + h * k[12],
    )  # fmt: skip


@njit(cache=True, fastmath=False)
def _rk4_sum(y, h, a, b, c, d):
    """y + h (a/6 + b/3 + c/3 + d/6) for 13-tuples: the RK4 update."""
    return (
        y[0] + h * (_B1 * a[0] + _B2 * b[0] + _B2 * c[0] + _B1 * d[0]),
        y[1] + h * (_B1 * a[1] + _B2 * b[1] + _B2 * c[1] + _B1 * d[1]),
        y[2] + h * (_B1 * a[2] + _B2 * b[2] + _B2 * c[2] + _B1 * d[2]),
        y[3] + h * (_B1 * a[3] + _B2 * b[3] + _B2 * c[3] + _B1 * d[3]),
        y[4] + h * (_B1 * a[4] + _B2 * b[4] + _B2 * c[4] + _B1 * d[4]),
        y[5] + h * (_B1 * a[5] + _B2 * b[5] + _B2 * c[5] + _B1 * d[5]),
        y[6] + h * (_B1 * a[6] + _B2 * b[6] + _B2 * c[6] + _B1 * d[6]),
        y[7] + h * (_B1 * a[7] + _B2 * b[7] + _B2 * c[7] + _B1 * d[7]),
        y[8] + h * (_B1 * a[8] + _B2 * b[8] + _B2 * c[8] + _B1 * d[8]),
        y[9] + h * (_B1 * a[9] + _B2 * b[9] + _B2 * c[9] + _B1 * d[9]),
        y[10] + h * (_B1 * a[10] + _B2 * b[10] + _B2 * c[10] + _B1 * d[10]),
        y[11] + h * (_B1 * a[11] + _B2 * b[11] + _B2 * c[11] + _B1 * d[11]),
        y[12] + h * (_B1 * a[12] + _B2 * b[12] + _B2 * c[12] + _B1 * d[12]),
    )


@njit(cache=True, fastmath=False)
def _step(p, u, i, y, h, method):
    """One step of body i: explicit Euler (method 0) or classic RK4 (method 1)."""
    k1 = _derivative(p, u, i, y)
    if method == 0:
        return _axpy(y, h, k1)
    # 0.5 h k = h (0.5 k) exactly, so the stages match rk_step's to the last bit.
    k2 = _derivative(p, u, i, _axpy(y, 0.5 * h, k1))
    k3 = _derivative(p, u, i, _axpy(y, 0.5 * h, k2))
    k4 = _derivative(p, u, i, _axpy(y, h, k3))
    return _rk4_sum(y, h, k1, k2, k3, k4)


@njit(cache=True, fastmath=False)
def _load(row):
    return (
        row[0], row[1], row[2], row[3], row[4], row[5], row[6],
        row[7], row[8], row[9], row[10], row[11], row[12],
    )  # fmt: skip


@njit(cache=True, fastmath=False)
def _store(row, y):
    row[0] = y[0]
    row[1] = y[1]
    row[2] = y[2]
    row[3] = y[3]
    row[4] = y[4]
    row[5] = y[5]
    row[6] = y[6]
    row[7] = y[7]
    row[8] = y[8]
    row[9] = y[9]
    row[10] = y[10]
    row[11] = y[11]
    row[12] = y[12]


@njit(cache=True, fastmath=False)
def _derivative_batch(p, x, u, out):
    for i in range(x.shape[0]):
        _store(out[i], _derivative(p, u, i, _load(x[i])))


@njit(cache=True, fastmath=False)
def _spans_body(p, x, u, i, h_spans, n_spans, method, out):
    y = _load(x[i])
    for s in range(h_spans.shape[0]):
        h = h_spans[s]
        for _ in range(n_spans[s]):
            y = _step(p, u, i, y, h, method)
        _store(out[s, i], y)
    _store(x[i], y)


@njit(cache=True, fastmath=False)
def _spans_serial(p, x, u, h_spans, n_spans, method, out):
    for i in range(x.shape[0]):
        _spans_body(p, x, u, i, h_spans, n_spans, method, out)


@njit(cache=True, fastmath=False, parallel=True)
def _spans_parallel(p, x, u, h_spans, n_spans, method, out):
    for i in prange(x.shape[0]):
        _spans_body(p, x, u, i, h_spans, n_spans, method, out)


@njit(cache=True, fastmath=False)
def _advance_body(p, x, u, i, h, n, method):
    y = _load(x[i])
    for _ in range(n):
        y = _step(p, u, i, y, h, method)
    _store(x[i], y)


@njit(cache=True, fastmath=False)
def _uniform_serial(p, x, u, h, n, method):
    for i in range(x.shape[0]):
        _advance_body(p, x, u, i, h, n, method)


@njit(cache=True, fastmath=False, parallel=True)
def _uniform_parallel(p, x, u, h, n, method):
    for i in prange(x.shape[0]):
        _advance_body(p, x, u, i, h, n, method)


@njit(cache=True, fastmath=False)
def _each_serial(p, x, u, h, n, method):
    for i in range(x.shape[0]):
        _advance_body(p, x, u, i, h[i], n[i], method[i])


@njit(cache=True, fastmath=False, parallel=True)
def _each_parallel(p, x, u, h, n, method):
    for i in prange(x.shape[0]):
        _advance_body(p, x, u, i, h[i], n[i], method[i])


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
