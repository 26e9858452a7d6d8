"""FhSim's own Cable and Math/LinearSystem SimObjects in XML (issue 44): read from FhSim's
Connection wiring into the scenario's cable and linear-system controller, written back in
that form, the same runs as the JSON; refusals name the file's line and attribute."""

from __future__ import annotations

import numpy as np
import pytest

from sixdof.headless import run_scenario
from sixdof.scenario import Scenario, ScenarioFileError, scenario_from_xml, scenario_to_xml
from sixdof.scenario.presets import PRESETS

BODIES = [
    {"Name": "Buoy", "Mass": 100.0, "InertiaRadi": [0.5, 0.5, 0.5]},
    {"Name": "Box", "Mass": 50.0, "InertiaRadi": [0.3, 0.3, 0.3], "CGOffset": [0.0, 0.0, 0.1],
     "Pos": [5.0, 0.0, 3.0]},
]  # fmt: skip
CABLE = (
    '<Lib LibName="fhsim_cable" SimObject="Cable" Name="L" cableLength="12" numElements="4" '
    'diameter="0.02" E-modulus="2e10" cableWeight="1.5"'
)
LINEAR = '<Lib LibName="fhsim_base" SimObject="Math/LinearSystem" Name="Ctrl"'


def lines_xml(lib: str, wires: str, engine: str = 'stepsize="0.001" TOutput="0:0.01:0.3"') -> str:
    """Bodies Buoy (lines 3) and Box (4), `lib` on line 5, the Connection on line 8."""
    return (
        '<Contents Name="lines">\n'
        "  <OBJECTS>\n"
        '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Buoy" Mass="100" '
        'InertiaRadi="0.5,0.5,0.5" Coriolis="1"/>\n'
        '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Box" Mass="50" '
        'InertiaRadi="0.3,0.3,0.3" CGOffset="0,0,0.1" Coriolis="1"/>\n'
        f"    {lib}/>\n"
        "  </OBJECTS>\n"
        "  <INTERCONNECTIONS>\n"
        f"    <Connection {wires}/>\n"
        "  </INTERCONNECTIONS>\n"
        '  <INITIALIZATION><InitialCondition Box.Pos="5,0,3"/></INITIALIZATION>\n'
        f'  <INTEGRATION><Engine IntegratorMethod="1" {engine}/></INTEGRATION>\n'
        "</Contents>\n"
    )


def json_scenario(element: dict) -> Scenario:
    return Scenario.model_validate(
        {
            "name": "lines",
            "bodies": BODIES,
            "elements": [element],
            "integration": {"method": "rk4", "stepsize": 0.001, "TOutput": "0:0.01:0.3"},
        }
    )


def assert_same_run(a: Scenario, b: Scenario, t_end: float | None = None) -> float:
    """The two runs' states agree to 1e-12; returns the largest difference."""
    ra, rb = run_scenario(a, t_end=t_end), run_scenario(b, t_end=t_end)
    np.testing.assert_array_equal(ra.times, rb.times)
    diff = float(np.max(np.abs(ra.states - rb.states)))
    assert diff <= 1e-12
    return diff


AT_A = 'L.PositionA="Buoy.Pos" L.VelocityA="Buoy.Vel" Buoy.Force="L.ForceA" Buoy.Moment="L.MomentA"'
AT_B = 'L.PositionB="Buoy.Pos" L.VelocityB="Buoy.Vel" Buoy.Force="L.ForceB" Buoy.Moment="L.MomentB"'
BOX_B = 'L.PositionB="Box.Pos" L.VelocityB="Box.Vel" Box.Force="L.ForceB" Box.Moment="L.MomentB"'
COMMON = {"kind": "cable", "length": 12.0, "segments": 4, "diameter": 0.02, "e_modulus": 2e10,
          "mass_per_length": 1.5}  # fmt: skip

#: (Lib attributes, wires, the JSON cable they are)
CABLES = [
    (  # body - world
        'PointA="0,0,0.5"',
        f'{AT_A} L.PositionB="0,0,10"',
        {"body": "Buoy", "point": [0, 0, 0.5], "to": [0, 0, 10]},
    ),
    (  # world - body: the ends swap, and so do the speeds
        'PointB="0,0,0.5"',
        f'L.PositionA="0,0,10" L.VelocityA="0,0,0" {AT_B} L.RetractedSpeedA="0.1" '
        'L.RetractedSpeedB="-0.2"',
        {"body": "Buoy", "point": [0, 0, 0.5], "to": [0, 0, 10], "pay_out_speed": 0.2,
         "pay_out_speed_b": -0.1},
    ),
    (  # body - body, lengths retracted at both winches, a speed hauling A in
        'PointA="0.1,0,0" PointB="0,0,-0.2"',
        f'{AT_A} {BOX_B} L.RetractedLengthA="2" L.RetractedLengthB="0.5" '
        'L.RetractedSpeedA="0.25"',
        {"body": "Buoy", "point": [0.1, 0, 0], "to": {"body": "Box", "point": [0, 0, -0.2]},
         "length": 9.5, "pay_out_speed": -0.25},
    ),
]  # fmt: skip


@pytest.mark.parametrize("lib, wires, cable", CABLES)
def test_a_cable_read_from_fhsim_wiring_is_the_json_cable(
    lib: str, wires: str, cable: dict
) -> None:
    read = scenario_from_xml(lines_xml(f"{CABLE} {lib}", wires))
    expected = json_scenario({**COMMON, **cable})
    assert read == expected
    assert_same_run(read, expected)
    again = scenario_from_xml(scenario_to_xml(read))
    assert again == expected
    assert scenario_to_xml(again) == scenario_to_xml(read)


def test_retracted_speed_hauls_in_and_retracted_length_shortens() -> None:
    """FhSim's RetractedSpeedA > 0 hauls the line in: the model's pay-out speed is −0.25 and
    the body hanging below a fixed point rises."""
    base = f'{AT_B} L.PositionA="0,0,0"'
    still = scenario_from_xml(lines_xml(f'{CABLE} PointB="0,0,0"', base))
    hauled = scenario_from_xml(
        lines_xml(f'{CABLE} PointB="0,0,0"', f'{base} L.RetractedSpeedA="0.25"')
    )
    (cable,) = hauled.elements
    assert cable.kind == "cable" and cable.pay_out_speed_b == -0.25  # type: ignore[union-attr]
    assert cable.body == "Buoy" and cable.to == (0.0, 0.0, 0.0)  # type: ignore[union-attr]
    assert 'L1.RetractedSpeedB="0.25"' in scenario_to_xml(hauled).replace("Cable1", "L1")
    shorter = scenario_from_xml(lines_xml(CABLE, f'{base} L.RetractedLengthB="3"'))
    assert shorter.elements[0].length == 9.0  # type: ignore[union-attr]
    for s in (still, hauled):  # hang the buoy at the line's length below the anchor
        s.bodies[0].Pos = (0.0, 0.0, 12.02)
    z_still = run_scenario(still, t_end=0.3).states[-1, 0, 2]
    z_hauled = run_scenario(hauled, t_end=0.3).states[-1, 0, 2]
    assert z_hauled < z_still - 1e-3  # NED: up is −z


@pytest.mark.parametrize("name", ["moored_buoy", "crane_lowering"])
def test_line_presets_round_trip_in_fhsim_form(name: str) -> None:
    scenario = PRESETS[name].scenario()
    text = scenario_to_xml(scenario)
    assert 'SimObject="Cable"' in text and "Element/Cable" not in text
    assert 'LibName="fhsim_cable"' in text
    again = scenario_from_xml(text)
    assert again == scenario
    assert scenario_to_xml(again) == text


def test_crane_lowering_pays_out_as_fhsim_retracts_negatively() -> None:
    text = scenario_to_xml(PRESETS["crane_lowering"].scenario())  # pay_out_speed 0.25
    assert 'Cable1.RetractedSpeedA="-0.25"' in text
    assert 'Cable1.PositionB="Load.Pos"' in text and 'Load.Force="Cable1.ForceB"' in text


def test_cart_pole_lqr_round_trips_padded_with_the_same_run() -> None:
    scenario = PRESETS["cart_pole"].scenario()
    text = scenario_to_xml(scenario)
    assert 'SimObject="Math/LinearSystem"' in text and "Element/Controller" not in text
    assert 'Controller1.In="Pole.Pos.x,Pole.Pitch,Pole.Vel.x,Pole.AngVel.y"' in text
    assert 'Pole.Force="Controller1.Out" Pole.Moment="Controller1.Out"' in text
    again = scenario_from_xml(text)
    assert again.model_dump(exclude={"elements"}) == scenario.model_dump(exclude={"elements"})
    assert again.elements[:-1] == scenario.elements[:-1]  # the joints; the controller is last
    (ctrl,) = [e for e in again.elements if e.kind == "controller"]
    assert ctrl.outputs == ["Force.x", "Force.y", "Force.z", "Moment.x", "Moment.y", "Moment.z"]  # type: ignore[union-attr]
    assert len(ctrl.D) == 6 and ctrl.D[1] == [0.0] * 4  # type: ignore[union-attr]
    assert scenario_to_xml(again) == text
    assert scenario_from_xml(scenario_to_xml(again)) == again
    assert_same_run(scenario, again, t_end=2.0)


@pytest.mark.parametrize(
    "outputs, rows, moment",
    [
        (["Force.x"], 3, False),
        (["Moment.y"], 3, True),
        (["Moment.y", "Force.x", "Force.x"], 6, True),  # out of order, one channel twice
    ],
)
def test_padding_a_subset_of_outputs_keeps_the_dynamics(
    outputs: list[str], rows: int, moment: bool
) -> None:
    ctrl = {
        "kind": "controller", "body": "Buoy", "type": "linear_system",
        "A": [[-1.0]], "B": [[1.0, 0.0]], "C": [[2.0]] * len(outputs),
        "D": [[-30.0 + k, -20.0 - k] for k in range(len(outputs))],
        "inputs": ["Pos.x", "Vel.x"], "outputs": outputs, "reference": [0.5, 0.0],
    }  # fmt: skip
    scenario = json_scenario(ctrl)
    scenario.bodies[0].Pos = (1.0, 0.0, 0.0)
    scenario.bodies[0].AngVel = (0.0, 0.3, 0.0)
    text = scenario_to_xml(scenario)
    again = scenario_from_xml(text)
    (read,) = again.elements
    assert len(read.C) == rows and len(read.D) == rows  # type: ignore[union-attr]
    assert ('Buoy.Moment="Controller1.Out"' in text) == moment
    assert scenario_to_xml(again) == text
    diff = assert_same_run(scenario, again)
    assert diff <= 1e-12


LINEAR_SYSTEM = (
    f'{LINEAR} A="0,1;-0.5,-2" B="0,0,0,0;1,0,0,0" C="1,0;0,0;0,0" '
    'D="-40,0,0,-25;0,-40,0,0;0,0,0,0" X0="0.1,0" Reference="1,0,0,0"'
)


def test_a_linear_system_wired_to_a_body_is_the_json_controller() -> None:
    """In names the whole Pos and one component of Vel; Out drives the Force (3 rows)."""
    read = scenario_from_xml(
        lines_xml(LINEAR_SYSTEM, 'Ctrl.In="Buoy.Pos, Buoy.Vel.x" Buoy.Force="Ctrl.Out"')
    )
    expected = json_scenario({
        "kind": "controller", "body": "Buoy", "type": "linear_system",
        "A": [[0, 1], [-0.5, -2]], "B": [[0, 0, 0, 0], [1, 0, 0, 0]],
        "C": [[1, 0], [0, 0], [0, 0]], "D": [[-40, 0, 0, -25], [0, -40, 0, 0], [0, 0, 0, 0]],
        "inputs": ["Pos.x", "Pos.y", "Pos.z", "Vel.x"],
        "outputs": ["Force.x", "Force.y", "Force.z"],
        "x0": [0.1, 0], "reference": [1, 0, 0, 0],
    })  # fmt: skip
    assert read == expected
    r = run_scenario(read)
    assert abs(r.states[-1, 0, 0]) > 1e-3  # the controller moves the buoy towards x = 1
    assert_same_run(read, expected)
    text = scenario_to_xml(read)
    assert scenario_from_xml(text) == read and scenario_to_xml(scenario_from_xml(text)) == text


def test_old_element_forms_are_still_read() -> None:
    old = lines_xml(
        '<Lib LibName="sixdof" SimObject="Element/Cable" Name="L" cableLength="12" '
        'numElements="4" diameter="0.02" E-modulus="2e10" cableWeight="1.5" Point="0,0,0.5" '
        'To="0,0,10"',
        'Buoy.Force="L.Force" Buoy.Moment="L.Moment"',
    )
    assert scenario_from_xml(old) == scenario_from_xml(lines_xml(f"{CABLE} {CABLES[0][0]}",
                                                                 CABLES[0][1]))  # fmt: skip
    ctrl = lines_xml(
        '<Lib LibName="sixdof" SimObject="Element/Controller" Name="C" Type="linear_system" '
        'A="-1" B="1" C="2" D="-3" Inputs="Pos.x" Outputs="Force.x"',
        'Buoy.Force="C.Force" Buoy.Moment="C.Moment"',
    )
    (e,) = scenario_from_xml(ctrl).elements
    assert e.type == "linear_system" and e.outputs == ["Force.x"]  # type: ignore[union-attr]


def test_moment_may_be_left_out_at_the_cg_only() -> None:
    at_cg = 'L.PositionA="Box.Pos" Box.Force="L.ForceA" L.PositionB="0,0,0"'
    (e,) = scenario_from_xml(lines_xml(f'{CABLE} PointA="0,0,0.1"', at_cg)).elements
    assert e.body == "Box" and e.point == (0.0, 0.0, 0.1)  # type: ignore[union-attr]
    err = _error(lines_xml(f'{CABLE} PointA="0,0,0"', at_cg))
    assert (err.line, err.attribute) == (8, "Box.Force") and "L.MomentA is not wired" in err.reason


def _error(text: str) -> ScenarioFileError:
    with pytest.raises(ScenarioFileError) as info:
        scenario_from_xml(text, "bad.xml")
    return info.value


FIXED_B = 'L.PositionB="0,0,10"'
OUT = 'Buoy.Force="Ctrl.Out"'
#: (Lib on line 5, the Connection on line 8, line, attribute, words of the reason)
BAD = [
    (CABLE, f'{AT_A.replace("Buoy.Vel", "Box.Vel")} {FIXED_B}', 8, "L.VelocityA",
     "expected Buoy.Vel, the velocity of the body L.PositionA names"),
    (CABLE, f'{AT_A} {FIXED_B} L.VelocityB="1,0,0"', 8, "L.VelocityB",
     "end B is fixed at a world point (L.PositionB); its velocity is 0,0,0"),
    (CABLE, f'{AT_A} {FIXED_B} L.VelocityB="Box.Vel"', 8, "L.VelocityB", "its velocity is 0,0,0"),
    (CABLE, f'{AT_A} {FIXED_B} L.RetractedLengthA="10" L.RetractedLengthB="2"', 8,
     "L.RetractedLengthB", "cableLength − RetractedLengthA − RetractedLengthB must be > 0"),
    (CABLE, f'{AT_A} {FIXED_B} L.RetractedSpeedA="Winch.Speed"', 8, "L.RetractedSpeedA",
     "sixdof takes constant numbers here"),
    (CABLE, f'{AT_A} {FIXED_B} L.RetractedLengthB="Winch.Out"', 8, "L.RetractedLengthB",
     "sixdof takes constant numbers here"),
    (CABLE, f'{AT_A} {FIXED_B} L.RetractedSpeedA="1,2"', 8, "L.RetractedSpeedA",
     "expected a number"),
    (f'{CABLE} PointA="0,0,0.5"', f'L.PositionA="Buoy.Pos" Buoy.Force="L.ForceA" {FIXED_B}', 8,
     "Buoy.Force", "L.MomentA is not wired: end A's point 0,0,0.5 is not 'Buoy''s CG"),
    (CABLE, f'L.PositionA="Buoy.Pos" Box.Force="L.ForceA" Box.Moment="L.MomentA" {FIXED_B}', 8,
     "Box.Force", "L.ForceA drives 'Box' but L.PositionA names 'Buoy'"),
    (CABLE, f'L.PositionA="Buoy.Pos" Buoy.Force="L.ForceA" Box.Moment="L.MomentA" {FIXED_B}', 8,
     "Box.Moment", "L.MomentA drives 'Box' but L.PositionA names 'Buoy'"),
    (CABLE, f'L.PositionA="Buoy.Pos" {FIXED_B}', 8, "L.PositionA", "L.ForceA is not wired"),
    (CABLE, f'L.PositionA="0,0,0" {FIXED_B}', 8, "L.PositionB", "both ends of 'L' are world"),
    (CABLE, f'{AT_A} L.PositionB="Buoy.Pos"', 8, "L.PositionB", "both ends of 'L' are on 'Buoy'"),
    (CABLE, f'{AT_A} L.PositionB="Buoy.Vel"', 8, "L.PositionB", "expected a body's output Pos"),
    (CABLE, f'{AT_A} L.PositionB="0,0"', 8, "L.PositionB", "expected 3 comma-separated numbers"),
    (CABLE, AT_A, 5, None, "L.PositionB is not wired"),
    (CABLE, f'{AT_A} {FIXED_B} L.Tension="1"', 8, "L.Tension",
     "'Tension' is not an input of Cable 'L'"),
    (CABLE, f'{AT_A} {FIXED_B} Box.Force="L.ForceB"', 8, "Box.Force",
     "L.ForceB drives 'Box', but end B is fixed at a world point"),
    (CABLE, f'L.PositionA="Buoy.Pos" Buoy.Force="L.Force" {FIXED_B}', 8, "Buoy.Force",
     "'Force' is not an output port of Cable 'L'; expected one of ForceA, MomentA"),
    (f'{CABLE} PointB="0,0,1"', f"{AT_A} {FIXED_B}", 5, "PointB",
     "a point on end B's body, but L.PositionB is a world point"),
    (CABLE.replace('cableLength="12"', 'cableLength="-1"'), f"{AT_A} {FIXED_B}", 5,
     "cableLength", "must be in [0, 1000] m, got -1"),
    (f"{CABLE} AxialStiffness=\"1e6\"", f"{AT_A} {FIXED_B}", 5, "AxialStiffness",
     "give EA (axial_stiffness, N) or e_modulus (Pa), one of them"),
    (LINEAR_SYSTEM, f'Ctrl.In="Buoy.Pos.x, Box.Pos" {OUT}', 8, "Ctrl.In",
     "'Box.Pos' reads 'Box' but Ctrl.Out drives 'Buoy'"),
    (LINEAR_SYSTEM, f'Ctrl.In="Box.Pos, Box.Vel.x" {OUT}', 8, "Ctrl.In",
     "a linear system reads the body it acts on"),
    (LINEAR_SYSTEM, f'Ctrl.In="Buoy.Speed" {OUT}', 8, "Ctrl.In",
     "'Speed' is not an output sixdof reads"),
    (LINEAR_SYSTEM, f'Ctrl.In="Pos.x" {OUT}', 8, "Ctrl.In", "expected a body's output"),
    (LINEAR_SYSTEM, f'Ctrl.In="Buoy.Pos, Buoy.Vel.x" {OUT} Buoy.Moment="Ctrl.Out"', 5, "C",
     "3 rows, but Ctrl.Out drives Buoy.Force and Buoy.Moment: expected 6 rows"),
    (LINEAR_SYSTEM.replace('D="-40,0,0,-25;0,-40,0,0;0,0,0,0"', 'D="-40,0,0,-25"'),
     'Ctrl.In="Buoy.Pos, Buoy.Vel.x" Buoy.Moment="Ctrl.Out"', 5, "D",
     "1 row, but Ctrl.Out drives Buoy.Moment: expected 3 rows (Moment.x, Moment.y, Moment.z)"),
    (LINEAR_SYSTEM.replace('C="1,0;0,0;0,0"', 'C="1,0;0,0;0,0;0,0;0,0;0,0"'),
     f'Ctrl.In="Buoy.Pos, Buoy.Vel.x" {OUT}', 5, "C", "6 rows, but Ctrl.Out drives Buoy.Force"),
    (LINEAR_SYSTEM, f'Ctrl.In="Buoy.Pos" {OUT}', 5, "B",
     "expected 2×3 (2 states, 3 inputs, 3 outputs), got 2×4/4"),
    (LINEAR_SYSTEM, 'Ctrl.In="Buoy.Pos, Buoy.Vel.x"', 5, None, "not connected"),
    (LINEAR_SYSTEM, f'Ctrl.In="Buoy.Pos, Buoy.Vel.x" {OUT} Box.Moment="Ctrl.Out"', 8,
     "Box.Moment", "acts on one body"),
    (LINEAR_SYSTEM, 'Ctrl.In="Buoy.Pos, Buoy.Vel.x" Buoy.Force="Ctrl.Output"', 8, "Buoy.Force",
     "'Output' is not an output port of Math/LinearSystem 'Ctrl'; expected one of Out"),
    (LINEAR_SYSTEM, f'Ctrl.Out="Buoy.Pos" {OUT}', 8, "Ctrl.Out",
     "'Out' is not an input of Math/LinearSystem 'Ctrl'"),
]  # fmt: skip


@pytest.mark.parametrize("lib, wires, line, attribute, reason", BAD)
def test_refusals_name_the_attribute(
    lib: str, wires: str, line: int, attribute: str | None, reason: str
) -> None:
    err = _error(lines_xml(lib, wires))
    assert (err.line, err.attribute) == (line, attribute), str(err)
    assert reason in err.reason, str(err)
    assert str(err).startswith(f"bad.xml:{line}: ")


def test_the_documentation_example_reads() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "fhsim.md").read_text(encoding="utf-8")
    section = doc.split("### FhSim's Cable and Math/LinearSystem")[1]
    block = section.split("```xml\n")[1].split("```")[0]
    libs, wires = block.split("…\n")
    text = (
        "<Contents><OBJECTS>"
        '<Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Buoy" Mass="400" '
        'InertiaRadi="0.4,0.4,0.35" Coriolis="1"/>'
        '<Lib LibName="sixdof" SimObject="Environment/Water" Name="Sea"/>'
        f"{libs}</OBJECTS><INTERCONNECTIONS>{wires}</INTERCONNECTIONS>"
        '<INTEGRATION><Engine IntegratorMethod="1" stepsize="0.001"/></INTEGRATION></Contents>'
    )
    cable, ctrl = scenario_from_xml(text).elements
    assert (cable.kind, cable.body, cable.to) == ("cable", "Buoy", (-20.0, 0.0, 10.0))  # type: ignore[union-attr]
    assert ctrl.inputs == ["Pos.x", "Vel.x"] and len(ctrl.D) == 3  # type: ignore[union-attr]
    errors = ("sixdof" + section.split("```\nsixdof")[1].split("```")[0]).splitlines()
    for line in errors:  # each one, as the case of BAD that gives it says it
        assert line.startswith("sixdof: error: m.xml:")
        head, reason = line.split(": ", 3)[3].split(": ", 1)
        attribute = head.rsplit(" ", 1)[1]  # after the element, '<Connection>'
        lib, wires, _, _, _ = next(b for b in BAD if b[3] == attribute and b[4] in reason)
        err = _error(lines_xml(lib, wires))
        assert (err.attribute, err.reason) == (attribute, reason)


@pytest.mark.parametrize("name", ["moored_buoy", "cart_pole"])
def test_the_examples_in_fhsim_s_form_run_as_their_presets(name: str) -> None:
    """examples/moored_buoy.xml (three Cable SimObjects) and examples/cart_pole.xml (an LQR
    as a Math/LinearSystem) are read from disk, as `sixdof run` reads them, and run 2 s as
    the presets they were written from (equal states: the same physics, nothing lost)."""
    from pathlib import Path

    from sixdof.scenario import load_scenario_file

    path = Path(__file__).resolve().parents[2] / "examples" / f"{name}.xml"
    text = path.read_text()
    assert 'SimObject="Cable"' in text or 'SimObject="Math/LinearSystem"' in text
    from_file = run_scenario(load_scenario_file(path), t_end=2.0)
    preset = run_scenario(Scenario.model_validate(PRESETS[name].scenario()), t_end=2.0)
    assert np.array_equal(from_file.times, preset.times)
    assert np.abs(from_file.states - preset.states).max() < 1e-12
    assert np.ptp(preset.states[:, 0, 0:3], axis=0).max() > 1e-3  # it moved: a run to compare
