"""The numbers the radiation presets' captions quote (issue 43: the hull's own
hydrodynamics), computed from their scenarios: numbers.caption_values reaches them through
`BY_NAME`.

The barge in waves (`barge_in_waves`) is linear theory of its scenario: two boxes alike in
beam waves, `Barge` with its radiation memory in heave (bem/barge.nc), `Undamped` with only
that memory's A∞ as a constant added mass, the waves at Undamped's natural heave period
(scripts/fit_presets.py writes both from the fit). Started at rest, Undamped at resonance
heaves as F t / (2 M ω₀) sin ω₀t (M = m + A∞: growing without end), Barge settles at
F / |C − ω₀²(m + A(ω₀)) − iω₀B(ω₀)|; their ratio after t seconds does not need the wave force
F (the pressure of the waves over the clipped hull, the same on both).

The OES Task 10 sphere's free decay has no closed form once its memory is in (Cummins'
equation), so its troughs and periods are run figures (`MEASURED`, from the presets at their
own step; tests/unit/test_radiation_presets.py runs them and checks every one). Heights are
of the sphere's centre above its rest (the faceted hull floats 0.054 m below the half-
submerged centre), a trough is the lowest point before the first upward crossing of the rest,
a period the time between the first two upward crossings.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..kinds.radiation import RadiationElement
from ..model import Scenario

Values = dict[str, float | str]

#: Run figures of the sphere released from 1 m and from 5 m: its first trough's depth below
#: rest (m) and first period (s), of the clipped hull (`Sphere`) and of its linear twin
#: (`GhostSphere`, "2").
MEASURED = {
    "oes_sphere_1m": {"trough": 0.910, "period": 4.412, "trough2": 0.910, "period2": 4.392},
    "oes_sphere_5m": {"trough": 4.235, "period": 4.601, "trough2": 4.365, "period2": 4.392},
}


def _sphere(name: str) -> Callable[[Scenario], Values]:
    def values(s: Scenario) -> Values:
        b = s.bodies[0]
        values: Values = {"drop": -b.Pos[2], **MEASURED[name], "f_linear": "ρ g π R² z"}
        if name == "oes_sphere_1m":  # the first of the two says what the sphere is
            values.update(radius=b.Size[0] / 2, tonnes=b.Mass / 1000)
        return values

    return values


#: The barge preset's bodies: with its radiation memory, and with its A∞ alone.
BARGE = ("Barge", "Undamped")
#: How near the run's heave amplitudes come to the linear theory the caption quotes (the
#: clipped hull, the fit's error, the undamped one's sway and roll): within 10 %.
BARGE_TOLERANCE = 0.10


def natural_frequency(mass: float, added: float, size: tuple[float, float, float], rho: float,
                      g: float) -> float:  # fmt: skip
    """A box's natural heave frequency, rad/s: √(ρ g L B / (m + added))."""
    return math.sqrt(rho * g * size[0] * size[1] / (mass + added))


def _interpolate(x: float, xs: list[float], ys: list[float]) -> float:
    k = next(i for i in range(1, len(xs)) if xs[i] >= x)
    f = (x - xs[k - 1]) / (xs[k] - xs[k - 1])
    return ys[k - 1] + f * (ys[k] - ys[k - 1])


def barge_theory(s: Scenario) -> dict[str, float]:
    """Linear theory of the barge preset: its period (s), Undamped's heave growth per second
    and Barge's steady heave, each per newton of the wave's heave force (m/s/N, m/N)."""
    barge = next(b for b in s.bodies if b.Name == BARGE[0])
    fit = next(e.fit for e in s.elements if isinstance(e, RadiationElement))
    assert fit is not None and fit.samples is not None and s.water is not None
    rho, g, m, size = s.water.density, barge.Gravity, barge.Mass, barge.Size
    heave = fit.samples.pairs.index((2, 2))
    a_inf = fit.infinite[2][2]
    w0 = natural_frequency(m, a_inf, size, rho, g)
    w = fit.samples.omega
    a_w = _interpolate(w0, w, fit.samples.added_mass[heave])
    b_w = _interpolate(w0, w, fit.samples.damping[heave])
    c = rho * g * size[0] * size[1]
    return {
        "period": 2 * math.pi / w0,
        "growth": 1 / (2 * (m + a_inf) * w0),
        "steady": 1 / math.hypot(c - w0 * w0 * (m + a_w), w0 * b_w),
    }


def _barge(s: Scenario) -> Values:
    b = s.bodies[0]
    assert s.water is not None
    theory = barge_theory(s)
    t = float(s.integration.TOutput.split(":")[-1])
    return {
        "period": theory["period"], "length": b.Size[0], "beam": b.Size[1],
        "amplitude": s.water.waves[0].amplitude, "tonnes": b.Mass / 1000,
        "a_inf": next(e.fit.infinite[2][2] for e in s.elements
                      if isinstance(e, RadiationElement) and e.fit is not None) / 1000,
        "t": t, "ratio": theory["growth"] * t / theory["steady"],
        "tolerance": 100 * BARGE_TOLERANCE,
    }  # fmt: skip


BY_NAME: dict[str, Callable[[Scenario], Values]] = {
    "oes_sphere_1m": _sphere("oes_sphere_1m"),
    "oes_sphere_5m": _sphere("oes_sphere_5m"),
    "barge_in_waves": _barge,
}
