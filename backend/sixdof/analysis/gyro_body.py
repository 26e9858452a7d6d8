"""What a fit says about the body: the fitted body as a scenario, and the fit against a room's
body simulated by the headless runner (what the server answers)."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .gyro_model import step_for

if TYPE_CHECKING:
    from ..scenario import BodySpec, Scenario
    from .gyro import GyroFit


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
    body: BodySpec, omega0: np.ndarray, t_end: float, dt: float = 0.01, rate: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The body-frame ω (T, 3) of `body` (its inertia, CG offset and model, as a room has
    it) started spinning at `omega0` with no load and no gravity, at 0, dt, … ≤ t_end: the
    headless runner's own simulation (what `sixdof run` would give), for comparing with a
    recording. Steps of at most 1 ms and a hundredth of a turn at `rate` rad/s (None: at
    |omega0|; a fit gives its record's fastest rate, which its cost counted). Returns
    (times, ω)."""
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
    speed = math.sqrt(wx * wx + wy * wy + wz * wz)
    step = min(1e-3, step_for(speed if rate is None else rate))
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


def thin(t: np.ndarray, w: np.ndarray, points: int) -> dict[str, Any]:
    """Every k-th sample of times t (n,) and ω (n, 3), at most `points` of them."""
    stride = max(1, math.ceil(len(t) / points))
    return {"t": t[::stride].tolist(), "omega": [w[::stride, k].tolist() for k in range(3)]}


def compare(result: GyroFit, spec: BodySpec, points: int) -> dict[str, Any]:
    """The fit against a room's body `spec`: the fit's fields (`sixdof fit --json`'s), the
    measured ω, the body's simulated ω as it is and with the fitted inertia (its own Iz
    kept), the set_params fields that apply the fit, and the fitted body as a scenario;
    each series thinned to at most `points` points. What POST /api/rooms/{room}/gyro
    answers."""
    data = result.data
    with warnings.catch_warnings():  # impossible inertia: warned when the room got it
        warnings.simplefilter("ignore")
        izz = float(spec.params().inertia_cg[2, 2])
    rz = math.sqrt(izz / spec.Mass)  # the body's own Izz is kept; Ix, Iy follow the ratios
    a, b = (float(v) for v in result.ratios)
    radii = [rz * math.sqrt(a), rz * math.sqrt(b), rz]
    duration = float(data.t[-1])
    rate = float(np.max(np.linalg.norm(data.omega, axis=1)))
    t_sim, w_sim = simulate_body(spec, result.omega0, duration, rate=rate)
    fitted_body = spec.model_copy(update={"InertiaRadi": tuple(radii), "Inertia": None})
    t_fit, w_fit = simulate_body(fitted_body, result.omega0, duration, rate=rate)
    reply = result.to_json()
    reply.update(
        {
            "body": spec.Name,
            "measured": thin(data.t, data.omega, points),
            "simulated": {
                **thin(t_sim, w_sim, points),
                "InertiaRadi": list(spec.InertiaRadi),
                "Inertia": spec.Inertia,
                "model": spec.model,
            },
            "simulated_fitted": thin(t_fit, w_fit, points),
            "apply": {"InertiaRadi": radii, "Inertia": None},
            "scenario": fitted_scenario(result, mass=spec.Mass, radius=rz).model_dump(mode="json"),
        }
    )
    return reply
