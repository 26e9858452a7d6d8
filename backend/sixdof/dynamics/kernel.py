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

Parameters are packed once (`pack`, packing.py) into a float64 array, one row per
body, so a call needs no Python-object conversion. The row holds m, g, the model factor
c (1 `full`, 0 `fhsim`), r_g, I_o (3×3) and M_RB⁻¹ (6×6) exactly as `Bodies`
has them, so kernel and reference agree to rounding (~1e-15 relative), and a
flag for r_g = 0, where the r_g terms are exact zeros and are skipped (~20 %
faster, same bits).

Loads: u is either (N, 6), a constant global Force and Moment at the CG per body
(FhSim's ports), or (N, LOAD_SIZE) load rows (inputs.py) whose body-frame and at-a-point
parts are evaluated at every stage from the stage's own orientation, so a state-dependent
load keeps the method's order.

Methods are FhSim's `IntegratorMethod` numbers: 0 explicit Euler, 1 classic RK4.
Step sizes are checked against the explicit methods' stability limits
(`methods.check_step`). Nothing compiles at import, and numba itself (~90 MiB, ~0.3 s) is
imported by the first call that runs a kernel (`_core`), so a server that has no room yet
does not hold it; `warm_up()` (kernel_warm.py) compiles (or loads from numba's on-disk
cache) every kernel signature the wrappers use.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np
from numpy.typing import ArrayLike

from .elements import Buoyancy, System
from .hydro import place_buoyancy
from .kernel_args import (
    _NAMES,
    _c_array,
    _check_steps,
    _codes,
    _counts,
    _is_scalar,
    _writable_state,
    load_rows,
    writable_z,
)
from .kernel_args import element_states as element_states
from .kernel_args import method_code as method_code
from .kernel_warm import warm_up as warm_up  # re-exported: callers warm up the kernel
from .kinds.joint import CODE as JOINT_CODE
from .layout import E_KIND, LOAD_SIZE, PARALLEL_MIN_WORK, PARAM_SIZE, RECORD_SIZE
from .layout import P_BLOCK as P_BLOCK  # the layout, re-exported for tests and benchmarks
from .layout import P_CORIOLIS as P_CORIOLIS
from .layout import P_GRAVITY as P_GRAVITY
from .layout import P_INERTIA_O as P_INERTIA_O
from .layout import P_MASS as P_MASS
from .layout import P_MASS_INV as P_MASS_INV
from .layout import P_R_CG as P_R_CG
from .methods import check_step
from .names import METHOD_CODES
from .packing import PackedBodies as PackedBodies  # re-exported: the kernels' one input
from .packing import concat as concat
from .packing import pack as pack
from .packing import packed as packed
from .quaternion import Array, IntArray
from .sizes import INPUT_SIZE, STATE_SIZE

# --------------------------------------------------------------------------- the compiled core

_compiled: ModuleType | None = None


def _core() -> ModuleType:
    """`kernel_compiled`, imported (with numba) on the first call."""
    global _compiled
    if _compiled is None:
        from . import kernel_compiled

        _compiled = kernel_compiled
    return _compiled


_system_compiled: ModuleType | None = None


def _system_core() -> ModuleType:
    """`system_compiled` (bodies with elements), imported on the first call."""
    global _system_compiled
    if _system_compiled is None:
        from . import system_compiled

        _system_compiled = system_compiled
    return _system_compiled


def _use_parallel(n_bodies: int, work: int) -> bool:
    return n_bodies > 1 and work >= PARALLEL_MIN_WORK and _core().threads() > 1


# --------------------------------------------------------------------------- public API


def derivative(
    pk: PackedBodies,
    x: ArrayLike,
    u: ArrayLike,
    t: float = 0.0,
    z: ArrayLike | None = None,
    dz: Array | None = None,
) -> Array:
    """ẋ = f(x, u) for N bodies, shape (N, 13): the compiled twin of model.derivative
    (u: (N, 6) global Force/Moment or (N, LOAD_SIZE) load rows), with pk's elements at
    time t, their states at z (None: their initial ones); `dz` (Z,), when given, gets the
    rates of those states."""
    n = len(pk)
    xs = _c_array(x, (n, STATE_SIZE), "x")
    us = load_rows(u, n)
    out = np.empty((n, STATE_SIZE))
    if pk.system is None:
        _core()._derivative_batch(pk.params, xs, us, out)
    else:
        s = pk.system
        zs = element_states(pk, z)
        _system_core().system_derivative(
            pk.params,
            xs,
            us,
            s.groups,
            s.rows,
            s.bounds,
            s.aux,
            float(t),
            1e-3,
            out,
            np.empty((0, RECORD_SIZE)),
            zs,
            s.state_bounds,
            np.empty_like(zs) if dz is None else dz,
        )
    return out


def element_records(
    pk: PackedBodies,
    x: ArrayLike,
    u: ArrayLike,
    t: float = 0.0,
    h: float = 1e-3,
    z: ArrayLike | None = None,
) -> Array:
    """What each element does at states x and time t, (M, 12) in the order the elements were
    given: its point of application (NED), the force it puts on its body there (N, global;
    a pivot's reaction, a ground's total at the centre of pressure, a damper's at the
    reference point, a buoyancy's at the centre of buoyancy: hydro.place_buoyancy) and its
    other end (a spring's; else the point again), and a joint's reaction moment on its body
    about its point (N·m, global; 0 for the other kinds). Empty without elements. h: the step
    (the ground's friction regularisation depends on it); z: the elements' states (None:
    their initial ones)."""
    if pk.system is None:
        return np.zeros((0, RECORD_SIZE))
    n = len(pk)
    xs = _c_array(x, (n, STATE_SIZE), "x")
    us = load_rows(u, n)
    s = pk.system
    rec = np.zeros((len(s.rows), RECORD_SIZE))
    zs = element_states(pk, z)
    _system_core().system_derivative(
        pk.params,
        xs,
        us,
        s.groups,
        s.rows,
        s.bounds,
        s.aux,
        float(t),
        float(h),
        np.empty((n, STATE_SIZE)),
        rec,
        zs,
        s.state_bounds,
        np.empty_like(zs),
    )
    out = rec[s.order]
    if any(isinstance(e, Buoyancy) for e in s.elements):
        place_buoyancy(s, pk.bodies, xs, float(t), out)
    return out


def joint_paths(pk: PackedBodies, u: ArrayLike | None = None) -> list[str]:
    """Per group of pk's bodies that joints join (in the packed order), the way its steps
    go: "tree", in its hinges' angles (tree_compiled: a tree of plain hinges hung from the
    world), or "general", the constraint solve (constraints_compiled). u: the loads (a load
    that turns with a body keeps it on the general path); None: none."""
    s = pk.system
    if s is None:
        return []
    from . import tree_compiled  # compiled on its first use

    n = len(pk)
    us = load_rows(np.zeros((n, 6)) if u is None else u, n)
    paths = []
    for g, (first, cnt) in enumerate(s.groups):
        e0, e1 = int(s.bounds[g]), int(s.bounds[g + 1])
        if not any(s.rows[e, E_KIND] == JOINT_CODE for e in range(e0, e1)):
            continue
        tree = tree_compiled.order(pk.params, us, s.rows, e0, e1, int(first), int(cnt))
        paths.append("tree" if len(tree) else "general")
    return paths


def joint_gaps(system: System, x: ArrayLike) -> Array:
    """(M, 2): each element's gap (m, rad) at states x (N, 13), in the order the elements were
    given, zeros for kinds other than a joint (constraints_compiled.gaps, one compiled loop
    for a frame's joints: a 20-link chain's took ~2 ms a frame in numpy)."""
    xs = _c_array(x, (system.n_bodies, STATE_SIZE), "x")
    out = np.zeros((len(system.rows), 2))
    _system_core().joints.gaps(system.rows, system.groups, system.bounds, xs, out)
    return out[system.order]


def applied(u: ArrayLike, x: ArrayLike) -> Array:
    """The global (Force, Moment) about the CG, (N, 6), of load rows u at states x (N, 13)."""
    xs = _c_array(x, (np.shape(x)[0], STATE_SIZE), "x")
    us = load_rows(u, xs.shape[0])
    out = np.empty((xs.shape[0], INPUT_SIZE))
    _core()._applied_batch(us, xs, out)
    return out


def advance(
    pk: PackedBodies,
    x: Array,
    u: ArrayLike,
    h: float | ArrayLike,
    n_steps: int | ArrayLike = 1,
    method: str | int | Sequence[str | int] | IntArray = "rk4",
    t: float | ArrayLike = 0.0,
    z: Array | None = None,
) -> None:
    """Advance N bodies in place: body i takes n_steps[i] steps of h[i] s with method[i].

    x (N, 13) float64, C-contiguous, is overwritten with the new states; u holds each
    body's load, constant over the call: (N, 6) or (6,) global Force and Moment, or
    (N, LOAD_SIZE) load rows whose state-dependent parts are evaluated at every stage.
    h, n_steps and method are each one value for all bodies or one per body, so a
    server can step every body of every room, each room with its own step size, step
    count and method, in one call per tick. Bad input raises (FieldError / ValueError
    naming the field) before any state changes. t: each body's simulated time at the start
    (one value or per body), read by time-varying elements only; bodies a two-body spring
    joins step with the h, count, method and t of the first body of their group. z (Z,):
    the states of pk's elements (a controller's; `element_states`), advanced in place with
    the bodies, stage by stage; required when they carry any.
    """
    n = len(pk)
    _writable_state(x, n)
    us = load_rows(u, n)
    if pk.system is not None:
        _advance_system(pk, x, us, h, n_steps, method, t, writable_z(pk, z))
        return
    if isinstance(method, str | int) and _is_scalar(h) and _is_scalar(n_steps):
        _advance_uniform(pk, x, us, h, n_steps, method)  # type: ignore[arg-type]  # scalars: checked just above
        return
    codes = _codes(method, n)
    hs_arr = _c_array(h, (n,), "step")
    counts = _counts(n_steps, (n,), "n_steps")
    _check_steps(hs_arr, codes, counts > 0, "step")
    if _use_parallel(n, int(counts.sum())):
        _core()._each_parallel(pk.params, x, us, hs_arr, counts, codes)
    else:
        _core()._each_serial(pk.params, x, us, hs_arr, counts, codes)


def _advance_system(
    pk: PackedBodies,
    x: Array,
    us: Array,
    h: float | ArrayLike,
    n_steps: int | ArrayLike,
    method: str | int | Sequence[str | int] | IntArray,
    t: float | ArrayLike,
    z: Array,
) -> None:
    """`advance` for bodies with elements: each group steps its bodies stage by stage."""
    n = len(pk)
    codes = _codes(method, n)
    hs_arr = _c_array(h, (n,), "step")
    counts = _counts(n_steps, (n,), "n_steps")
    ts = _c_array(t, (n,), "t")
    _check_steps(hs_arr, codes, counts > 0, "step")
    s = pk.system
    assert s is not None
    # Serial: a hundred rooms with elements take ~0.4 ms a tick on one core, and a parallel
    # twin would add ~10 s of compiling to every cold start.
    _system_core().system_serial(
        pk.params, x, us, s.groups, s.rows, s.bounds, s.aux, ts, hs_arr, counts, codes, z,
        s.state_bounds,
    )  # fmt: skip


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
    if _use_parallel(n, n * steps):
        _core()._uniform_parallel(pk.params, x, u, hs, steps, code)
    else:
        _core()._uniform_serial(pk.params, x, u, hs, steps, code)


def integrate_fixed(
    pk: PackedBodies,
    x: Array,
    u: ArrayLike,
    h: float | ArrayLike,
    n_steps: int | ArrayLike,
    method: str | int = "rk4",
    out: Array | None = None,
    t0: float = 0.0,
    z: Array | None = None,
) -> Array:
    """Run all bodies through S spans; return the states after each span, (S, N, 13).

    Span s is n_steps[s] equal steps of h[s] s (h and n_steps: scalars for one
    span, or (S,) arrays); all bodies share the spans, each keeps its own input
    row of u (constant). x (N, 13) is advanced in place to the final state.
    `out`, if given, must be a C-contiguous float64 array (S, N, 13) to fill.
    With h = span/n per output interval this is `integrate`'s fixed-step path; time runs
    from t0 (for pk's time-varying elements); z: the elements' states, advanced in place
    (None: from their initial values).
    """
    n = len(pk)
    _writable_state(x, n)
    us = load_rows(u, n)
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
    if pk.system is not None:  # span by span: one compiled entry point fewer to build
        sy = pk.system
        zs = element_states(pk, None) if z is None else writable_z(pk, z)
        t = float(t0)
        ts, hs_n, codes = np.empty(n), np.empty(n), np.full(n, code, dtype=np.int64)
        for j in range(s):
            ts.fill(t)
            hs_n.fill(hs[j])
            steps = np.full(n, counts[j], dtype=np.int64)
            _system_core().system_serial(
                pk.params, x, us, sy.groups, sy.rows, sy.bounds, sy.aux, ts, hs_n, steps, codes,
                zs, sy.state_bounds,
            )  # fmt: skip
            out[j] = x
            t += float(hs[j]) * int(counts[j])
        return out
    if _use_parallel(n, n * int(counts.sum())):
        _core()._spans_parallel(pk.params, x, us, hs, counts, code, out)
    else:
        _core()._spans_serial(pk.params, x, us, hs, counts, code, out)
    return out


__all__ = [
    "LOAD_SIZE",
    "METHOD_CODES",
    "PARAM_SIZE",
    "PackedBodies",
    "advance",
    "applied",
    "concat",
    "derivative",
    "element_records",
    "element_states",
    "integrate_fixed",
    "joint_gaps",
    "load_rows",
    "method_code",
    "pack",
    "packed",
    "warm_up",
]
