"""A gyroscope recording of a body in free flight: read it, fit the torque-free Euler
equations to it, and say what it tells about the body.

The recording is a phone's (or any) body-frame angular velocity ω(t), as phyphox exports
it (`"Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"`, maybe
an `"Absolute (rad/s)"` column after them) or plain columns t, ωx, ωy, ωz (s, rad/s; a
header is optional). Comma, semicolon or tab separated.

In free flight no moment acts about the CG, so with principal moments Ix, Iy, Iz and the
ratios a = Ix/Iz, b = Iy/Iz (section 2 of DESIGN.md, model `full`, M = 0):

    a ω̇x = (b − 1) ωy ωz,    b ω̇y = (1 − a) ωz ωx,    ω̇z = (a − b) ωx ωy

Only the ratios are observable (scaling I scales nothing in ω). `fit` finds ω(0), a and b
by least squares (scipy's `least_squares`, trust-region reflective, a, b > 0) over the
whole record, starting from the ratios whose equations best match the rates' smoothed
derivatives (`derivative_ratios`; a few fixed starts follow when that fit stays above the
noise), and reports their standard uncertainty from the Jacobian at the optimum
(σ² (JᵀJ)⁻¹, σ² from the residual).

A *flip* is a sign change of the rate about the intermediate axis (the tennis-racket or
Dzhanibekov flip); the flip period is the time from one flip to the next (half the period
of ω(t)), measured on the recording and predicted by the fitted equations.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..scenario import BodySpec, Scenario

#: Fewest samples a fit takes (5 unknowns; a flip needs many more to be seen).
MIN_SAMPLES = 30
#: Most samples read (a minute at phyphox's ~500 Hz, about 4 MB of text).
MAX_SAMPLES = 200_000
#: Longest record fitted, s: a thrown phone flies for a second or two.
MAX_DURATION = 120.0
#: Internal RK4 steps are at most this long, s, and at most this fraction of a turn.
MAX_STEP = 2e-3
TURN_FRACTION = 0.01

PHYPHOX_COLUMNS = (
    "Time (s)",
    "Gyroscope x (rad/s)",
    "Gyroscope y (rad/s)",
    "Gyroscope z (rad/s)",
)
_ROLES = ("time", "x", "y", "z")
_DEG = math.pi / 180.0


class GyroFileError(ValueError):
    """A recording that cannot be read: the message names the column or the row."""


@dataclass
class GyroData:
    """A recording: times t (n,), s, from its first sample, and ω (n, 3), rad/s."""

    t: np.ndarray
    omega: np.ndarray
    columns: list[str]  # the header's names of t, ωx, ωy, ωz (or the plain names)
    t0: float = 0.0  # the first sample's time in the file, s
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Mean samples per second."""
        return (len(self.t) - 1) / float(self.t[-1] - self.t[0])


def _split(line: str, sep: str | None) -> list[str]:
    """The cells of a line, unquoted; with tabs or semicolons between them a decimal comma
    is read as a point (phyphox's "decimal comma" exports)."""
    cells = line.split(sep) if sep else line.split()
    cells = [c.strip().strip('"').strip("'").strip() for c in cells]
    return [c.replace(",", ".") for c in cells] if sep in ("\t", ";") else cells


def _role(name: str) -> str | None:
    """Which column a header names: time, x, y, z, or None."""
    n = name.lower().replace("ω", "w").replace("omega", "w")
    n = re.sub(r"\(.*?\)|\[.*?\]", "", n).strip()
    if n in ("t", "time", "times", "t_s", "time_s", "zeit", "tid"):
        return "time"
    m = re.fullmatch(r"(?:gyroscope|gyro|angular velocity|angvel|rate|w|g)?[ _.\-]*([xyz])", n)
    if m:
        return m.group(1)
    m = re.fullmatch(r"(?:w|g|gyro)[ _.\-]*([xyz])", n)
    return m.group(1) if m else None


def read_gyro_text(text: str, *, name: str = "the file") -> GyroData:
    """Parse a recording (GyroFileError naming the column or the row and line)."""
    lines = text.splitlines()
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#")]
    if not numbered:
        raise GyroFileError(f"{name}: empty; expected columns {', '.join(PHYPHOX_COLUMNS)}")
    first = numbered[0][1]
    sep = "\t" if "\t" in first else ";" if ";" in first else "," if "," in first else None
    head = _split(first, sep)
    header = not all(_is_number(c) for c in head)
    notes: list[str] = []
    if header:
        roles: dict[str, int] = {}
        for k, cell in enumerate(head):
            role = _role(cell)
            if role is not None and role not in roles:
                roles[role] = k
        missing = [r for r in _ROLES if r not in roles]
        if missing:
            wanted = dict(zip(_ROLES, PHYPHOX_COLUMNS, strict=True))
            got = ", ".join(repr(c) for c in head)
            raise GyroFileError(
                f"{name}: no column {wanted[missing[0]]!r} (or {_plain(missing[0])}); "
                f"the header has {got}"
            )
        index = [roles[r] for r in _ROLES]
        columns = [head[k] for k in index]
        degrees = ["deg" in head[k].lower() or "°" in head[k] for k in index[1:]]
        if any(degrees):
            notes.append("rates in degrees per second were converted to rad/s")
        rows = numbered[1:]
    else:
        if len(head) < 4:
            raise GyroFileError(
                f"{name}: line {numbered[0][0]} has {len(head)} columns; expected t, ωx, ωy, "
                "ωz (s, rad/s) or phyphox's export with its header"
            )
        index, columns, degrees, rows = [0, 1, 2, 3], ["t", "wx", "wy", "wz"], [False] * 3, numbered
    if len(rows) > MAX_SAMPLES:
        raise GyroFileError(
            f"{name}: {len(rows):,} rows; at most {MAX_SAMPLES:,} are read (cut the record to "
            "the flight)"
        )
    width = max(index) + 1
    data = np.empty((len(rows), 4))
    for r, (line_no, line) in enumerate(rows):
        cells = _split(line, sep)
        if len(cells) < width:
            raise GyroFileError(
                f"{name}: row {r + 1} (line {line_no}) has {len(cells)} columns, expected "
                f"{width} ({', '.join(columns)})"
            )
        for c, k in enumerate(index):
            try:
                value = float(cells[k])
            except ValueError:
                raise GyroFileError(
                    f"{name}: row {r + 1} (line {line_no}), column {columns[c]!r}: "
                    f"{cells[k]!r} is not a number"
                ) from None
            if not math.isfinite(value):
                raise GyroFileError(
                    f"{name}: row {r + 1} (line {line_no}), column {columns[c]!r}: {cells[k]} "
                    "(every sample needs a finite number; cut the record where it is whole)"
                )
            data[r, c] = value
    if len(rows) < MIN_SAMPLES:
        raise GyroFileError(
            f"{name}: {len(rows)} samples; a fit needs at least {MIN_SAMPLES} (the recording "
            "of a throw, e.g. a second at 100 Hz)"
        )
    t = data[:, 0]
    steps = np.diff(t)
    if np.any(steps <= 0.0):
        r = int(np.argmax(steps <= 0.0)) + 2
        raise GyroFileError(
            f"{name}: row {r} (line {rows[r - 1][0]}), column {columns[0]!r}: time "
            f"{t[r - 1]:g} s does not come after {t[r - 2]:g} s"
        )
    if t[-1] - t[0] > MAX_DURATION:
        raise GyroFileError(
            f"{name}: column {columns[0]!r} spans {t[-1] - t[0]:g} s; at most "
            f"{MAX_DURATION:g} s are fitted (cut the record to the flight)"
        )
    omega = data[:, 1:].copy()
    for c, deg in enumerate(degrees):
        if deg:
            omega[:, c] *= _DEG
    return GyroData(t - t[0], omega, columns, float(t[0]), notes)


def _plain(role: str) -> str:
    return {"time": "t", "x": "ωx / wx", "y": "ωy / wy", "z": "ωz / wz"}[role]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- the model


def euler_rates(omega: np.ndarray, a: float, b: float) -> np.ndarray:
    """dω/dt of the torque-free Euler equations with Ix/Iz = a, Iy/Iz = b; ω (..., 3)."""
    wx, wy, wz = omega[..., 0], omega[..., 1], omega[..., 2]
    return np.stack([(b - 1.0) / a * wy * wz, (1.0 - a) / b * wz * wx, (a - b) * wx * wy], axis=-1)


def simulate(t: np.ndarray, omega0: np.ndarray, a: float, b: float) -> np.ndarray:
    """ω at the times t (n,), from ω(t[0]) = omega0, by RK4 with steps of at most MAX_STEP
    and a hundredth of a turn; (n, 3)."""
    t = np.asarray(t, dtype=float)
    out = np.empty((t.size, 3))
    w = np.array(omega0, dtype=float)
    out[0] = w
    turn = TURN_FRACTION * 2.0 * math.pi / max(float(np.linalg.norm(w)), 1e-9)
    h_max = min(MAX_STEP, turn)
    spans = np.diff(t)
    counts = np.maximum(1, np.ceil(spans / h_max)).astype(np.int64)
    return _compiled()(w, spans, counts, float(a), float(b), out)


_COMPILED: list[Any] = []


def _compiled() -> Any:
    """`_rk4_grid` compiled by numba (cached on disk as the kernels are), or as it is where
    numba cannot compile: a fit evaluates it a few hundred times."""
    if not _COMPILED:
        try:
            import numba

            _COMPILED.append(numba.njit(cache=True)(_rk4_grid))
        except Exception:  # pragma: no cover - numba is a dependency
            _COMPILED.append(_rk4_grid)
    return _COMPILED[0]


def _rk4_grid(
    w: np.ndarray, spans: np.ndarray, counts: np.ndarray, a: float, b: float, out: np.ndarray
) -> np.ndarray:
    cx, cy, cz = (b - 1.0) / a, (1.0 - a) / b, a - b
    x, y, z = w[0], w[1], w[2]
    for i in range(spans.size):
        n = counts[i]
        h = spans[i] / n
        for _ in range(n):
            k1x, k1y, k1z = cx * y * z, cy * z * x, cz * x * y
            x2, y2, z2 = x + 0.5 * h * k1x, y + 0.5 * h * k1y, z + 0.5 * h * k1z
            k2x, k2y, k2z = cx * y2 * z2, cy * z2 * x2, cz * x2 * y2
            x3, y3, z3 = x + 0.5 * h * k2x, y + 0.5 * h * k2y, z + 0.5 * h * k2z
            k3x, k3y, k3z = cx * y3 * z3, cy * z3 * x3, cz * x3 * y3
            x4, y4, z4 = x + h * k3x, y + h * k3y, z + h * k3z
            k4x, k4y, k4z = cx * y4 * z4, cy * z4 * x4, cz * x4 * y4
            x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
            y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
            z += h / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
        out[i + 1, 0] = x
        out[i + 1, 1] = y
        out[i + 1, 2] = z
    return out


# --------------------------------------------------------------------------- the fit


@dataclass
class GyroFit:
    """What a recording says about the body (ratios a = Ix/Iz, b = Iy/Iz)."""

    data: GyroData
    omega0: np.ndarray  # fitted ω at the first sample, rad/s
    ratios: np.ndarray  # (a, b)
    ratio_sigma: np.ndarray  # their standard uncertainties
    omega0_sigma: np.ndarray
    rms: float  # residual, rad/s (root mean square over the three components)
    fitted: np.ndarray  # ω of the fitted equations at the samples, (n, 3)
    intermediate: int | None  # 0, 1, 2: the axis of the middle moment (None if two agree)
    flip_measured: float | None  # s between flips in the recording
    flip_predicted: float | None  # s between flips of the fitted equations
    flips_measured: int = 0
    evaluations: int = 0

    @property
    def moments(self) -> np.ndarray:
        """(Ix, Iy, Iz) / Iz."""
        return np.array([self.ratios[0], self.ratios[1], 1.0])

    def to_json(self) -> dict[str, Any]:
        return {
            "inertia_ratios": [float(v) for v in self.ratios],
            "inertia_ratios_sigma": [float(v) for v in self.ratio_sigma],
            "initial_ang_vel": [float(v) for v in self.omega0],
            "initial_ang_vel_sigma": [float(v) for v in self.omega0_sigma],
            "residual_rms": self.rms,
            "samples": len(self.data.t),
            "duration": float(self.data.t[-1]),
            "sample_rate": self.data.rate,
            "intermediate_axis": "xyz"[self.intermediate]
            if self.intermediate is not None
            else None,
            "flips_measured": self.flips_measured,
            "flip_period_measured": self.flip_measured,
            "flip_period_predicted": self.flip_predicted,
            "columns": self.data.columns,
            "notes": self.data.notes,
        }


def derivative_ratios(t: np.ndarray, omega: np.ndarray) -> tuple[np.ndarray | None, float]:
    """(a, b) from the Euler equations' coefficients fitted to the rates' derivatives
    (Savitzky–Golay, cubic, ~0.1 s windows): ω̇x = c1 ωy ωz, ω̇y = c2 ωz ωx give
    a = (1 − c2)/(1 + c1 c2), b = 1 + a c1; None when they are not both positive. And the
    noise: the standard deviation of ω about its smoothed curve, rad/s."""
    from scipy.signal import savgol_filter

    dt = float(np.median(np.diff(t)))
    window = int(min(len(t) // 2 * 2 - 1, max(7, round(0.1 / dt) | 1)))
    smooth = savgol_filter(omega, window, 3, axis=0)
    rates = savgol_filter(omega, window, 3, deriv=1, delta=dt, axis=0)
    noise = float(np.std(omega - smooth))
    x, y, z = smooth.T
    with np.errstate(all="ignore"):
        c1 = float(np.dot(rates[:, 0], y * z) / np.dot(y * z, y * z))
        c2 = float(np.dot(rates[:, 1], z * x) / np.dot(z * x, z * x))
        a = (1.0 - c2) / (1.0 + c1 * c2)
        b = 1.0 + a * c1
    ok = math.isfinite(a) and math.isfinite(b) and a > 0 and b > 0
    return (np.array([a, b]) if ok else None), noise


def fit(data: GyroData) -> GyroFit:
    """Least squares over ω(0), Ix/Iz and Iy/Iz of the torque-free Euler equations."""
    from scipy.optimize import least_squares

    t, measured = data.t, data.omega
    head = measured[: max(3, min(5, len(t) // 20))]
    w0 = head[0] if len(head) < 3 else np.median(head[:3], axis=0)
    starts = []
    guess, noise = derivative_ratios(t, measured)
    if guess is not None:
        starts.append(np.clip(guess, 0.02, 50.0))
    starts += [np.array(s) for s in ((0.8, 0.2), (0.2, 0.8), (0.5, 0.5), (2.0, 0.5), (0.5, 2.0))]

    def residuals(p: np.ndarray) -> np.ndarray:
        return (simulate(t, p[:3], p[3], p[4]) - measured).ravel()

    lower = [-np.inf] * 3 + [1e-3] * 2
    upper = [np.inf] * 3 + [1e3] * 2
    best, evaluations = None, 0
    for ratios in starts:
        result = least_squares(
            residuals, np.concatenate([w0, ratios]), bounds=(lower, upper), x_scale="jac",
            xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=200,
        )  # fmt: skip
        evaluations += int(result.nfev)
        if best is None or result.cost < best.cost:
            best = result
        rms = math.sqrt(2.0 * best.cost / best.fun.size)
        if rms < 2.0 * noise + 1e-3 * float(np.sqrt(np.mean(measured**2))):
            break  # down to the noise: no need to try other starts
    assert best is not None
    p = best.x
    dof = max(1, best.fun.size - p.size)
    sigma2 = 2.0 * best.cost / dof
    try:
        cov = np.linalg.inv(best.jac.T @ best.jac) * sigma2
        sigma = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    except np.linalg.LinAlgError:
        sigma = np.full(p.size, np.inf)
    a, b = float(p[3]), float(p[4])
    fitted = simulate(t, p[:3], a, b)
    moments = np.array([a, b, 1.0])
    order = np.argsort(moments)
    spread = moments[order[2]] - moments[order[0]]
    distinct = min(moments[order[1]] - moments[order[0]], moments[order[2]] - moments[order[1]])
    middle = int(order[1]) if distinct > 1e-3 * spread else None
    flip_measured, flips = (None, 0) if middle is None else flip_period(t, measured[:, middle])
    flip_predicted = None if middle is None else predicted_flip_period(p[:3], a, b, middle, t)
    return GyroFit(
        data, p[:3].copy(), np.array([a, b]), sigma[3:], sigma[:3],
        math.sqrt(2.0 * best.cost / best.fun.size), fitted, middle, flip_measured,
        flip_predicted, flips, evaluations,
    )  # fmt: skip


def flip_times(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Times where the rate w changes sign, with hysteresis: from above +h to below −h or
    back, h = a quarter of max |w| (noise near zero makes no flip); each at the zero
    crossing (linear interpolation) just before the far side is reached."""
    h = 0.25 * float(np.max(np.abs(w)))
    if h <= 0.0:
        return np.empty(0)
    side = 0
    times = []
    for i in range(len(w)):
        s = 1 if w[i] > h else -1 if w[i] < -h else 0
        if s == 0:
            continue
        if side and s != side:  # crossed: find the last zero crossing before i
            j = i
            while j > 0 and np.sign(w[j - 1]) == np.sign(w[i]):
                j -= 1
            if j > 0 and w[j - 1] != w[j]:
                times.append(t[j - 1] + (t[j] - t[j - 1]) * w[j - 1] / (w[j - 1] - w[j]))
            else:
                times.append(t[j])
        side = s
    return np.array(times)


def flip_period(t: np.ndarray, w: np.ndarray) -> tuple[float | None, int]:
    """(mean time between flips, number of flips) of a rate; None with fewer than two."""
    times = flip_times(t, w)
    return (float(np.mean(np.diff(times))) if len(times) >= 2 else None), len(times)


def predicted_flip_period(
    omega0: np.ndarray, a: float, b: float, axis: int, t: np.ndarray
) -> float | None:
    """The fitted equations' time between flips: simulated from ω0 for as long as three
    flips take (up to 50 times the recording or 10 minutes), at the recording's rate."""
    duration = float(t[-1])
    span = duration
    while True:
        dt = max(duration / max(1, len(t) - 1), span / 20_000)
        grid = np.arange(0.0, span + 0.5 * dt, dt)
        w = simulate(grid, omega0, a, b)[:, axis]
        times = flip_times(grid, w)
        if len(times) >= 3 or span >= min(50.0 * duration, 600.0):
            return float(np.mean(np.diff(times))) if len(times) >= 2 else None
        span *= 4.0


# --------------------------------------------------------------------------- the body


def box_size(radii: np.ndarray) -> tuple[float, float, float]:
    """Edges (m) of the uniform box with these radii of gyration (r_x² = (l_y² + l_z²)/12,
    …); an edge the radii make zero or negative (a body flatter than a box) is drawn 2 % of
    the longest."""
    r2 = np.asarray(radii, dtype=float) ** 2
    sq = 6.0 * (r2.sum() - 2.0 * r2)  # l_x² = 6 (r_y² + r_z² − r_x²), …
    longest = math.sqrt(max(float(sq.max()), 1e-12))
    edges = [math.sqrt(v) if v > (0.02 * longest) ** 2 else 0.02 * longest for v in sq.tolist()]
    return edges[0], edges[1], edges[2]


def fitted_scenario(result: GyroFit, *, mass: float = 0.2, radius: float = 0.05) -> Scenario:
    """The fitted body as a scenario: InertiaRadi (radius·√a, radius·√b, radius) with
    `radius` the radius of gyration about z, AngVel the fitted ω(0), no gravity (free
    flight: the rotation does not see it), drawn as the box of the same inertia, run for
    the recording's duration."""
    from ..scenario import BodySpec, Integration, Scenario

    a, b = (float(v) for v in result.ratios)
    radii = (radius * math.sqrt(a), radius * math.sqrt(b), radius)
    duration = max(0.1, round(float(result.data.t[-1]), 2))
    speed = float(np.linalg.norm(result.omega0))
    step = 1e-3 if speed < 60.0 else 5e-4
    sa, sb = (float(v) for v in result.ratio_sigma)
    wx, wy, wz = (float(v) for v in result.omega0)
    ratios = f"Ix/Iz = {a:.4g} ± {sa:.2g}, Iy/Iz = {b:.4g} ± {sb:.2g}"
    return Scenario(
        name="gyro_fit",
        caption=f"A body fitted to a gyroscope recording ({ratios}); watch it flip.",
        bodies=[
            BodySpec(
                Name="Phone",
                Mass=mass,
                InertiaRadi=radii,
                Gravity=0.0,
                Mesh="box.stl",
                Material="Simple/Red",
                Size=box_size(np.array(radii)),
                AngVel=(wx, wy, wz),
            )
        ],
        integration=Integration(method="rk4", stepsize=step, TOutput=f"0:0.01:{duration:g}"),
    )


def simulate_body(
    body: BodySpec, omega0: np.ndarray, t_end: float, dt: float = 0.01
) -> tuple[np.ndarray, np.ndarray]:
    """The body-frame ω (T, 3) of `body` (its inertia, CG offset and model, as a room has
    it) started spinning at `omega0` with no load and no gravity, at 0, dt, … ≤ t_end: the
    headless runner's own simulation (what `sixdof run` would give), for comparing with a
    recording. Returns (times, ω)."""
    from ..headless import run_scenario
    from ..scenario import Integration, Scenario

    wx, wy, wz = (float(v) for v in omega0)
    spinning = body.model_copy(
        update={
            "Pos": (0.0, 0.0, 0.0),
            "Quater": (1.0, 0.0, 0.0, 0.0),
            "LocalVel": (0.0, 0.0, 0.0),
            "AngVel": (wx, wy, wz),
            "Force": (0.0, 0.0, 0.0),
            "Moment": (0.0, 0.0, 0.0),
            "Gravity": 0.0,
        }
    )
    speed = max(1e-9, math.sqrt(wx * wx + wy * wy + wz * wz))
    step = min(1e-3, TURN_FRACTION * 2.0 * math.pi / speed)
    end = max(dt, round(t_end / dt) * dt)
    scenario = Scenario(
        name="gyro_compare",
        bodies=[spinning],
        integration=Integration(method="rk4", stepsize=step, TOutput=f"0:{dt:g}:{end:.6g}"),
    )
    with warnings.catch_warnings():  # impossible inertia: the room's body has it already
        warnings.simplefilter("ignore")
        result = run_scenario(scenario)
    return result.times, result.arrays()[f"{body.Name}.AngVel"]
