"""Time integration of the 6DBody model: explicit Euler, RK4, Dormand–Prince 5(4), Radau IIA.

The explicit methods are Butcher tables driven by one `rk_stages` function. The
quaternion-norm term of the kinematics has the real eigenvalue −1/τ (τ = 0.01 s),
so an explicit method is stable only while h/τ stays inside its stability
interval on the negative real axis: 2 for Euler, 2.785 for RK4, 3.3 for
Dormand–Prince 5. Fixed steps beyond that are refused (`StepSizeError`); the
adaptive method's HMax is capped there. Radau IIA (scipy) is implicit and
takes the analytic Jacobian, so it has no such limit.

All functions work on a batch: x has shape (N, 13), u shape (N, 6). Fixed
steps (`step_fixed`, and `integrate` with euler/rk4) run in the compiled kernel
of kernel.py when numba is importable, else in the numpy reference below
(`rk_step` on `model.derivative`); both give the same states to ~1e-15.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import numpy as np

from .jacobians import state_jacobian
from .model import NORM_TIME_CONSTANT, STATE_SIZE, derivative
from .params import Bodies
from .quaternion import Array

Method = Literal["euler", "rk4", "dopri5", "radau"]
METHODS: tuple[Method, ...] = ("euler", "rk4", "dopri5", "radau")
FIXED_STEP_METHODS: tuple[Method, ...] = ("euler", "rk4")

#: FhSim-style `IntegratorMethod` numbers (docs/fhsim.md explains the choice).
INTEGRATOR_NUMBERS: dict[int, Method] = {0: "euler", 1: "rk4", 2: "dopri5", 3: "radau"}


@dataclass(frozen=True)
class Tableau:
    """An explicit Runge–Kutta method: c, A (strictly lower), b, and b̂ for an embedded pair."""

    c: Array
    a: Array
    b: Array
    b_err: Array | None  # b − b̂, the weights of the local error estimate
    order: int
    real_stability: float  # h|λ| limit on the negative real axis


EULER = Tableau(np.array([0.0]), np.zeros((1, 1)), np.array([1.0]), None, 1, 2.0)

RK4 = Tableau(
    c=np.array([0.0, 0.5, 0.5, 1.0]),
    a=np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1.0, 0]], dtype=float),
    b=np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6]),
    b_err=None,
    order=4,
    real_stability=2.785293563405282,
)

# Dormand & Prince (1980), the 5(4) pair with the FSAL property; b is the 5th-order solution.
_DP_B = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_DP_BHAT = np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
DOPRI5 = Tableau(
    c=np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1]),
    a=np.array(
        [
            [0, 0, 0, 0, 0, 0, 0],
            [1 / 5, 0, 0, 0, 0, 0, 0],
            [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
            [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
            [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
            [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
            [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
        ]
    ),
    b=_DP_B,
    b_err=_DP_B - _DP_BHAT,
    order=5,
    real_stability=3.3066,
)

TABLEAUS: dict[Method, Tableau] = {"euler": EULER, "rk4": RK4, "dopri5": DOPRI5}


class StepSizeError(ValueError):
    """A step size outside what the chosen integrator can take."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


class IntegrationError(RuntimeError):
    """The integration could not go on (step below HMin, non-finite state)."""


def stability_limit(method: Method) -> float:
    """The largest stable fixed step h (s) of an explicit method; inf for Radau."""
    if method == "radau":
        return math.inf
    return TABLEAUS[method].real_stability * NORM_TIME_CONSTANT


def check_step(method: Method, step: float, field: str = "step") -> float:
    """Return `step` if the method can take it, else raise StepSizeError saying the limit."""
    if method not in METHODS:
        raise StepSizeError("integrator", f"must be one of {list(METHODS)}, got {method!r}")
    h = float(step)
    if not math.isfinite(h) or h <= 0.0:
        raise StepSizeError(field, f"must be a finite number > 0 s, got {step!r}")
    limit = stability_limit(method)
    if h >= limit:
        raise StepSizeError(
            field,
            f"{h:g} s is beyond the stability limit of {method} for this model: "
            f"h must be below {limit:.4g} s (the quaternion-norm term has time "
            f"constant τ = {NORM_TIME_CONSTANT} s; {method} is stable for h < "
            f"{limit / NORM_TIME_CONSTANT:.4g}τ)",
        )
    return h


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


_KERNEL: ModuleType | None = None


def _kernel() -> ModuleType | None:
    """The compiled kernels (sixdof.dynamics.kernel), or None without numba.

    Imported on first use, so `import sixdof.dynamics` stays free of numba's
    ~0.3 s import; setting `kernel.AVAILABLE = False` selects the numpy path.
    """
    global _KERNEL
    if _KERNEL is None:
        from . import kernel

        _KERNEL = kernel
    return _KERNEL if _KERNEL.AVAILABLE else None


def step_fixed(bodies: Bodies, x: Array, u: Array, h: float, method: Method = "rk4") -> Array:
    """Advance a batch (N, 13) or one state (13,) by one fixed step of h s, inputs held.

    Euler and RK4 run in the compiled kernel (`kernel.advance`); the step is
    checked against the method's stability limit first (StepSizeError).
    Without numba, and for the other methods' tableaus, the numpy reference
    `rk_step` on `model.derivative` does the same step. Returns a new array.
    """
    kern = _kernel() if method in FIXED_STEP_METHODS else None
    if kern is None:
        check_step(method, h)
        return rk_step(lambda y: derivative(y, u, bodies), x, h, TABLEAUS[method])
    x_arr = np.asarray(x, dtype=float)
    x_new = np.array(x_arr.reshape(-1, STATE_SIZE), dtype=float, order="C")
    kern.advance(kern.packed(bodies), x_new, u, h, 1, method)
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
            raise StepSizeError(
                "IntegratorMethod", f"must be one of {list(METHODS)}, got {self.method!r}"
            )
        if self.method in FIXED_STEP_METHODS:
            check_step(self.method, self.step, "stepsize")
        for name, value in (("HMax", self.hmax), ("HMin", self.hmin),
                            ("AbsTol", self.abstol), ("RelTol", self.reltol)):  # fmt: skip
            if not (math.isfinite(value) and value > 0.0):
                raise StepSizeError(name, f"must be a finite number > 0, got {value!r}")
        if self.hmin > self.hmax:
            raise StepSizeError(
                "HMin", f"must not exceed HMax = {self.hmax:g} s, got {self.hmin:g}"
            )
        cap = 0.95 * stability_limit("dopri5")
        if self.method == "dopri5" and self.hmin > cap:
            raise StepSizeError(
                "HMin",
                f"must be below {cap:.4g} s, where dopri5's steps are capped for stability "
                f"(the quaternion-norm term), got {self.hmin:g}",
            )


@dataclass
class RunStats:
    steps: int = 0
    rejected: int = 0
    evaluations: int = 0
    last_step: float | None = None  # the adaptive method's step, carried between spans


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
) -> tuple[Array, RunStats]:
    """States at each of `times` (ascending, first ≥ 0 = start), shape (T, N, 13).

    The run starts at times[0] from x0 (N, 13); inputs u (N, 6) are constant.
    Fixed-step methods step onto every output time with the largest equal
    steps ≤ `step`; Dormand–Prince shortens its last step onto each output
    time; Radau uses scipy's dense output.
    """
    t_out = np.asarray(times, dtype=float)
    if t_out.ndim != 1 or t_out.size == 0 or np.any(np.diff(t_out) < 0):
        raise ValueError("output times must be a non-empty ascending list")
    x = np.array(x0, dtype=float).reshape(len(bodies), STATE_SIZE)
    u = np.broadcast_to(np.asarray(u, dtype=float), (len(bodies), 6))
    if settings.method == "radau":
        return _integrate_radau(bodies, x, u, t_out, settings, progress)
    if settings.method in FIXED_STEP_METHODS:
        kern = _kernel()
        if kern is not None:
            return _integrate_kernel(kern, bodies, x, u, t_out, settings, progress)
    f = _counting(lambda y: derivative(y, u, bodies))
    stats = RunStats()
    out = np.empty((t_out.size, *x.shape))
    out[0] = x
    t = t_out[0]
    for i in range(1, t_out.size):
        if settings.method == "dopri5":
            x = _dopri5_span(f, x, t, t_out[i], settings, stats)
        else:
            span = t_out[i] - t
            n = max(1, math.ceil(span / settings.step - 1e-9)) if span > 0 else 0
            tableau = TABLEAUS[settings.method]
            for _ in range(n):
                x = rk_step(f, x, span / n, tableau)
            stats.steps += n
        t = t_out[i]
        _check_finite(x, t)
        out[i] = x
        if progress is not None:
            progress(t)
    stats.evaluations = f.calls  # type: ignore[attr-defined]
    return out, stats


#: Body-steps per kernel call in `integrate` (~0.1 s): progress reports and the
#: non-finite check come between calls, and a blown-up run stops early.
KERNEL_CHUNK = 1_000_000


def _integrate_kernel(
    kern: ModuleType,
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
) -> tuple[Array, RunStats]:
    """`integrate` for euler/rk4 in the compiled kernel; same steps as the loop above.

    Span i (t_out[i] → t_out[i+1]) takes n_i = ceil(span/step) equal steps of
    span/n_i, n_i = 0 for an empty span, as the numpy loop does.
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
    pk = kern.packed(bodies)
    work = np.cumsum(counts) * n_bodies
    start = 0
    while start < spans.size:
        done = int(work[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(work, done + KERNEL_CHUNK, side="right")))
        part = out[start + 1 : stop + 1]
        kern.integrate_fixed(pk, state, u, h[start:stop], counts[start:stop], settings.method, part)
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


def _counting(f: Rhs) -> Rhs:
    def wrapped(y: Array) -> Array:
        wrapped.calls += 1  # type: ignore[attr-defined]
        return f(y)

    wrapped.calls = 0  # type: ignore[attr-defined]
    return wrapped


def _error_norm(err: Array, x: Array, x_new: Array, settings: IntegratorSettings) -> float:
    scale = settings.abstol + settings.reltol * np.maximum(np.abs(x), np.abs(x_new))
    return float(np.sqrt(np.mean((err / scale) ** 2)))


def _dopri5_span(
    f: Rhs, x: Array, t: float, t_end: float, settings: IntegratorSettings, stats: RunStats
) -> Array:
    """Adaptive Dormand–Prince 5(4) from t to exactly t_end (local extrapolation)."""
    hmax = min(settings.hmax, 0.95 * stability_limit("dopri5"))
    # The first step honours HMin too; only a last step that lands on an output time may
    # be shorter than HMin.
    h = max(settings.hmin, stats.last_step or min(hmax, 1e-3))
    while t_end - t > 1e-14 * max(1.0, abs(t_end)):
        last = h >= t_end - t
        h_try = t_end - t if last else h
        k = rk_stages(f, x, h_try, DOPRI5)
        x_new = x + h_try * np.tensordot(DOPRI5.b, k, axes=1)
        err = h_try * np.tensordot(DOPRI5.b_err, k, axes=1)
        norm = _error_norm(err, x, x_new, settings)
        factor = 0.9 * norm ** (-0.2) if norm > 0 else 5.0
        factor = min(5.0, max(0.2, factor))
        if norm <= 1.0 and np.all(np.isfinite(x_new)):
            x, t = x_new, (t_end if last else t + h_try)
            stats.steps += 1
            if not last:
                h = min(hmax, h_try * factor)
        else:
            stats.rejected += 1
            h = h_try * min(factor, 0.5)
            if h < settings.hmin:
                raise IntegrationError(
                    f"the step size fell below HMin = {settings.hmin:g} s at t = {t:.6g} s "
                    f"(AbsTol = {settings.abstol:g}, RelTol = {settings.reltol:g}); "
                    "loosen the tolerances or lower HMin"
                )
    stats.last_step = h
    return x


def _integrate_radau(
    bodies: Bodies,
    x: Array,
    u: Array,
    t_out: Array,
    settings: IntegratorSettings,
    progress: ProgressCallback | None,
) -> tuple[Array, RunStats]:
    n = len(bodies)
    shape = x.shape

    def rhs(_t: float, y: Array) -> Array:
        return derivative(y.reshape(shape), u, bodies).ravel()

    # scipy is imported here, not at module level: only Radau needs it, and it costs a
    # live server ~23 MB of memory it would never use.
    from scipy.integrate import solve_ivp
    from scipy.sparse import block_diag, csc_matrix

    def jac(_t: float, y: Array) -> Array | csc_matrix:
        blocks = state_jacobian(y.reshape(shape), u, bodies)
        return blocks[0] if n == 1 else csc_matrix(block_diag(list(blocks)))

    if t_out[-1] == t_out[0]:
        return np.broadcast_to(x, (t_out.size, *shape)).copy(), RunStats()
    sol = solve_ivp(
        rhs, (t_out[0], t_out[-1]), x.ravel(), method="Radau", t_eval=t_out, jac=jac,
        rtol=settings.reltol, atol=settings.abstol, max_step=settings.hmax,
    )  # fmt: skip
    if not sol.success:
        raise IntegrationError(f"Radau failed: {sol.message}")
    out = sol.y.T.reshape(t_out.size, *shape)
    _check_finite(out, float(t_out[-1]))
    if progress is not None:
        progress(float(t_out[-1]))
    return out, RunStats(steps=int(sol.t.size), evaluations=int(sol.nfev))
