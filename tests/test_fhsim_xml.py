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


@pytest.mark.parametrize("make", [_odd_scenario, *(p.scenario for p in PRESETS.values())])
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
        "port-to-port connections are not supported",
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
