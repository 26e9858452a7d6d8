"""Controllers (issue 44) against closed forms: a PID on a body on a spring is a third-order
linear system (its step response by the matrix exponential), the integral term removes a
current's steady error, a linear system's states and output equal scipy.signal's, and RK4
keeps its order with the controller's states stepped in its stages. The states go into
keyframes: a simulation made from one goes on with the same bits.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.signal import lsim

import sixdof
from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Controller, Spring
from sixdof.fields import FieldError
from sixdof.scenario import Scenario
from sixdof.scenario.kinds import controller as scenario_kind
from sixdof.simulation import LiveSimulation

# a 2 kg body on a spring of 8 N/m, held at 0.5 m north by a PID on surge
M, KS, KP, KI, KD, R = 2.0, 8.0, 20.0, 10.0, 6.0, 0.5


def _pid_on_spring(h: float, t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """RK4 from rest at the spring's anchor: (x, ẋ, ∫e) at t_end."""
    body = BodyParams.from_radii(M, (1.0, 1.0, 1.0), gravity=0.0)
    pid = Controller(0, "pid", target_pos=(R, 0.0, 0.0), kp=(KP, 0, 0, 0, 0, 0),
                     ki=(KI, 0, 0, 0, 0, 0), kd=(KD, 0, 0, 0, 0, 0))  # fmt: skip
    pk = K.pack(Bodies.of([body]), [Spring(0, (0, 0, 0), (0, 0, 0), KS), pid])
    x = np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])
    z = K.element_states(pk, None)
    K.advance(pk, x, np.zeros(6), h, round(t_end / h), "rk4", 0.0, z)
    return np.array([x[0, 0], x[0, 7], z[0]]), x


def _closed_form(t: float) -> np.ndarray:
    """(x, ẋ, ∫e)(t) of m ẍ = −k x + kp (r − x) + ki ∫(r − x) − kd ẋ from rest at 0: the
    affine system s' = A s + b, solved by the exponential of the augmented matrix."""
    a = np.array([[0.0, 1.0, 0.0], [-(KS + KP) / M, -KD / M, KI / M], [-1.0, 0.0, 0.0]])
    aug = np.zeros((4, 4))
    aug[:3, :3] = a
    aug[:3, 3] = (0.0, KP * R / M, R)
    return expm(aug * t)[:3, 3]


@pytest.mark.closed_form("controller")
def test_a_pid_on_a_spring_follows_the_third_order_step_response() -> None:
    for t in (0.5, 2.0, 6.0):
        got, x = _pid_on_spring(1e-3, t)
        want = _closed_form(t)
        assert np.max(np.abs(got - want)) < 1e-6, (t, got - want)  # measured 1.8e-12
        assert np.max(np.abs(x[0, 1:3])) == 0.0  # surge only: sway and heave untouched


def test_rk4_keeps_its_order_with_the_controllers_states() -> None:
    # a state held over a step (sampled, not integrated) would make this first order
    want = _closed_form(2.0)
    errors = [np.max(np.abs(_pid_on_spring(h, 2.0)[0] - want)) for h in (0.025, 0.0125, 0.00625)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 4.0) < 0.3), orders  # measured 3.95, 3.98


def _barge(ki: float) -> dict:
    """A 1000 kg body in a 0.5 m/s current with a linear damper of 200 N·s/m (100 N of drag
    at rest), held at the origin by a PID on surge and sway."""
    return {
        "bodies": [{"Name": "B", "Mass": 1000.0, "Gravity": 0.0}],
        "water": {"current": [0.5, 0.0, 0.0]},
        "elements": [
            {"kind": "damper", "body": "B", "linear": [200.0, 200.0, 0, 0, 0, 0]},
            {"kind": "controller", "body": "B", "target": {"Pos": [0.0, 0.0, 0.0]},
             "kp": [2000.0, 2000.0, 0, 0, 0, 0], "ki": [ki, ki, 0, 0, 0, 0],
             "kd": [1500.0, 1500.0, 0, 0, 0, 0]},
        ],
        "integration": {"method": "rk4", "stepsize": 0.01, "TOutput": "0:1:60"},
    }  # fmt: skip


def test_the_integral_term_holds_the_station_in_a_current() -> None:
    held = sixdof.run(_barge(ki=500.0)).states[-1, 0, 0:3]
    assert np.linalg.norm(held) < 1e-3, held  # measured 3.5e-10 m
    # without it the current pushes it off by drag / kp = 100 / 2000 = 5 cm
    off = sixdof.run(_barge(ki=0.0)).states[-1, 0, 0]
    assert abs(off - 0.05) < 1e-4, off


def test_a_linear_system_matches_scipy_signal() -> None:
    """A body gliding north at 0.3 m/s feeds Pos.x − 0.2 into ẋ = A x + B w, y = C x + D w,
    whose output pushes it east (the glide north is untouched): the states and the output
    equal lsim's for the ramp (exact for a linear input)."""
    a = [[0.0, 1.0], [-0.5, -2.0]]
    b, c, d = [[0.0], [1.0]], [[1.0, 0.5]], [[0.25]]
    e = Controller(0, "linear_system", a=tuple(map(tuple, a)), b=tuple(map(tuple, b)),
                   c=tuple(map(tuple, c)), d=tuple(map(tuple, d)), inputs=("Pos.x",),
                   outputs=("Force.y",), reference=(0.2,), initial=(0.1, -0.3))  # fmt: skip
    pk = K.pack(Bodies.of([BodyParams.from_radii(3.0, (1, 1, 1), gravity=0.0)]), [e])
    x = np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0.3, 0, 0), (0, 0, 0))])
    z = K.element_states(pk, None)
    h, steps = 1e-3, 500
    t = np.arange(0, 11) * steps * h
    got_z, got_y = [z.copy()], [K.element_records(pk, x, np.zeros(6), 0.0, h, z)[0, 4]]
    for k in range(1, len(t)):
        K.advance(pk, x, np.zeros(6), h, steps, "rk4", t[k - 1], z)
        got_z.append(z.copy())
        got_y.append(K.element_records(pk, x, np.zeros(6), t[k], h, z)[0, 4])
    w = 0.3 * t - 0.2
    _, y, states = lsim((np.array(a), np.array(b), np.array(c), np.array(d)), w, t,
                        X0=[0.1, -0.3])  # fmt: skip
    assert np.max(np.abs(np.array(got_z) - states)) < 1e-8  # measured 4.0e-14
    assert np.max(np.abs(np.array(got_y) - y)) < 1e-8  # measured 7.9e-14


def test_the_scenarios_signals_are_the_dynamics() -> None:
    from sixdof.dynamics.kinds import controller as dynamics_kind

    assert scenario_kind.SIGNALS == dynamics_kind.SIGNALS
    assert scenario_kind.CHANNELS == dynamics_kind.CHANNELS


LINEAR = {"kind": "controller", "body": "A", "type": "linear_system", "A": "0,1;-0.5,-2",
          "B": "0;1", "C": "1,0", "D": "0", "inputs": ["Pos.x"],
          "outputs": ["Force.x"]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"A": "0,1;-0.5"}, "A", ["2×2"]),
        ({"B": [[1.0]]}, "B", ["2×1"]),
        ({"C": "1,0,0"}, "C", ["1×2"]),
        ({"outputs": ["Force.q"]}, "outputs", ["Force.q"]),
        ({"inputs": ["Speed"]}, "inputs", ["Speed"]),
        ({"x0": [1.0]}, "x0", ["2 numbers"]),
        ({"type": "pid", "kp": [1e400, 0, 0, 0, 0, 0]}, "kp", ["finite"]),
        ({"type": "pid", "ki": [-1.0, 0, 0, 0, 0, 0]}, "ki", ["ki"]),
    ],
)  # fmt: skip
def test_bad_controllers_are_refused_naming_the_field(
    change: dict, field: str, words: list[str]
) -> None:
    scenario = {"bodies": [{"Name": "A"}], "elements": [{**LINEAR, **change}]}
    with pytest.raises(FieldError) as info:
        sixdof.run(scenario, t_end=0.01)
    assert info.value.field == field or info.value.field.endswith(f".{field}"), info.value.field
    for word in words:
        assert word in str(info.value), str(info.value)


def test_a_keyframe_carries_the_controllers_states() -> None:
    barge = _barge(ki=500.0)
    sim = LiveSimulation(Scenario.model_validate(barge), running=False)
    sim.step(700)
    assert sim.element_states()[0] != 0.0  # the integral of the surge error
    frame = json.loads(json.dumps(sim.keyframe()))
    again = LiveSimulation.from_keyframe(frame)
    assert np.array_equal(again.element_states(), sim.element_states())
    sim.step(300)
    again.step(300)
    assert np.array_equal(again.state_array(), sim.state_array())
    assert np.array_equal(again.element_states(), sim.element_states())
    # without its states the same keyframe goes on differently (the test can fail)
    frame["z"] = None
    blank = LiveSimulation.from_keyframe(frame)
    blank.step(300)
    assert not np.array_equal(blank.state_array(), sim.state_array())


def test_new_gains_keep_the_integral() -> None:
    sim = LiveSimulation(Scenario.model_validate(_barge(ki=500.0)), running=False)
    sim.step(500)
    before = sim.element_states().copy()
    elements = [e.model_dump() for e in sim.scenario.elements]
    elements[1]["kp"] = [3000.0, 3000.0, 0, 0, 0, 0]
    sim.set_elements(elements)
    assert np.array_equal(sim.element_states(), before)
    sim.reset()
    assert np.all(sim.element_states() == 0.0)


def _barge_lqr() -> dict:
    """A 1000 kg barge-like body turned 10° in yaw, in gravity, for lqr to hold."""
    yaw = np.radians(10.0)
    return {
        "bodies": [{"Name": "Barge", "Mass": 1000.0, "InertiaRadi": [2.0, 4.0, 4.0],
                    "Quater": [float(np.cos(yaw / 2)), 0.0, 0.0, float(np.sin(yaw / 2))]}],
        "integration": {"method": "rk4", "stepsize": 0.02, "TOutput": "0:0.1:20"},
    }  # fmt: skip


def test_lqr_decays_at_the_closed_loops_rates() -> None:
    """The linear_system that sixdof.lqr makes, on the nonlinear body pushed 0.1 m north:
    the offset decays at a real part of eig(A − B K) (its slowest mode, excited alone)."""
    scenario = _barge_lqr()
    design = sixdof.lqr(scenario, [1.0] * 6 + [1e3] * 6, [1e-4] * 6)
    assert design.K.shape == (6, 12) and np.all(design.eigenvalues.real < 0.0)
    moved = {**scenario["bodies"][0], "Pos": [0.1, 0.0, 0.0]}
    result = sixdof.run({**scenario, "bodies": [moved], "elements": [design.element]})
    t = np.asarray(result.arrays()["Time"])
    offset = np.linalg.norm(result.states[:, 0, 0:3], axis=1)
    window = (t > 5.0) & (t < 18.0)
    rate = np.polyfit(t[window], np.log(offset[window]), 1)[0]
    nearest = design.eigenvalues.real[np.argmin(np.abs(design.eigenvalues.real - rate))]
    assert abs(rate - nearest) < 0.01 * abs(nearest), (rate, nearest)  # measured 4.7e-10 relative
    assert nearest == pytest.approx(np.max(design.eigenvalues.real), rel=0.02)  # the slowest
    # its weight is held by u₀ = −m g, carried by the element's constant state
    assert np.max(np.abs(result.states[:, 0, 2])) < 1e-9


def test_lqr_refuses_what_it_cannot_linearise() -> None:
    """(A body with elements is linearised by the engine: tests/unit/test_lqr_world.py.)"""
    with pytest.raises(FieldError) as info:
        sixdof.lqr(_barge_lqr(), [1.0] * 11, [1.0] * 6)
    assert info.value.field == "Q"


def test_a_python_controller_is_the_compiled_pid() -> None:
    """sixdof.run(controller=f) calls f at every stage: the same PID written in Python gives
    the compiled controller's run (to the rounding of a different sum order)."""
    scenario = {
        "bodies": [{"Name": "B", "Mass": M, "Gravity": 0.0}],
        "elements": [{"kind": "spring", "body": "B", "to": [0.0, 0.0, 0.0], "stiffness": KS}],
        "integration": {"method": "rk4", "stepsize": 0.01, "TOutput": "0:0.5:3"},
    }

    # a PD (the compiled controller with ki = 0): f sees each stage's own state
    def pd(t: float, x: np.ndarray) -> tuple[list[float], list[float]]:
        return [KP * (R - x[0, 0]) - KD * x[0, 7], 0.0, 0.0], [0.0, 0.0, 0.0]

    got = sixdof.run(scenario, controller=pd).states
    pid = {"kind": "controller", "body": "B", "target": {"Pos": [R, 0.0, 0.0]},
           "kp": [KP, 0, 0, 0, 0, 0], "kd": [KD, 0, 0, 0, 0, 0]}  # fmt: skip
    want = sixdof.run({**scenario, "elements": [*scenario["elements"], pid]}).states
    assert np.max(np.abs(got - want)) < 1e-12
    assert np.max(np.abs(got[-1, 0, 0] - got[0, 0, 0])) > 0.1  # it moved


def test_an_fmu_refuses_a_controller_whose_states_it_could_not_carry() -> None:
    from sixdof.fmu.body import check_fmu_elements

    with pytest.raises(FieldError) as info:
        check_fmu_elements(Scenario.model_validate(_barge(ki=500.0)))
    assert info.value.field == "elements[1]" and "communication step" in str(info.value)
