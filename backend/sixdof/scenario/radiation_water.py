"""A radiation element's linear water (scenario/kinds/radiation.py; `e` is its
RadiationElement, not imported: that module imports this one): the waves' excitation
from its file's table and the linear hydrostatics of its body, as the kernel reads them
(dynamics/kinds/radiation.py), and the checks that need the scenario's water."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..fields import FieldError

if TYPE_CHECKING:
    from ..dynamics.water import Water
    from .shapes import BodySpec
    from .water import WaterSpec

#: How far (degrees) a wave's heading may be from a one-heading file's.
ONE_HEADING = 1.0
#: How far a fit's water density may be from the scenario's before its stiffness is refused
#: (relative; its added mass, memory and wave force are scaled to the scenario's).
DENSITY_SLACK = 1e-6


def wave_rows(e: Any, sea: Water, body: BodySpec) -> tuple[np.ndarray, np.ndarray]:
    """Each wave's a, ω, k, cos β, sin β, β and its force X(ω) at the file's headings (re, im
    at each), and the headings (rad): empty without excitation bem or waves."""
    from ..dynamics.kinds.radiation import WAVE_HEAD
    from ..dynamics.water import wave_table

    table = None if e.fit is None else e.fit.excitation
    if e.excitation != "bem" or table is None or not sea.waves:
        return np.zeros((0, WAVE_HEAD)), np.zeros(0)
    omega = np.asarray(table.omega)
    re, im = np.asarray(table.re), np.asarray(table.im)  # (n, h, 6)
    rows = []
    for a, om, k, cb, sb in wave_table(sea, body.Gravity):
        x_re = np.array([[np.interp(om, omega, re[:, h, d]) for d in range(6)]
                         for h in range(re.shape[1])])  # fmt: skip
        x_im = np.array([[np.interp(om, omega, im[:, h, d]) for d in range(6)]
                         for h in range(im.shape[1])])  # fmt: skip
        head = [a, om, k, cb, sb, math.atan2(sb, cb)]
        rows.append(np.concatenate([head, np.concatenate([x_re, x_im], axis=1).reshape(-1)]))
    return np.asarray(rows), np.radians(np.asarray(table.headings))


def hydrostatics_row(e: Any, sea: Water, body: BodySpec) -> np.ndarray:
    """z₀, W₀ (6), C (36) and the potential at rest of the body's linear hydrostatics (empty
    with hydrostatics nonlinear)."""
    if e.hydrostatics != "linear":
        return np.zeros(0)
    h = linear_of(e, sea, body)
    rest = sea.density * body.Gravity * h.volume * (h.z_b - sea.level)
    return np.concatenate(([h.z0], h.w0, h.stiffness.reshape(-1), [rest]))


def linear_of(e: Any, sea: Water, body: BodySpec) -> Any:
    """The body's LinearHydrostatics (dynamics/linear_hydrostatics.py)."""
    from ..dynamics.linear_hydrostatics import linear_hydrostatics
    from .shapes import hull_triangles

    stiffness = None if e.fit is None or e.fit.stiffness is None else np.asarray(e.fit.stiffness)
    try:
        return linear_hydrostatics(
            np.asarray(hull_triangles(body)), body.Mass, np.asarray(body.CGOffset),
            sea.density, body.Gravity, sea.level, stiffness,
        )  # fmt: skip
    except ValueError as exc:
        raise FieldError("hydrostatics", "invalid", f"hydrostatics linear: {exc}") from None


def check_water(
    elements: Sequence[Any], water: WaterSpec | None, bodies: Sequence[BodySpec]
) -> None:
    """What a radiation element asks of the scenario's waves: with linear hydrostatics their
    force from the file (excitation bem: the clipped hull that would feel their pressure is
    gone), and with excitation bem each wave inside the file's frequencies and headings."""
    waves = [] if water is None else water.waves
    density = 1025.0 if water is None else water.density
    by_name = {b.Name: b for b in bodies}
    for k, e in enumerate(elements):
        if e.kind != "radiation":
            continue
        fit = e.fit
        if e.hydrostatics == "linear" and fit is not None and fit.stiffness is not None:
            # the stiffness holds the body's weight beside ρ g's terms: no factor rescales it
            made = fit.density or density
            if abs(made - density) > DENSITY_SLACK * density:
                raise FieldError(
                    "hydrostatics",
                    "invalid",
                    f"elements[{k}]: hydrostatics linear: its fit's hydrostatic_stiffness is "
                    f"for water of {made:g} kg/m³ and holds the body's weight, the water here "
                    f"is {density:g}: set water.density to {made:g}, or use hydrostatics "
                    "nonlinear",
                )
        if not waves:
            continue
        if e.hydrostatics == "linear" and e.excitation != "bem":
            raise FieldError(
                "excitation",
                "invalid",
                f"elements[{k}]: hydrostatics linear in waves takes their force from the file: "
                "excitation bem (with no buoyancy element nothing else feels them)",
            )
        if e.excitation != "bem" or e.fit is None or e.fit.excitation is None:
            continue
        table = e.fit.excitation
        yaw = _yaw(by_name[e.body]) if e.body in by_name else 0.0
        for j, w in enumerate(waves):
            om = 2 * math.pi / w.period
            if not table.omega[0] <= om <= table.omega[-1]:
                raise FieldError(
                    f"waves[{j}]",
                    "out_of_range",
                    f"waves[{j}]: a {w.period:g} s wave (ω = {om:.3g} rad/s) is outside the "
                    f"BEM file's frequencies of elements[{k}] ({table.omega[0]:.3g} to "
                    f"{table.omega[-1]:.3g} rad/s)",
                )
            rel = (w.direction - yaw + 180.0) % 360.0 - 180.0
            lo, hi = table.headings[0], table.headings[-1]
            if len(table.headings) == 1:
                lo, hi = lo - ONE_HEADING, hi + ONE_HEADING
            if not lo - 1e-9 <= rel <= hi + 1e-9:
                raise FieldError(
                    f"waves[{j}]",
                    "out_of_range",
                    f"waves[{j}]: travelling {rel:g}° from {e.body}'s heading, outside the BEM "
                    f"file's headings of elements[{k}] ({_degrees(table.headings)}): "
                    "sixdof bem --heading computes more",
                )


def _degrees(values: Sequence[float]) -> str:
    return ", ".join(f"{v:g}°" for v in values)


def _yaw(body: BodySpec) -> float:
    """The body's initial yaw, degrees."""
    w, x, y, z = body.Quater
    return math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


__all__ = ["check_water", "hydrostatics_row", "linear_of", "wave_rows"]
