"""The cable kind (issue 44) against closed forms: a line hanging from an anchor on the seabed
to a fairlead settles on the quasi-static catenary with seabed contact (MoorPy's case), the
closer the more segments; a taut line's axial waves travel at √(EA/μ); a line holding a
swinging body conserves energy without drag and seabed; refusals name the field; the XML
form keeps FhSim's names.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import fsolve

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import cable_lines as C
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Cable, Pivot
from sixdof.fields import FieldError
from sixdof.scenario import Scenario
from sixdof.scenario.kinds.cable import CableElement

pytestmark = pytest.mark.unit

# MoorPy's case: 500 m of line weighing 800 N/m in water, fairlead 400 m across, 200 m up
G, W, D, RHO, L, X, H_UP, DEPTH = 9.81, 800.0, 0.15, 1025.0, 500.0, 400.0, 200.0, 250.0
MU = W / G + RHO * math.pi * D * D / 4
EA = 1e9
MOORPY = {"H": 96_643.0, "V": 237_752.0, "seabed": 202.8}


def _catenary() -> dict[str, float]:
    """The elastic catenary resting on a frictionless seabed: H, V at the fairlead and the
    unstretched length on the seabed, L_b = L − V / w."""

    def gap(hv: np.ndarray) -> list[float]:
        h, v = hv
        lb = L - v / W
        x = lb * (1 + h / EA) + h / W * math.asinh(v / h) + h * (v / W) / EA
        z = h / W * (math.sqrt(1 + (v / h) ** 2) - 1) + v * v / (2 * EA * W)
        return [x - X, z - H_UP]

    h, v = fsolve(gap, [1e5, 2e5], xtol=1e-12)
    return {"H": float(h), "V": float(v), "seabed": L - float(v) / W}


def _settled(n: int, h: float, seconds: float) -> dict[str, float]:
    """The fairlead's H and V and the length on the seabed after `seconds` of settling under
    heavy drag and axial damping (at rest neither acts)."""
    fair, anchor = (X, 0.0, DEPTH - H_UP), (0.0, 0.0, DEPTH)
    seg = L / n
    cable = Cable(
        0, (0.0, 0.0, 0.0), anchor, L, n, MU, EA, D, density=RHO, depth=DEPTH,
        drag_normal=20.0, drag_tangential=1.0, axial_damping=0.3 * MU * seg * seg / h,
        ends=(fair, anchor),
    )  # fmt: skip
    body = BodyParams.from_radii(1000.0, (1.0, 1.0, 1.0), gravity=G)
    pk = K.pack(Bodies.of([body]), [Pivot(0, (0.0, 0.0, 0.0), fair), cable])
    x = np.array([make_state(fair, (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])
    z = K.element_states(pk, None)
    K.advance(pk, x, np.zeros(6), h, round(seconds / h), "rk4", 0.0, z)
    rec = K.element_records(pk, x, np.zeros(6), 0.0, h, z)
    speed = float(np.abs(z[1:].reshape(n - 1, 6)[:, 3:]).max())
    assert speed < 1e-3, speed  # settled
    bed = C.seabed_length(cable, z, np.array(fair), np.array(anchor), G)
    return {"H": -float(rec[1, 3]), "V": float(rec[1, 5]), "seabed": bed}


@pytest.mark.closed_form("cable")
def test_a_hanging_line_settles_on_the_catenary_closer_with_more_segments() -> None:
    exact = _catenary()
    for key, want in MOORPY.items():  # the closed form is MoorPy's case
        assert abs(exact[key] / want - 1) < 3e-3, (key, exact[key], want)  # EA: 0.2 %
    errors = []
    for n, h in ((10, 2e-3), (20, 2e-3), (40, 1e-3)):
        got = _settled(n, h, 200.0)
        errors.append(max(abs(got[k] / exact[k] - 1) for k in exact))
    # within 1 % of the catenary (and of MoorPy's figures); measured 1.8 %, 0.39 %, 0.04 %
    assert errors[-1] < 0.01, errors
    assert errors[0] > errors[1] > errors[2], errors  # shrinking with the segments


def _taut(n: int, pluck: float, axial: bool) -> tuple[Cable, np.ndarray]:
    """A line of 100 m stretched 1 % between a body point and a world point; its inner nodes
    displaced by pluck · sin(π s) along it (axial) or across it."""
    s = np.linspace(0.0, 1.0, n + 1)[1:-1]
    nodes = np.zeros((n - 1, 6))
    nodes[:, 0] = 101.0 * s
    nodes[:, 0 if axial else 1] += pluck * np.sin(math.pi * s)
    cable = Cable(0, (0.0, 0.0, 0.0), (101.0, 0.0, 0.0), 100.0, n, 1.0, 1e6, 0.01,
                  density=0.0, nodes=tuple(map(tuple, nodes)))  # fmt: skip
    return cable, nodes


def test_a_taut_lines_axial_wave_travels_at_the_square_root_of_ea_over_mu() -> None:
    n, h = 20, 1e-4
    cable, _ = _taut(n, 0.1, axial=True)
    body = BodyParams.from_radii(1.0, (1.0, 1.0, 1.0), gravity=0.0)
    pk = K.pack(Bodies.of([body]), [Pivot(0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), cable])
    x = np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])
    z = K.element_states(pk, None)
    mid = 1 + 6 * (n // 2 - 1)  # the middle node's x
    rest = 101.0 * 0.5  # where the middle node rests
    times, trace = [], []
    for k in range(6000):
        K.advance(pk, x, np.zeros(6), h, 1, "rk4", k * h, z)
        times.append((k + 1) * h)
        trace.append(z[mid] - rest)
    u = np.asarray(trace)
    up = np.flatnonzero((u[:-1] < 0) & (u[1:] >= 0))
    t_up = [times[i] - u[i] / (u[i + 1] - u[i]) * h for i in up]
    period = float(np.mean(np.diff(t_up)))
    speed = 2 * 100.0 / period  # the first axial mode of a line fixed at both ends: λ = 2 L
    assert abs(speed / math.sqrt(1e6 / 1.0) - 1) < 0.02, speed  # measured 0.1 % (lumping)


def test_a_line_holding_a_swinging_body_conserves_energy_without_drag_and_seabed() -> None:
    n, h, m = 10, 1e-4, 10.0
    cable = Cable(0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 10.0, n, 1.0, 1e5, 0.01, density=0.0,
                  ends=((0.0, 0.0, 10.01), (0.0, 0.0, 0.0)))  # fmt: skip
    body = BodyParams.from_radii(m, (0.1, 0.1, 0.1), gravity=G)
    pk = K.pack(Bodies.of([body]), [cable])
    x = np.array([make_state((0.0, 0.0, 10.01), (1, 0, 0, 0), (2.0, 0.0, 0.0), (0, 0, 0))])
    z = K.element_states(pk, None)

    def energy() -> float:
        body_e = 0.5 * m * float(x[0, 7:10] @ x[0, 7:10]) - m * G * float(x[0, 2])
        return body_e + C.energy(cable, z, x[0, 0:3], np.zeros(3), G)

    e0 = energy()
    scale = 0.5 * m * 2.0**2 + m * G * 10.0
    for k in range(10):
        K.advance(pk, x, np.zeros(6), h, round(1.0 / h), "rk4", float(k), z)
    assert float(np.abs(x[0, 0])) > 0.0  # it swung
    assert abs(energy() - e0) / scale < 1e-6, (energy() - e0) / scale


def _scenario(**fields: object) -> dict[str, object]:
    cable = {"kind": "cable", "body": "Buoy", "to": [30.0, 0.0, 20.0], "length": 40.0,
             "segments": 8, "mass_per_length": 20.0, "axial_stiffness": 1e7} | fields  # fmt: skip
    return {"bodies": [{"Name": "Buoy", "Mass": 100.0}], "elements": [cable]}


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"length": 2e5}, "length"),
        ({"segments": 0}, "segments"),
        ({"axial_stiffness": 0.0}, "axial_stiffness"),
        ({"axial_stiffness": None}, "axial_stiffness"),
        ({"diameter": -1.0}, "diameter"),
        ({"mass_per_length": 0.0}, "mass_per_length"),
        ({"pay_out_speed": 1e3}, "pay_out_speed"),
    ],
)
def test_refusals_name_the_field(fields: dict[str, object], named: str) -> None:
    with pytest.raises((FieldError, ValueError)) as err:
        Scenario.model_validate(_scenario(**fields))
    assert named in str(err.value)


def test_a_winch_pays_out_at_its_speed_and_the_e_modulus_gives_ea() -> None:
    spec = _scenario(e_modulus=2e11, axial_stiffness=None, diameter=0.02,
                     pay_out_speed=0.5, pay_out_speed_b=0.25)  # fmt: skip
    scenario = Scenario.model_validate(spec)
    cable = scenario.elements[0]
    assert isinstance(cable, CableElement)
    assert cable.ea() == pytest.approx(2e11 * math.pi * 0.02**2 / 4, rel=1e-12)
    from sixdof.scenario.elements import dynamics_elements

    built = dynamics_elements(scenario.elements, scenario.bodies, scenario.initial_states())
    body = BodyParams.from_radii(100.0, (1.0, 1.0, 1.0), gravity=0.0)
    pk = K.pack(Bodies.of([body]), [Pivot(0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), *built])
    x = np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])
    z = K.element_states(pk, None)
    K.advance(pk, x, np.zeros(6), 1e-3, 2000, "rk4", 0.0, z)
    assert z[0] == pytest.approx(40.0 + 0.75 * 2.0, rel=1e-12)
