"""FhSim XML input files: reading, errors located by file/line/element/attribute, writing back."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sixdof.dynamics import ImpossibleInertiaWarning
from sixdof.scenario import (
    BodySpec,
    Integration,
    Scenario,
    ScenarioFileError,
    ScenarioFileWarning,
    load_scenario_file,
    read_fhsim_xml,
    save_scenario_file,
    scenario_from_json,
    scenario_from_xml,
    scenario_to_xml,
)
from sixdof.scenario.presets import PRESETS

ISSUE_EXAMPLE = (  # the issue's example, verbatim
    "<Contents>\n"
    "  <OBJECTS>\n"
    '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="B" Mass="2"'
    ' InertiaRadi="0.5,0.7,0.9"\n'
    '         Material="Simple/Red" Mesh="fhSphere.mesh" MeshScale="1,1,1"'
    ' MeshOrigin="0,0,0" Size="1,1,1"/>\n'
    "  </OBJECTS>\n"
    "  <INTERCONNECTIONS>\n"
    '    <Connection B.Force="3,-2,-20" B.Moment="0.5,-0.3,0.2"/>\n'
    "  </INTERCONNECTIONS>\n"
    "  <INITIALIZATION>\n"
    '    <InitialCondition B.Pos="0,0,0" B.Quater="1,0,0,0" B.LocalVel="0,0,0"'
    ' B.AngVel="0,0,0"/>\n'
    "  </INITIALIZATION>\n"
    "  <INTEGRATION>\n"
    '    <Engine IntegratorMethod="2" stepsize="0.001" HMax="0.01" HMin="1e-8"'
    ' AbsTol="1e-9" RelTol="1e-9" TOutput="0, 0:0.01:10"/>\n'
    "  </INTEGRATION>\n"
    "</Contents>\n"
)


def body_xml(lib: str = "", connection: str = "", initial: str = "", engine: str = "") -> str:
    """A file with one Lib whose attributes are one per line: line 3 is the <Lib line,
    line 4 SimObject, 5 Name, 6 Mass, 7 InertiaRadi, 8 the extra `lib` attributes."""
    return (
        "<Contents>\n"
        "  <OBJECTS>\n"
        '    <Lib LibName="fhsim_base"\n'
        '         SimObject="Body/6DBody"\n'
        '         Name="B"\n'
        '         Mass="2"\n'
        '         InertiaRadi="0.5,0.6,0.7"\n'
        f"         {lib}/>\n"
        "  </OBJECTS>\n"  # line 9
        f"  <INTERCONNECTIONS><Connection {connection}/></INTERCONNECTIONS>\n"  # line 10
        f"  <INITIALIZATION><InitialCondition {initial}/></INITIALIZATION>\n"  # line 11
        f"  <INTEGRATION><Engine {engine}/></INTEGRATION>\n"  # line 12
        "</Contents>\n"
    )


def test_reads_the_issue_example(tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(ISSUE_EXAMPLE)
    with pytest.warns(
        ImpossibleInertiaWarning, match=r"model\.xml:3: <Lib Name=\"B\"> InertiaRadi"
    ):
        scenario = read_fhsim_xml(path)
    (b,) = scenario.bodies
    assert scenario.name == "model"
    assert (b.Name, b.Mass, b.InertiaRadi, b.model) == ("B", 2.0, (0.5, 0.7, 0.9), "fhsim")
    assert (b.Material, b.Mesh, b.Size) == ("Simple/Red", "fhSphere.mesh", (1.0, 1.0, 1.0))
    assert b.Force == (3.0, -2.0, -20.0) and b.Moment == (0.5, -0.3, 0.2)
    assert b.Gravity == 9.81 and b.CGOffset == (0.0, 0.0, 0.0) and b.Inertia is None
    integ = scenario.integration
    assert (integ.method, integ.stepsize, integ.HMax, integ.HMin) == ("dopri5", 0.001, 0.01, 1e-8)
    assert (integ.AbsTol, integ.RelTol) == (1e-9, 1e-9)
    times = integ.output_times()
    assert times.size == 1001 and times[0] == 0.0 and times[-1] == 10.0 and times[3] == 0.03


def test_defaults_rest_at_origin_and_our_extensions() -> None:
    text = body_xml(
        lib='Coriolis="1" Inertia="0.3,0.4,0.5,0.01,-0.02,0.03" CGOffset="0.1,0,-0.2" '
        'Gravity="1.62"',
        engine='IntegratorMethod="3" TOutput="0:0.5:2"',
    )
    b = scenario_from_xml(text).bodies[0]
    assert b.model == "full" and b.Gravity == 1.62 and b.CGOffset == (0.1, 0.0, -0.2)
    assert b.Inertia == (0.3, 0.4, 0.5, 0.01, -0.02, 0.03)
    np.testing.assert_array_equal(
        b.params().inertia_cg, [[0.3, 0.01, -0.02], [0.01, 0.4, 0.03], [-0.02, 0.03, 0.5]]
    )
    assert (b.Pos, b.Quater, b.LocalVel, b.AngVel) == (
        (0, 0, 0),
        (1, 0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
    )
    assert b.Force == (0, 0, 0) and b.Moment == (0, 0, 0)
    assert scenario_from_xml(body_xml(lib='Coriolis="0"')).bodies[0].model == "fhsim"


@pytest.mark.parametrize("number, method", [(0, "euler"), (1, "rk4"), (2, "dopri5"), (3, "radau")])
def test_integrator_method_numbers(number: int, method: str) -> None:
    text = body_xml(engine=f'IntegratorMethod="{number}" stepsize="0.002"')
    assert scenario_from_xml(text).integration.method == method


def test_several_bodies_with_their_own_inputs_and_states() -> None:
    text = textwrap.dedent("""\
        <Contents>
          <OBJECTS>
            <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="A" Mass="1"
                 InertiaRadi="1,1,1"/>
            <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Bee" Mass="3"
                 InertiaRadi="1,2,2" Coriolis="1"/>
          </OBJECTS>
          <INTERCONNECTIONS>
            <Connection A.Force="1,2,3"/>
            <Connection Bee.Moment="0,0,4" Bee.Force="0,0,-29.43"/>
          </INTERCONNECTIONS>
          <INITIALIZATION>
            <InitialCondition Bee.AngVel="0,0,1" A.Pos="5,6,7"/>
          </INITIALIZATION>
        </Contents>""")
    a, bee = scenario_from_xml(text).bodies
    assert (a.Name, a.Mass, a.Force, a.Moment, a.Pos, a.model) == (
        "A",
        1.0,
        (1, 2, 3),
        (0, 0, 0),
        (5, 6, 7),
        "fhsim",
    )
    assert (bee.Name, bee.Mass, bee.Force, bee.Moment, bee.AngVel, bee.model) == (
        "Bee",
        3.0,
        (0, 0, -29.43),
        (0, 0, 4),
        (0, 0, 1),
        "full",
    )


def _odd_scenario() -> Scenario:
    q = np.array([0.3, -0.5, 0.7, 0.1])
    return Scenario(
        name="odd one",
        caption='Quotes " and <tags> & ampersands,\nnewlines\tand tabs: all survive.',
        bodies=[
            BodySpec(
                Name="A",
                Mass=0.1 + 0.2,
                Inertia=(0.3, 0.4, 0.5, 0.01, -0.02, 0.03),
                CGOffset=(1 / 3, 0.0, -2e-7),
                Gravity=-1.5,
                model="fhsim",
                Material="#ff8800",
                Mesh="ship",
                MeshScale=(2, 2, 2),
                MeshOrigin=(0.1, 0, 0),
                Size=(1, 0.2, 0.3),
                Force=(1e-300, -0.0, 7),
                Moment=(0.1, 0.2, 0.3),
                Pos=(1, 2, 3),
                Quater=tuple(q / np.linalg.norm(q)),
                LocalVel=(0.5, 0, 0),
                AngVel=(0.01, 0.02, 0.03),
            ),
            BodySpec(Name="b_2", InertiaRadi=(0.1, 0.2, 0.2)),
        ],
        integration=Integration(method="euler", stepsize=0.0007, TOutput="0.5, 1:0.25:3, 7"),
    )


#: cart_pole's LQR drives Force.x and Moment.y: written as FhSim's Math/LinearSystem with
#: zero rows for the other channels, it reads back with six outputs and the same run
#: (tests/unit/test_fhsim_lines_xml.py)
EXACT = [p.scenario for name, p in PRESETS.items() if name != "cart_pole"]


@pytest.mark.parametrize("make", [_odd_scenario, *EXACT])
def test_xml_round_trip_is_exact(make) -> None:
    scenario = make()
    text = scenario_to_xml(scenario)
    again = scenario_from_xml(text)
    assert again == scenario
    assert scenario_to_xml(again) == text
    assert scenario_from_xml(scenario_to_xml(again)) == again


def test_save_and_load_files_round_trip(tmp_path: Path) -> None:
    scenario = _odd_scenario()
    for name in ("s.xml", "s.json", "UPPER.XML"):
        save_scenario_file(scenario, tmp_path / name)
        assert load_scenario_file(tmp_path / name) == scenario
    assert json.loads((tmp_path / "s.json").read_text())["bodies"][0]["Name"] == "A"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["UPPER.XML", "s.json", "s.xml"]


def _error(text: str, name: str = "bad.xml") -> ScenarioFileError:
    with pytest.raises(ScenarioFileError) as info:
        scenario_from_xml(text, name)
    return info.value


#: (file text, line, element, attribute, words the reason must contain)
BAD_FILES = [
    ("this is not XML", 1, None, None, "not a well-formed XML file"),
    ("<Contents>\n<OBJECTS>\n</Contents>", 3, None, None, "mismatched tag"),
    ("<Model>\n</Model>", 1, "<Model>", None, "root element <Contents>"),
    (
        body_xml().replace("Body/6DBody", "Body/Cable"),
        4,
        '<Lib Name="B">',
        "SimObject",
        "unknown SimObject 'Body/Cable'",
    ),
    (body_xml().replace('Mass="2"', 'Weight="2"'), 3, '<Lib Name="B">', "Mass", "missing"),
    (body_xml().replace('Name="B"', 'Title="B"'), 3, "<Lib>", "Name", "missing"),
    (
        body_xml().replace('InertiaRadi="0.5,0.6,0.7"', ""),
        3,
        '<Lib Name="B">',
        "InertiaRadi",
        "missing",
    ),
    (
        body_xml().replace("0.5,0.6,0.7", "0.5,0.6"),
        7,
        '<Lib Name="B">',
        "InertiaRadi",
        "expected 3 comma-separated numbers, got 2 values",
    ),
    (
        body_xml(lib='Inertia="1,1,1"'),
        8,
        '<Lib Name="B">',
        "Inertia",
        "expected 6 comma-separated numbers",
    ),
    (body_xml(lib='MeshScale="1,1,1,1"'), 8, '<Lib Name="B">', "MeshScale", "expected 3"),
    (
        body_xml().replace("0.5,0.6,0.7", "0.5,nan,0.7"),
        7,
        '<Lib Name="B">',
        "InertiaRadi",
        "'nan' is not a finite number",
    ),
    (body_xml(lib='Gravity="inf"'), 8, '<Lib Name="B">', "Gravity", "not a finite number"),
    (body_xml(lib='Gravity="9,81"'), 8, '<Lib Name="B">', "Gravity", "expected a number"),
    (body_xml(lib='CGOffset="0,x,0"'), 8, '<Lib Name="B">', "CGOffset", "'x' is not a number"),
    (body_xml().replace('Mass="2"', 'Mass="0"'), 6, '<Lib Name="B">', "Mass", "> 0 kg"),
    (body_xml().replace('Mass="2"', 'Mass="-1.5"'), 6, '<Lib Name="B">', "Mass", "> 0 kg"),
    (
        body_xml().replace("0.5,0.6,0.7", "0.5,0,0.7"),
        7,
        '<Lib Name="B">',
        "InertiaRadi",
        "must be in [0.0001, 1000] m",
    ),
    (body_xml(lib='Inertia="1,1,1,2,0,0"'), 8, '<Lib Name="B">', "Inertia", "positive definite"),
    (body_xml(lib='Gravity="200"'), 8, '<Lib Name="B">', "Gravity", "in [-100, 100] m/s²"),
    (body_xml(lib='Coriolis="yes"'), 8, '<Lib Name="B">', "Coriolis", "expected 0"),
    (body_xml().replace('Name="B"', 'Name="B.1"'), 5, "<Lib", "Name", "not a body name"),
    (body_xml(connection='C.Force="1,2,3"'), 10, "<Connection>", "C.Force", "unknown body 'C'"),
    (body_xml(connection='B.Torque="1,2,3"'), 10, "<Connection>", "B.Torque", "not an input port"),
    (body_xml(connection='B.Pos="1,2,3"'), 10, "<Connection>", "B.Pos", "not an input port"),
    (body_xml(connection='Force="1,2,3"'), 10, "<Connection>", "Force", "Body.Port"),
    (
        body_xml(connection='B.Force="Other.Force"'),
        10,
        "<Connection>",
        "B.Force",
        "'Other' is not an element; a body's Force takes an element's output",
    ),
    (
        body_xml(initial='B.Pos="Other.Pos"'),
        11,
        "<InitialCondition>",
        "B.Pos",
        "'Other.Pos' is a port; only a body's Force and Moment in a <Connection>",
    ),
    (body_xml(connection='B.Moment="1,2"'), 10, "<Connection>", "B.Moment", "expected 3"),
    (body_xml(connection='B.Force="1e7,0,2e7"'), 10, "<Connection>", "B.Force", "1e+07] N"),
    (body_xml(initial='Z.Pos="1,2,3"'), 11, "<InitialCondition>", "Z.Pos", "unknown body 'Z'"),
    (
        body_xml(initial='B.Quater="0,0,0,0"'),
        11,
        "<InitialCondition>",
        "B.Quater",
        "norm must be in [0.5, 2]",
    ),
    (  # overflow is refused, never normalised to zeros
        body_xml(initial='B.Quater="1,0,0,1e200"'),
        11,
        "<InitialCondition>",
        "B.Quater",
        "must be in [-2, 2]",
    ),
    (body_xml(initial='B.Quater="1,0,0"'), 11, "<InitialCondition>", "B.Quater", "expected 4"),
    (
        body_xml(initial='B.AngVel="0,1e999,0"'),
        11,
        "<InitialCondition>",
        "B.AngVel",
        "not a finite number",
    ),
    (body_xml(engine='TOutput="0:0:10"'), 12, "<Engine>", "TOutput", "needs step > 0"),
    (body_xml(engine='TOutput="0, ten"'), 12, "<Engine>", "TOutput", "'ten' is not a number"),
    (body_xml(engine='TOutput="0:1"'), 12, "<Engine>", "TOutput", "start:step:end"),
    (body_xml(engine='TOutput="-1, 2"'), 12, "<Engine>", "TOutput", "≥ 0"),
    (body_xml(engine='TOutput=""'), 12, "<Engine>", "TOutput", "got nothing"),
    (
        body_xml(engine='IntegratorMethod="1" stepsize="0.05"'),
        12,
        "<Engine>",
        "stepsize",
        "beyond the stability limit of rk4",
    ),
    (
        body_xml(engine='IntegratorMethod="0" stepsize="0.025"'),
        12,
        "<Engine>",
        "stepsize",
        "h must be below 0.02 s",
    ),
    (
        body_xml(engine='IntegratorMethod="7"'),
        12,
        "<Engine>",
        "IntegratorMethod",
        "expected one of 0 (euler), 1 (rk4), 2 (dopri5), 3 (radau)",
    ),
    (body_xml(engine='stepsize="-0.001"'), 12, "<Engine>", "stepsize", "greater than 0"),
    (body_xml(engine='HMin="0.1" HMax="0.01"'), 12, "<Engine>", "HMin", "must not exceed HMax"),
    ("<Contents>\n<OBJECTS/>\n</Contents>", 2, "<OBJECTS>", None, "no bodies"),
    ('<!DOCTYPE x [<!ENTITY a "b">]>\n<Contents/>', 1, None, None, "DOCTYPE"),
]


@pytest.mark.parametrize("text, line, element, attribute, reason", BAD_FILES)
def test_bad_files_are_located(
    text: str, line: int, element: str | None, attribute: str | None, reason: str
) -> None:
    err = _error(text)
    assert err.path == "bad.xml"
    assert err.line == line, str(err)
    if element is not None:
        assert err.element is not None and err.element.startswith(element), str(err)
    assert err.attribute == attribute, str(err)
    assert reason in err.reason, str(err)
    message = str(err)
    assert message.startswith(f"bad.xml:{line}: ")
    for part in (element, attribute, reason):
        assert part is None or part in message


def test_duplicate_names_and_ports_point_at_the_first() -> None:
    two = body_xml().replace(
        "</OBJECTS>",
        '<Lib SimObject="Body/6DBody" LibName="fhsim_base"'
        ' Name="B" Mass="1" InertiaRadi="1,1,1"/>\n  </OBJECTS>',
    )
    err = _error(two)
    assert (err.line, err.attribute) == (9, "Name") and "used by another <Lib>" in err.reason
    twice = body_xml(connection='B.Force="1,2,3"').replace(
        "</INTERCONNECTIONS>", '<Connection B.Force="1,2,3"/></INTERCONNECTIONS>'
    )
    err = _error(twice)
    assert (err.line, err.attribute) == (10, "B.Force") and "first on line 10" in err.reason
    engines = body_xml().replace("</INTEGRATION>", "<Engine/></INTEGRATION>")
    assert "only one <Engine>" in _error(engines).reason


def test_unknown_attributes_and_sections_warn_with_their_place() -> None:
    text = body_xml(lib='Colour="red"', engine='NumCores="4"').replace(
        "</Contents>", "<VARIABLES/>\n</Contents>"
    )
    with pytest.warns(ScenarioFileWarning) as record:
        scenario = scenario_from_xml(text, "w.xml")
    messages = [str(w.message) for w in record]
    assert any(m.startswith('w.xml:8: <Lib Name="B"> Colour: unknown attribute') for m in messages)
    assert any(m.startswith("w.xml:12: <Engine> NumCores: unknown attribute") for m in messages)
    assert any(m.startswith("w.xml:13: <VARIABLES>") for m in messages)
    assert len(messages) == 3
    assert scenario.bodies[0].Mass == 2.0  # the run goes on
    with pytest.warns(ScenarioFileWarning, match="LibName: expected 'fhsim_base' or 'base'"):
        scenario_from_xml(body_xml().replace('LibName="fhsim_base"', 'LibName="mylib"'))


def test_both_names_of_fhsim_base_library_are_read_without_a_warning() -> None:
    """Public FhSim input files name the base library `base` and `fhsim_base`."""
    import warnings

    for name in ("base", "fhsim_base"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            text = body_xml().replace('LibName="fhsim_base"', f'LibName="{name}"')
            assert scenario_from_xml(text).bodies[0].Mass == 2.0


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFileError, match=r"missing\.xml: cannot read the file"):
        load_scenario_file(tmp_path / "missing.xml")
    (tmp_path / "s.yaml").write_text("a: 1")
    with pytest.raises(ScenarioFileError, match=r"s\.yaml: unknown file type '\.yaml'"):
        load_scenario_file(tmp_path / "s.yaml")
    (tmp_path / "m.xml").write_bytes(b"\xff\xfe<\x00")
    with pytest.raises(ScenarioFileError, match=r"m\.xml:1: not a well-formed XML file"):
        load_scenario_file(tmp_path / "m.xml")


#: (JSON text, line, element, attribute, words of the reason)
BAD_JSON = [
    (
        '{"bodies": [\n  {"Name": "A"},\n  {"Name": "B",\n   "Mass": -2}\n]}',
        4,
        "bodies[1]",
        "Mass",
        "must be in [1e-06, 1e+06] kg, got -2",
    ),
    (
        '{"bodies": [{"Name": "A",\n "InertiaRadi": [1, 1,\n "x"]}]}',
        3,
        "bodies[0]",
        "InertiaRadi[2]",
        "must be a number",
    ),
    (
        '{"integration": {"method": "rk4",\n  "stepsize": 0.5}}',
        2,
        "integration",
        "stepsize",
        "stability limit",
    ),
    ('{"name": "x",\n "colour": 1}', 2, None, "colour", "unknown field"),
    ('{"bodies": [\n', 2, None, None, "not valid JSON"),
    ("[1, 2]", 1, None, None, "expected a JSON object"),
]


@pytest.mark.parametrize("text, line, element, attribute, reason", BAD_JSON)
def test_bad_json_is_located(
    text: str, line: int, element: str | None, attribute: str | None, reason: str
) -> None:
    with pytest.raises(ScenarioFileError) as info:
        scenario_from_json(text, "s.json")
    err = info.value
    assert (err.path, err.line, err.element, err.attribute) == ("s.json", line, element, attribute)
    assert reason in err.reason and str(err).startswith(f"s.json:{line}: ")


# -- elements: SimObjects of the library sixdof, wired by Connections ---------------------


def _world_scenario() -> Scenario:
    """Two bodies and every kind of element, each field away from its default."""
    return Scenario.model_validate(
        {
            "name": "world",
            "bodies": [
                {"Name": "A", "Mass": 2.0, "InertiaRadi": [0.3, 0.3, 0.3], "Pos": [0, 0, -1]},
                {
                    "Name": "Spring1",
                    "Mass": 1.5,
                    "InertiaRadi": [0.2, 0.2, 0.2],
                    "Pos": [1, 0, -1],
                },  # a body with an element's usual name
            ],
            "elements": [
                {"kind": "pivot", "body": "A", "point": [0, 0, -0.5], "at": [0.1, 0.2, -1.3]},
                {
                    "kind": "spring",
                    "body": "A",
                    "point": [0.1, 0, 0],
                    "to": [1, 2, -3],
                    "stiffness": 12.5,
                    "damping": 0.25,
                    "rest_length": 0.75,
                },
                {
                    "kind": "spring",
                    "body": "A",
                    "to": {"body": "Spring1", "point": [-0.1, 0, 0]},
                    "stiffness": 40,
                },
                {"kind": "spring", "body": "Spring1", "to": {"body": "A"}, "stiffness": 1 / 3},
                {
                    "kind": "damper",
                    "body": "Spring1",
                    "linear": [1, 2, 3, 4, 5, 6],
                    "quadratic": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                },
                {
                    "kind": "ground",
                    "body": "A",
                    "height": 0.5,
                    "restitution": 0.7,
                    "friction": 0.4,
                    "stiffness": 1e5,
                },
                {"kind": "ground", "body": "Spring1"},
                {
                    "kind": "load",
                    "body": "A",
                    "force": [1, 2, 3],
                    "moment": [0, 0, 0.5],
                    "frame": "body",
                    "point": [0.2, 0, 0],
                    "signal": "sine",
                    "start": 0.5,
                    "amplitude": 2,
                    "frequency": 1.5,
                    "phase": -0.3,
                },
                {
                    "kind": "load",
                    "body": "Spring1",
                    "force": [0, 0, -1],
                    "signal": "table",
                    "table": [[0, 0], [0.5, 1e-3], [2, -2.5]],
                },
            ],
        }
    )


def test_every_element_kind_round_trips_through_xml() -> None:
    scenario = _world_scenario()
    assert {e.kind for e in scenario.elements} == {"pivot", "spring", "damper", "ground", "load"}
    text = scenario_to_xml(scenario)
    assert '<Lib LibName="sixdof" SimObject="Element/Spring" Name="Spring2"' in text
    assert (
        '<Connection A.Force="Spring3.Force" A.Moment="Spring3.Moment" '
        'Spring1.Force="Spring3.ForceB" Spring1.Moment="Spring3.MomentB" />' in text
    )
    assert 'Table="0,0; 0.5,0.001; 2,-2.5"' in text and "At=" in text
    again = scenario_from_xml(text)
    assert again == scenario
    assert scenario_to_xml(again) == text


def test_convert_json_to_xml_to_json_gives_the_same_scenario(tmp_path: Path) -> None:
    from sixdof.cli import main

    scenario = _world_scenario()
    (tmp_path / "w.json").write_text(scenario.model_dump_json(indent=1))
    assert main(["convert", str(tmp_path / "w.json"), str(tmp_path / "w.xml")]) == 0
    assert main(["convert", str(tmp_path / "w.xml"), str(tmp_path / "back.json")]) == 0
    assert load_scenario_file(tmp_path / "back.json") == scenario
    assert load_scenario_file(tmp_path / "w.xml") == scenario


WORLD_XML = """\
<Contents Name="hand written">
  <OBJECTS>
    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="Bob" Mass="2" InertiaRadi="0.1,0.1,0.1"
         Coriolis="1"/>
    <Lib LibName="sixdof" SimObject="Element/Pivot" Name="Hinge" Point="0,0,-1"/>
    <Lib LibName="sixdof" SimObject="Element/Load" Name="Push" Force="0,3,0" Signal="step"
         Start="1" Csv="push.csv"/>
  </OBJECTS>
  <INTERCONNECTIONS>
    <Connection Bob.Force="0,1,0"/>
    <Connection Bob.Force="Hinge.Force" Bob.Moment="Hinge.Moment"/>
    <Connection Bob.Moment="Push.Moment"/>
    <Connection Bob.Force="Push.Force"/>
  </INTERCONNECTIONS>
</Contents>
"""


def test_hand_written_wiring_and_a_table_file_next_to_the_input(tmp_path: Path) -> None:
    (tmp_path / "push.csv").write_text("t,value\n0,0\n1,1\n2,0.5\n")
    (tmp_path / "w.xml").write_text(WORLD_XML)
    scenario = read_fhsim_xml(tmp_path / "w.xml")
    pivot, load = scenario.elements
    assert (pivot.kind, pivot.body, pivot.point, pivot.at) == ("pivot", "Bob", (0, 0, -1), None)
    assert (load.kind, load.body, load.force, load.signal) == ("load", "Bob", (0, 3, 0), "step")
    assert load.table == [(0, 0), (1, 1), (2, 0.5)] and load.start == 1
    assert scenario.bodies[0].Force == (0, 1, 0)  # the constant input beside the elements
    assert load_scenario_file(tmp_path / "w.xml") == scenario
    # the table is written inline, so the XML reads back anywhere
    assert scenario_from_xml(scenario_to_xml(scenario)) == scenario
    with pytest.raises(ScenarioFileError) as info:  # text without a file: no folder
        scenario_from_xml(WORLD_XML)
    err = info.value
    assert (err.line, err.attribute) == (7, "Csv") and "next to an input file" in err.reason
    err = _error(WORLD_XML)  # a path names the text in messages, it opens no folder
    assert (err.line, err.attribute) == (7, "Csv") and "next to an input file" in err.reason
    (tmp_path / "push.csv").write_text("t,value\n0,0\n1,x\n")
    with pytest.raises(ScenarioFileError, match=r"push\.csv:3: expected two numbers"):
        read_fhsim_xml(tmp_path / "w.xml")


def element_xml(lib: str, wires: str = 'B.Force="E1.Force" B.Moment="E1.Moment"',
                engine: str = "") -> str:  # fmt: skip
    """Bodies B and C and one element E1: its Lib on line 5, `lib` (with its SimObject)
    on line 6, the Connection on line 8, the Engine on line 9."""
    return (
        "<Contents>\n"
        "  <OBJECTS>\n"
        '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="B" Mass="2" '
        'InertiaRadi="0.5,0.6,0.7"/>\n'
        '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="C" Mass="1" '
        'InertiaRadi="0.5,0.6,0.7" Coriolis="1"/>\n'
        '    <Lib LibName="sixdof" Name="E1"\n'
        f"         {lib}/>\n"
        "  </OBJECTS>\n"
        f"  <INTERCONNECTIONS><Connection {wires}/></INTERCONNECTIONS>\n"
        f"  <INTEGRATION><Engine {engine}/></INTEGRATION>\n"
        "</Contents>\n"
    )


GROUND = 'SimObject="Element/Ground"'
SPRING = 'SimObject="Element/Spring"'
LOAD = 'SimObject="Element/Load"'
TWO = 'B.Force="E1.Force" B.Moment="E1.Moment" C.Force="E1.ForceB" C.Moment="E1.MomentB"'

#: (file text, line, element, attribute, words the reason must contain)
BAD_ELEMENTS = [
    (element_xml(f'{GROUND} Restitution="2"'), 6, '<Lib Name="E1">', "Restitution",
     "must be in [0, 1], got 2"),
    (element_xml(f'{GROUND} Friction="-0.1"'), 6, '<Lib Name="E1">', "Friction", "[0, 2]"),
    (element_xml(f'{GROUND} Height="1,2"'), 6, '<Lib Name="E1">', "Height", "expected a number"),
    (element_xml(f'{SPRING} Stiffness="-1"'), 6, '<Lib Name="E1">', "Stiffness",
     "must be in [0, 1e+09] N/m, got -1"),
    (element_xml(f'{SPRING} RestLength="nan"'), 6, '<Lib Name="E1">', "RestLength",
     "not a finite number"),
    (element_xml('SimObject="Element/Damper" Linear="1,2,3"'), 6, '<Lib Name="E1">', "Linear",
     "expected 6 comma-separated numbers, got 3"),
    (element_xml('SimObject="Element/Pivot" Point="0,x,0"'), 6, '<Lib Name="E1">', "Point",
     "'x' is not a number"),
    (element_xml(f'{LOAD} Signal="square"'), 6, '<Lib Name="E1">', "Signal",
     "'constant', 'step', 'sine' or 'table'"),
    (element_xml(f'{LOAD} Frame="local"'), 6, '<Lib Name="E1">', "Frame", "'global' or 'body'"),
    (element_xml(f'{LOAD} Table="0,1; 0,2"'), 6, '<Lib Name="E1">', "Table",
     "times must increase"),
    (element_xml(f'{LOAD} Table="0,1; 1"'), 6, '<Lib Name="E1">', "Table",
     "row 1: expected two numbers"),
    (element_xml(f'{LOAD} Table="0,1" Csv="x.csv"'), 6, '<Lib Name="E1">', "Csv",
     "Table gives the table already"),
    (element_xml('SimObject="Element/Rope"'), 6, '<Lib Name="E1">', "SimObject",
     "unknown SimObject 'Element/Rope'; expected 'Body/6DBody' (a body), 'Environment/Water' "
     "(the water) or an element: 'Element/Pivot'"),
    (element_xml(GROUND, wires='B.Force="0,0,1"'), 5, '<Lib Name="E1">', None,
     'not connected: wire its outputs to the body it acts on, e.g. <Connection B.Force="E1.Force"'),
    (element_xml(GROUND, wires='B.Force="E1.Force"'), 8, "<Connection>", "B.Force",
     "E1.Moment is not wired"),
    (element_xml(GROUND, wires='B.Force="E1.Force" C.Moment="E1.Moment"'), 8, "<Connection>",
     "C.Moment", "E1.Force drives 'B' but E1.Moment drives 'C'"),
    (element_xml(GROUND, wires='B.Force="E1.Push" B.Moment="E1.Moment"'), 8, "<Connection>",
     "B.Force", "'Push' is not an output port of Element/Ground 'E1'; expected one of Force"),
    (element_xml(GROUND, wires=TWO), 8, "<Connection>", "C.Force",
     "'ForceB' is not an output port of Element/Ground"),
    (element_xml(GROUND, wires='B.Force="E1.Moment"'), 8, "<Connection>", "B.Force",
     "E1.Moment drives a body's Moment, not its Force"),
    (element_xml(GROUND, wires='E1.Force="1,2,3"'), 8, "<Connection>", "E1.Force",
     "'E1' is an element: its ports are outputs"),
    (element_xml(GROUND, wires='B.Force="C.Pos"'), 8, "<Connection>", "B.Force",
     "'C' is a body (a body drives no other body)"),
    (element_xml(GROUND, wires='B.Force="E1.Force" B.Moment="E1.Moment"/><Connection '
                 'C.Force="E1.Force"'), 8, "<Connection>", "C.Force",
     "E1.Force is wired twice (first on line 8)"),
    (element_xml(f'{SPRING} To="0,0,-1"', wires=TWO), 6, '<Lib Name="E1">', "To",
     "a spring ends at a world point (To) or on the body wired to E1.ForceB"),
    (element_xml(f'{SPRING} ToPoint="0,0,-1"'), 6, '<Lib Name="E1">', "ToPoint",
     "no Connection wires E1.ForceB and E1.MomentB"),
    (element_xml(SPRING, wires='B.Force="E1.Force" B.Moment="E1.Moment"/><Connection '
                 'B.Force="E1.ForceB" B.Moment="E1.MomentB"'), 5, '<Lib Name="E1">', "ToPoint",
     "not a body to itself"),
    (element_xml(GROUND, engine='stepsize="0.005"'), 9, "<Engine>", "stepsize",
     "with a ground the step must be at most 0.002 s"),
    (element_xml(GROUND, engine='IntegratorMethod="2"'), 9, "<Engine>", "IntegratorMethod",
     "dopri5 steps free bodies only"),
    (element_xml(GROUND).replace('Name="E1"', 'Name="B"'), 5, '<Lib Name="B">', "Name",
     "'B' is used by another <Lib>"),
    (element_xml(GROUND).replace('Name="E1"', ""), 5, "<Lib>", "Name", "missing"),
]  # fmt: skip


@pytest.mark.parametrize("text, line, element, attribute, reason", BAD_ELEMENTS)
def test_bad_elements_are_located(
    text: str, line: int, element: str | None, attribute: str | None, reason: str
) -> None:
    err = _error(text)
    assert (err.line, err.attribute) == (line, attribute), str(err)
    assert err.element is not None and err.element.startswith(element or ""), str(err)
    assert reason in err.reason, str(err)


def test_two_pivots_on_one_body_point_at_the_second() -> None:
    text = element_xml('SimObject="Element/Pivot"').replace(
        "  </OBJECTS>",
        '    <Lib LibName="sixdof" SimObject="Element/Pivot" Name="E2"/>\n  </OBJECTS>',
    ).replace("</INTERCONNECTIONS>", '<Connection B.Force="E2.Force" B.Moment="E2.Moment"/>'
              "</INTERCONNECTIONS>")  # fmt: skip
    err = _error(text)
    assert (err.line, err.element) == (7, '<Lib Name="E2">') and "has a pivot already" in err.reason


def test_an_element_lib_in_another_library_is_warned_and_read() -> None:
    text = element_xml(GROUND).replace('LibName="sixdof"', 'LibName="fhsim_base"')
    with pytest.warns(
        ScenarioFileWarning, match=r":5: <Lib Name=\"E1\"> LibName: expected 'sixdof'"
    ):
        scenario = scenario_from_xml(text)
    assert scenario.elements[0].kind == "ground"
    with pytest.warns(
        ScenarioFileWarning, match=r"E1\"> Colour: unknown attribute of Element/Ground"
    ):
        scenario_from_xml(element_xml(f'{GROUND} Colour="red"'))
