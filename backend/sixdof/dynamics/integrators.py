"""Time integration of the 6DBody model: explicit Euler, RK4, Dormand–Prince 5(4), Radau IIA.

The methods' tableaus and step limits are in methods.py. Fixed steps (`step_fixed`, and
`integrate` with euler/rk4) run in the compiled kernel (kernel.py); Dormand–Prince drives
`rk_stages` on `model.derivative`; Radau IIA (scipy) takes the analytic Jacobian, so it has
no explicit method's step limit. The adaptive method's HMax is capped at its stability
limit.

All functions work on a batch: x has shape (N, 13), u shape (N, 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..fields import FieldError
from .elements import System
from .jacobians import state_jacobian
from .methods import DOPRI5, TABLEAUS, Tableau, check_step, stability_limit
from .model import STATE_SIZE, derivative
from .names import FIXED_STEP_METHODS, METHODS, Method
from .params import Bodies
from .quaternion import Array

assert DOPRI5.b_err is not None  # an embedded pair
DOPRI5_ERROR_WEIGHTS: Array = DOPRI5.b_err


class IntegrationError(RuntimeError):
    """The integration could not go on (step below HMin, non-finite state)."""


Rhs = Callable[[Array], Array]


def rk_stages(f: Rhs, x: Array, h: float, tableau: Tableau, k0: Array | None = None) -> Array:
    """The stage derivatives k_i, shape (s, *x.shape). `k0` reuses a known f(x) (FSAL)."""
    s = len(tableau.c)
    k = np.empty((s, *x.shape))
    k[0] = f(x) if k0 is None else k0
    for i in range(1, s):
        k[i] = f(x + h * np.tensordot(tableau.a[i, :i], k[:i], axes=1))
    return k


def rk_step(f: Rhs, x: Array, h: float, tableau: Tableau) -> Array:
    """One explicit Runge–Kutta step of size h."""
    k = rk_stages(f, x, h, tableau)
    return x + h * np.tensordot(tableau.b, k, axes=1)


def step_fixed(bodies: Bodies, x: Array, u: Array, h: float, method: Method = "rk4") -> Array:
    """Advance a batch (N, 13) or one state (13,) by one fixed step of h s, loads held.

    Euler and RK4 run in the compiled kernel (`kernel.advance`), after the step is
    checked against the method's stability limit (FieldError); dopri5's tableau (its
    fifth-order solution, no error control) steps through `rk_step`. Returns a new array.
    """
    if method not in FIXED_STEP_METHODS:
        check_step(method, h)
        return rk_step(lambda y: derivative(y, u, bodies), x, h, TABLEAUS[method])
    from . import kernel  # numba (~0.3 s) is imported on first use, not with the package

    x_arr = np.asarray(x, dtype=float)
    x_new = np.array(x_arr.reshape(-1, STATE_SIZE), dtype=float, order="C")
    kernel.advance(kernel.packed(bodies), x_new, u, h, 1, method)
    return x_new[0] if x_arr.ndim == 1 else x_new


@dataclass(frozen=True)
class IntegratorSettings:
    """How to integrate: the method, its fixed step, and the adaptive methods' controls."""

    method: Method = "rk4"
    step: float = 1e-3  # fixed step for euler/rk4 (FhSim `stepsize`), s
    hmax: float = 0.01  # s
    hmin: float = 1e-10  # s
    abstol: float = 1e-9
    reltol: float = 1e-9

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise FieldError(
                "IntegratorMethod",
                "invalid",
                f"IntegratorMethod: must be one of {list(METHODS)}, got {self.method!r}",
            )
        if self.method in FIXED_STEP_METHODS or self.method == "geometric":
            check_step(self.method, self.step, "stepsize")
        for name, value in (("HMax", self.hmax), ("HMin", self.hmin),
                            ("AbsTol", self.abstol), ("RelTol", self.reltol)):  # fmt: skip
            if not (math.isfinite(value) and value > 0.0):
                raise FieldError(
                    name, "invalid", f"{name}: must be a finite number > 0, got {value!r}"
                )
        if self.hmin > self.hmax:
            raise FieldError(
                "HMin",
                "out_of_range",
                f"HMin: must not exceed HMax = {self.hmax:g} s, got {self.hmin:g}",
            )
        cap = 0.95 * stability_limit("dopri5")
        if self.method == "dopri5" and self.hmin > cap:
            raise FieldError(
                "HMin",
                "unstable_step",
                f"HMin: must be below {cap:.4g} s, where dopri5's steps are capped for stability "
                f"(the quaternion-norm term), got {self.hmin:g}",
            )


@dataclass
class RunStats:
    """What a run cost: accepted and rejected steps, evaluations of the derivative, and for
    Radau its Jacobian evaluations and LU decompositions."""

    steps: int = 0
    rejected: int = 0
    evaluations: int = 0
    last_step: float | None = None  # the adaptive method's step, carried between spans
    jacobians: int = 0
    lu: int = 0


ProgressCallback = Callable[[float], None]


def _check_finite(x: Array, t: float) -> None:
    if not np.all(np.isfinite(x)):
        raise IntegrationError(f"the state became non-finite at t = {t:.6g} s")


def integrate(
    bodies: Bodies,
    x0: Array,
    u: Array,
    times: Sequence[float] | Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None = None,
    system: System | None = None,
) -> tuple[Array, RunStats]:
    """States at each of `times` (ascending, first ≥ 0 = start), shape (T, N, 13).

    The run starts at times[0] from x0 (N, 13); inputs u (N, 6) are constant.
    Fixed-step methods step onto every output time with the largest equal
    steps ≤ `step`; Dormand–Prince shortens its last step onto each output
    time; Radau uses scipy's dense output. `system`: the elements acting on the bodies
    (elements.py; euler, rk4 and radau run them).
    """
    t_out = np.asarray(times, dtype=float)
    if t_out.ndim != 1 or t_out.size == 0 or np.any(np.diff(t_out) < 0):
        raise ValueError("output times must be a non-empty ascending list")
    x = np.array(x0, dtype=float).reshape(len(bodies), STATE_SIZE)
    u = np.broadcast_to(np.asarray(u, dtype=float), (len(bodies), 6))
    if system is not None and system.n_states and settings.method not in FIXED_STEP_METHODS:
        # their states step in the kernels' stages alone (system_compiled)
        raise ValueError("method: elements that carry states (a controller) run with euler or rk4")
    if settings.method == "radau":
        return _integrate_radau(bodies, x, u, t_out, settings, progress, system)
    if settings.method in FIXED_STEP_METHODS:
        return _integrate_kernel(bodies, x, u, t_out, settings, progress, system)
    if settings.method in ("exact", "geometric"):
        from .free_methods import integrate_free  # exact.py, splitting.py

        out, steps, bad = integrate_free(bodies, x, u, t_out, settings.method, settings.step,
                                         progress, system is not None)  # fmt: skip
        if bad is not None:
            _check_finite(out[bad], float(t_out[bad]))
        return out, RunStats(steps=steps, evaluations=6 * steps)  # geometric: 6 kicks a step
    if system is not None:
        raise ValueError("method: scenarios with elements run with euler, rk4 or radau")
    return _integrate_dopri5(bodies, x, u, t_out, settings, progress)


#: Body-steps per kernel call in `integrate` (~0.1 s): progress reports and the
#: non-finite check come between calls, and a blown-up run stops early.
KERNEL_CHUNK = 1_000_000


def _integrate_kernel(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
    system: System | None = None,
) -> tuple[Array, RunStats]:
    """`integrate` for euler/rk4 in the compiled kernel.

    Span i (t_out[i] → t_out[i+1]) takes n_i = ceil(span/step) equal steps of
    span/n_i, n_i = 0 for an empty span.
    """
    n_bodies = len(bodies)
    spans = np.diff(t_out)
    counts = np.where(
        spans > 0, np.maximum(1.0, np.ceil(spans / settings.step - 1e-9)), 0.0
    ).astype(np.int64)
    h = np.divide(spans, counts, out=np.zeros_like(spans), where=counts > 0)
    out = np.empty((t_out.size, n_bodies, STATE_SIZE))
    out[0] = x
    state = np.array(x, dtype=float, order="C")
    from . import kernel  # imported on first use, as in step_fixed

    pk = kernel.packed(bodies, system)
    # the elements' states (a controller's) run on from chunk to chunk, as the bodies' do
    z = None if pk.system is None else kernel.element_states(pk, None)
    work = np.cumsum(counts) * n_bodies
    start = 0
    while start < spans.size:
        done = int(work[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(work, done + KERNEL_CHUNK, side="right")))
        part = out[start + 1 : stop + 1]
        kernel.integrate_fixed(
            pk, state, u, h[start:stop], counts[start:stop], settings.method, part,
            t0=float(t_out[start]), z=z,
        )  # fmt: skip
        finite = np.isfinite(part).all(axis=(1, 2))
        if not finite.all():
            j = int(np.argmin(finite))
            _check_finite(part[j], float(t_out[start + 1 + j]))
        if progress is not None:
            for t in t_out[start + 1 : stop + 1]:
                progress(t)
        start = stop
    steps = int(counts.sum())
    stages = len(TABLEAUS[settings.method].c)
    return out, RunStats(steps=steps, evaluations=steps * stages)


#: dopri5 runs in pieces of at least one simulated second, at most this many, and reports
#: progress after each; their ends depend only on the run's start and end, so the output
#: grid never changes a step.
DOPRI5_PIECES = 20


def _integrate_dopri5(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
) -> tuple[Array, RunStats]:
    """Adaptive Dormand–Prince 5(4) in the compiled loop of dopri5_compiled.py."""
    from . import kernel
    from .dopri5_compiled import HMIN_REACHED, NOT_FINITE, dopri5_run

    hmax = min(settings.hmax, 0.95 * stability_limit("dopri5"))
    pk, loads = kernel.packed(bodies), kernel.load_rows(u, len(bodies))
    out = np.empty((t_out.size, *x.shape))
    out[0] = x
    counts = np.zeros(3, dtype=np.int64)
    state, h, done, start = np.ascontiguousarray(x), 0.0, 1, float(t_out[0])
    while done < t_out.size and t_out[done] <= start:  # output times at the start
        out[done] = x
        done += 1
    pieces = int(min(DOPRI5_PIECES, max(1.0, math.ceil(t_out[-1] - t_out[0]))))
    for end in np.linspace(t_out[0], t_out[-1], pieces + 1)[1:]:
        if end <= start:
            continue
        stop = int(np.searchsorted(t_out, end, side="right"))
        inside = t_out[done:stop]  # the output times in (start, end]
        ends_on_output = inside.size > 0 and inside[-1] == end
        times = np.concatenate([[start], inside, [] if ends_on_output else [end]])
        piece = np.empty((times.size, *x.shape))
        tolerances = (settings.reltol, settings.abstol, settings.hmin, hmax)
        status, t, h = dopri5_run(pk.params, state, loads, times, *tolerances, h, piece, counts)
        if status == HMIN_REACHED:
            raise IntegrationError(
                f"the step size fell below HMin = {settings.hmin:g} s at t = {t:.6g} s "
                f"(AbsTol = {settings.abstol:g}, RelTol = {settings.reltol:g}); "
                "loosen the tolerances or lower HMin"
            )
        if status == NOT_FINITE:
            raise IntegrationError(f"the state became non-finite at t = {t:.6g} s")
        out[done:stop] = piece[1 : 1 + inside.size]
        done, start = stop, float(end)
        state = np.ascontiguousarray(piece[-1])
        if progress is not None and inside.size:
            progress(float(inside[-1]))
    stats = RunStats(steps=int(counts[0]), rejected=int(counts[1]), evaluations=int(counts[2]))
    return out, stats


def _integrate_radau(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
    system: System | None = None,
) -> tuple[Array, RunStats]:
    """scipy's Radau IIA stepped one step at a time, on the compiled derivative with the
    analytic Jacobian; outputs from each step's dense output. The stats are the solver's
    own: accepted steps, derivative and Jacobian evaluations, LU decompositions."""
    n = len(bodies)
    shape = x.shape
    if t_out[-1] == t_out[0]:
        return np.broadcast_to(x, (t_out.size, *shape)).copy(), RunStats()
    # scipy is imported here, not at module level: only Radau needs it, and it costs a
    # live server ~23 MB of memory it would never use.
    from scipy.integrate import Radau
    from scipy.sparse import block_diag, csc_matrix

    from . import kernel

    pk, loads = kernel.packed(bodies, system), kernel.load_rows(u, n)

    def rhs(t: float, y: Array) -> Array:
        return kernel.derivative(pk, y.reshape(shape), loads, t).ravel()

    def jac(_t: float, y: Array) -> Array | csc_matrix:
        blocks = state_jacobian(y.reshape(shape), u, bodies)
        return blocks[0] if n == 1 else csc_matrix(block_diag(list(blocks)))

    # The analytic Jacobian is the free bodies'; with elements scipy estimates it.
    solver = Radau(rhs, float(t_out[0]), x.ravel(), float(t_out[-1]), max_step=settings.hmax,
                   rtol=settings.reltol, atol=settings.abstol,
                   jac=jac if system is None else None)  # fmt: skip
    out = np.empty((t_out.size, *shape))
    out[0] = x
    j, steps = 1, 0
    while j < t_out.size:
        message = solver.step()
        if solver.status == "failed":
            raise IntegrationError(f"Radau failed at t = {solver.t:.6g} s: {message}")
        steps += 1
        dense = solver.dense_output()
        first = j
        while j < t_out.size and t_out[j] <= solver.t:
            out[j] = (solver.y if t_out[j] == solver.t else dense(t_out[j])).reshape(shape)
            j += 1
        if j > first:
            _check_finite(out[first:j], float(t_out[j - 1]))
            if progress is not None:
                progress(float(t_out[j - 1]))
    stats = RunStats(steps=steps, evaluations=solver.nfev, jacobians=solver.njev, lu=solver.nlu)
    return out, stats
