"""The water, buoyancy and added mass in FhSim XML: round trips, located errors, runs equal."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from sixdof.cli import main
from sixdof.scenario import (
    Scenario,
    ScenarioFileError,
    ScenarioFileWarning,
    load_scenario_file,
    read_fhsim_xml,
    scenario_from_xml,
    scenario_to_xml,
)
from sixdof.scenario.presets import PRESETS

ROOT = Path(__file__).resolve().parents[2]
WATER_PRESETS = [name for name, p in PRESETS.items() if p.scenario().water is not None]


def test_every_water_preset_is_covered() -> None:
    assert {"floating_box", "stiff_and_tender", "buoy_in_waves"} <= set(WATER_PRESETS)


@pytest.mark.parametrize("name", WATER_PRESETS)
def test_water_presets_round_trip_through_xml(name: str) -> None:
    scenario = PRESETS[name].scenario()
    text = scenario_to_xml(scenario)
    assert 'SimObject="Environment/Water" Name="Sea"' in text
    assert 'SimObject="Element/Buoyancy"' in text and '.Water="Sea.Water"' in text
    again = scenario_from_xml(text)
    assert again == scenario
    assert scenario_to_xml(again) == text


def _sea_scenario() -> Scenario:
    """Every water field away from its default, every floating element, a body named Sea."""
    matrix = [[0.0] * 6 for _ in range(6)]
    for a, value in enumerate((100, 200, 300, 10, 20, 30)):
        matrix[a][a] = value
    matrix[0][4] = matrix[4][0] = -12.5  # surge–pitch coupling
    matrix[1][3] = matrix[3][1] = 1 / 3
    box = {"Mesh": "box", "Size": [2, 1, 1], "model": "full"}
    return Scenario.model_validate(
        {
            "name": "sea",
            "bodies": [
                {"Name": "Sea", "Mass": 600, "InertiaRadi": [0.4, 0.6, 0.6], **box},
                {
                    "Name": "Hull",
                    "Mass": 800,
                    "InertiaRadi": [0.4, 0.6, 0.6],
                    "Pos": [5, 0, 0],
                    **box,
                },
            ],
            "water": {
                "density": 1000.5,
                "level": -0.25,
                "current": [0.1, -0.2, 1e-3],
                "waves": [
                    {"amplitude": 0.5, "period": 6, "direction": 0},
                    {"amplitude": 0.125, "period": 3.5, "direction": 90},
                    {"amplitude": 1e-3, "period": 0.7, "direction": -45.5},
                ],
                "depth": 30,
            },
            "elements": [
                {"kind": "buoyancy", "body": "Sea"},
                {"kind": "buoyancy", "body": "Hull"},
                {"kind": "added_mass", "body": "Sea", "diagonal": [1, 2, 3, 4, 5, 6]},
                {"kind": "added_mass", "body": "Hull", "matrix": matrix},
                {
                    "kind": "damper",
                    "body": "Hull",
                    "linear": [1, 2, 3, 4, 5, 6],
                    "quadratic": [0.5, 0, 0, 0, 0, 0.25],
                },
                {"kind": "spring", "body": "Sea", "to": {"body": "Hull"}, "stiffness": 10},
            ],
        }
    )


def test_every_water_field_and_floating_element_round_trips() -> None:
    scenario = _sea_scenario()
    text = scenario_to_xml(scenario)
    # the water is named clear of the body Sea; the matrix is written row by row
    assert (
        '<Lib LibName="sixdof" SimObject="Environment/Water" Name="Sea1" Density="1000.5" '
        'Level="-0.25" Current="0.1,-0.2,0.001" Depth="30" WaveAmplitude="0.5,0.125,0.001" '
        'WavePeriod="6,3.5,0.7" WaveDirection="0,90,-45.5" />' in text
    )
    assert 'Name="AddedMass2" Matrix="100,0,0,0,-12.5,0,0,200,0,0.3333333333333333,' in text
    assert (
        'Hull.Force="Damper1.Force" Hull.Moment="Damper1.Moment" Damper1.Water="Sea1.Water"' in text
    )
    assert "AddedMass1.Water" not in text and "Spring1.Water" not in text
    again = scenario_from_xml(text)
    assert again == scenario
    assert scenario_to_xml(again) == text


def test_without_water_buoyancy_floats_in_still_sea_water_and_round_trips() -> None:
    """JSON without "water" is still sea water for a buoyancy and no current for a damper;
    the XML says the same by having no water and wiring nothing to one."""
    scenario = _sea_scenario()
    scenario.water = None
    text = scenario_to_xml(scenario)
    assert "Environment/Water" not in text and ".Water=" not in text
    assert scenario_from_xml(text) == scenario


def test_convert_json_to_xml_to_json_gives_the_same_scenarios(tmp_path: Path) -> None:
    for k, scenario in enumerate(
        [_sea_scenario(), *(PRESETS[n].scenario() for n in WATER_PRESETS)]
    ):
        src, xml, back = (tmp_path / f"{k}{suffix}" for suffix in (".json", ".xml", "b.json"))
        src.write_text(scenario.model_dump_json(indent=1))
        assert main(["convert", str(src), str(xml)]) == 0
        assert main(["convert", str(xml), str(back)]) == 0
        assert load_scenario_file(back) == scenario == load_scenario_file(xml)


@pytest.mark.parametrize("name", WATER_PRESETS)
def test_run_of_the_xml_is_bit_identical_to_the_json(name: str, tmp_path: Path) -> None:
    scenario = PRESETS[name].scenario()
    (tmp_path / "s.json").write_text(scenario.model_dump_json(indent=1))
    (tmp_path / "s.xml").write_text(scenario_to_xml(scenario))
    for suffix in (".json", ".xml"):
        code = main(["run", "--input-file", str(tmp_path / f"s{suffix}"), "--output-file",
                     str(tmp_path / f"s{suffix}.csv"), "--quiet", "--t-end", "0.5"])  # fmt: skip
        assert code == 0
    from_json = (tmp_path / "s.json.csv").read_bytes()
    assert from_json.count(b"\n") == 52  # header, 0 to 0.5 s every 0.01 s
    assert (tmp_path / "s.xml.csv").read_bytes() == from_json


# -- the examples and the documentation's example ---------------------------------------


@pytest.mark.parametrize("name", ["floating_box", "drift_in_current"])
def test_examples_are_their_presets(name: str) -> None:
    example = read_fhsim_xml(ROOT / "examples" / f"{name}.xml")
    preset = PRESETS[name].scenario()
    # the examples are FhSim's files: no caption, no page view (the preset's file has them)
    assert example.model_copy(update={"caption": preset.caption, "view": preset.view}) == preset


def test_example_drift_in_current_reaches_the_current(tmp_path: Path) -> None:
    out = tmp_path / "drift.csv"
    assert main(["run", "--input-file", str(ROOT / "examples" / "drift_in_current.xml"),
                 "--output-file", str(out), "--quiet", "--t-end", "2.5"]) == 0  # fmt: skip
    rows = out.read_text().splitlines()
    header, last = rows[0].split(","), [float(x) for x in rows[-1].split(",")]
    vel = np.array([last[header.index(f"Barge.Vel[{i}]")] for i in range(2)])
    # (m + A) ν̇_r = −c ν_r from rest: the lag after τ = 2.5 s is e^(−1) of the current
    lag = np.linalg.norm(np.array([0.3, 0.4]) - vel) / 0.5
    assert lag == pytest.approx(math.exp(-1.0), abs=1e-3)


def _doc_block(heading: str) -> str:
    doc = (ROOT / "docs" / "fhsim.md").read_text()
    section = doc.split(f"## {heading}", 1)[1]
    match = re.search(r"```xml\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_the_documented_example_reads_and_round_trips() -> None:
    scenario = scenario_from_xml(_doc_block("Water: floating bodies"))
    assert scenario.water is not None and len(scenario.water.waves) == 2
    assert scenario.water.depth == 30.0 and scenario.water.current == (0.4, 0.3, 0.0)
    assert {e.kind for e in scenario.elements} == {"buoyancy", "added_mass", "damper"}
    assert scenario_from_xml(scenario_to_xml(scenario)) == scenario


# -- errors: the Lib or Connection and the attribute, with the limit ---------------------


def water_xml(
    water: str = 'Density="1025"',
    element: str = 'SimObject="Element/Buoyancy"',
    wires: str = 'B.Force="E1.Force" B.Moment="E1.Moment" E1.Water="Sea.Water"',
    initial: str = "",
) -> str:
    """Body B, the water Sea (`water` on line 5), element E1 (`element` on line 7), the
    Connection on line 9, the InitialCondition on line 10."""
    return (
        "<Contents>\n"
        "  <OBJECTS>\n"
        '    <Lib LibName="fhsim_base" SimObject="Body/6DBody" Name="B" Mass="2" '
        'InertiaRadi="0.5,0.6,0.7" Mesh="box"/>\n'
        '    <Lib LibName="sixdof" SimObject="Environment/Water" Name="Sea"\n'
        f"         {water}/>\n"
        '    <Lib LibName="sixdof" Name="E1"\n'
        f"         {element}/>\n"
        "  </OBJECTS>\n"
        f"  <INTERCONNECTIONS><Connection {wires}/></INTERCONNECTIONS>\n"
        f"  <INITIALIZATION><InitialCondition {initial}/></INITIALIZATION>\n"
        "</Contents>\n"
    )


def test_the_water_file_reads() -> None:
    s = scenario_from_xml(water_xml('Density="1000" Current="0.5,0,0" Depth="12" '
                                    'WaveAmplitude="0.2,0.1" WavePeriod="5,3"'))  # fmt: skip
    assert s.water is not None and (s.water.density, s.water.depth) == (1000.0, 12.0)
    assert [(w.amplitude, w.period, w.direction) for w in s.water.waves] == [
        (0.2, 5.0, 0.0),
        (0.1, 3.0, 0.0),
    ]  # WaveDirection left out: every component travels north
    assert s.elements[0].kind == "buoyancy" and s.elements[0].body == "B"
    still = scenario_from_xml(water_xml("")).water
    assert still is not None and (still.density, still.level, still.waves, still.depth) == (
        1025.0,
        0.0,
        [],
        None,
    )


SEA = '<Lib Name="Sea">'
E1 = '<Lib Name="E1">'
DAMPER = 'SimObject="Element/Damper"'
ADDED = 'SimObject="Element/AddedMass"'
BODY = 'B.Force="E1.Force" B.Moment="E1.Moment"'  # no water input (an added mass has none)
SYMMETRIC = ",".join("1" if a == b else "0" for a in range(6) for b in range(6))
NO_WATER = water_xml().replace(
    '    <Lib LibName="sixdof" SimObject="Environment/Water" Name="Sea"\n'
    '         Density="1025"/>\n',
    "\n\n",
)

#: (file text, line, element, attribute, words the reason must contain)
BAD_WATER = [
    (water_xml('Density="0"'), 5, SEA, "Density", "must be in [1, 20000] kg/m³, got 0"),
    (water_xml('Density="1,2"'), 5, SEA, "Density", "expected a number, got 2 values"),
    (water_xml('Level="nan"'), 5, SEA, "Level", "'nan' is not a finite number"),
    (water_xml('Current="0,0"'), 5, SEA, "Current", "expected 3 comma-separated numbers"),
    (water_xml('Current="200,0,0"'), 5, SEA, "Current", "must be in [-100, 100] m/s, got 200"),
    (water_xml('Depth="0"'), 5, SEA, "Depth", "must be in (0, 100000] m, got 0"),
    (water_xml('WaveAmplitude="0.5,0.2" WavePeriod="6"'), 5, SEA, "WavePeriod",
     "1 value but WaveAmplitude has 2"),
    (water_xml('WaveAmplitude="0.5"'), 4, SEA, "WavePeriod",
     "missing; WaveAmplitude gives 1 wave component"),
    (water_xml('WaveDirection="0,90"'), 4, SEA, "WaveAmplitude",
     "missing; WaveDirection gives 2 wave components"),
    (water_xml('WaveAmplitude="0.5,200" WavePeriod="6,6"'), 5, SEA, "WaveAmplitude",
     "wave component 1: must be in [0, 100] m, got 200"),
    (water_xml('WaveAmplitude="0.5,0.1" WavePeriod="6,0.01"'), 5, SEA, "WavePeriod",
     "wave component 1: must be in [0.1, 1000] s, got 0.01"),
    (water_xml('WaveAmplitude="1" WavePeriod="6" WaveDirection="400"'), 5, SEA,
     "WaveDirection", "wave component 0: must be in [-360, 360] degrees, got 400"),
    (water_xml('WaveAmplitude=""'), 5, SEA, "WaveAmplitude", "got nothing"),
    (water_xml(f'WaveAmplitude="{",".join(["0.1"] * 17)}"'), 5, SEA, "WaveAmplitude",
     "at most 16 wave components"),
    (water_xml('WavePeriod="6,x"'), 5, SEA, "WavePeriod", "'x' is not a number"),
    (water_xml(wires='B.Force="E1.Force" B.Moment="E1.Moment"'), 6, E1, None,
     "not wired to the water 'Sea': with a water in the file every buoyancy is wired to it"),
    (water_xml(element=DAMPER, wires='B.Force="E1.Force" B.Moment="E1.Moment"'), 6, E1, None,
     "with a water in the file every damper is wired to it (it acts relative to its current)"),
    (water_xml(wires='B.Force="E1.Force" B.Moment="E1.Moment" E1.Water="Sea.Surface"'), 9,
     "<Connection>", "E1.Water",
     "'Surface' is not an output port of Environment/Water 'Sea'; expected Water"),
    (water_xml(wires='E1.Water="Ocean.Water"'), 9, "<Connection>", "E1.Water",
     "'Ocean' is not the water; the water is 'Sea'"),
    (water_xml(wires='E1.Water="1,2,3"'), 9, "<Connection>", "E1.Water",
     "expected the water's output, E1.Water=\"Sea.Water\""),
    (water_xml(element='SimObject="Element/Pivot"'), 9, "<Connection>", "E1.Water",
     "'E1' (Element/Pivot) has no input Water"),
    (water_xml(wires='B.Force="Sea.Water"'), 9, "<Connection>", "B.Force",
     "'Sea' is the water: its output Water goes to the input Water of a buoyancy or a "
     "cable or a damper"),
    (water_xml(wires='Sea.Water="1"'), 9, "<Connection>", "Sea.Water",
     "'Sea' is the water (Environment/Water): it has no inputs or states"),
    (water_xml(initial='Sea.Pos="0,0,0"'), 10, "<InitialCondition>", "Sea.Pos",
     "'Sea' is the water"),
    (water_xml(wires='B.Force="E1.Force" B.Moment="E1.Moment" E1.Water="Sea.Water"/>'
               '<Connection E1.Water="Sea.Water"'), 9, "<Connection>", "E1.Water",
     "E1.Water is wired twice (first on line 9)"),
    (NO_WATER, 9, "<Connection>", "E1.Water",
     "'Sea' is not the water; there is no <Lib SimObject=\"Environment/Water\"> in <OBJECTS>"),
    (water_xml().replace('Name="E1"', 'Name="E1" SimObject="Environment/Water"').replace(
        'SimObject="Element/Buoyancy"', ""), 6, E1, "SimObject",
     "a second water; a scenario has one water (the first, 'Sea', is on line 4)"),
    (water_xml().replace('Name="Sea"', ""), 4, "<Lib>", "Name",
     "missing; every water <Lib> needs a Name (Connections wire Name.Water)"),
    (water_xml().replace('Name="Sea"', 'Name="B"'), 4, '<Lib Name="B">', "Name",
     "'B' is used by another <Lib>"),
    (water_xml().replace('Name="E1"', 'Name="Sea"'), 6, SEA, "Name",
     "'Sea' is used by another <Lib>"),
    (water_xml(element=ADDED, wires=BODY), 6, E1, "Diagonal",
     "missing; M_A is Diagonal (6 numbers: surge, sway, heave, roll, pitch, yaw) or Matrix "
     "(36 numbers"),
    (water_xml(element=f'{ADDED} Diagonal="1,1,1,1,1,1" Matrix="{SYMMETRIC}"', wires=BODY), 7, E1,
     "Matrix", "give Diagonal or Matrix, not both"),
    (water_xml(element=f'{ADDED} Diagonal="1,2,3"', wires=BODY), 7, E1, "Diagonal",
     "expected 6 comma-separated numbers, got 3"),
    (water_xml(element=f'{ADDED} Matrix="{SYMMETRIC[:-2]}"', wires=BODY), 7, E1, "Matrix",
     "expected 36 comma-separated numbers, got 35"),
    (water_xml(element=f'{ADDED} Matrix="{"0,2," + SYMMETRIC[4:]}"', wires=BODY), 7, E1, "Matrix",
     "M_A must be symmetric, [1][0] = 0 but [0][1] = 2"),
    (water_xml(element=f'{ADDED} Diagonal="2e9,0,0,0,0,0"', wires=BODY), 7, E1, "Diagonal",
     "must be in [-1e+09, 1e+09] kg, kg·m or kg·m², got 2e+09"),
    (water_xml(element=f'{ADDED} Matrix="{SYMMETRIC.replace("0", "-2e9", 1)}"', wires=BODY), 7, E1,
     "Matrix", "must be in [-1e+09, 1e+09] kg, kg·m or kg·m², got -2e+09"),
]  # fmt: skip


@pytest.mark.parametrize("text, line, element, attribute, reason", BAD_WATER)
def test_bad_water_files_are_located(
    text: str, line: int, element: str, attribute: str | None, reason: str
) -> None:
    with pytest.raises(ScenarioFileError) as info:
        scenario_from_xml(text, "bad.xml")
    err = info.value
    assert (err.line, err.attribute) == (line, attribute), str(err)
    assert err.element is not None and err.element.startswith(element), str(err)
    assert reason in err.reason, str(err)
    assert str(err).startswith(f"bad.xml:{line}: {err.element}")


def test_unknown_attributes_of_the_water_and_buoyancy_are_warned() -> None:
    text = water_xml('Temperature="12"', 'SimObject="Element/Buoyancy" Density="1000"')
    with pytest.warns(ScenarioFileWarning) as record:
        scenario = scenario_from_xml(text, "w.xml")
    messages = [str(w.message) for w in record]
    assert any(
        m.startswith('w.xml:5: <Lib Name="Sea"> Temperature: unknown attribute of '
                     "Environment/Water, ignored (known: LibName, SimObject, Name, Density")
        for m in messages
    ), messages  # fmt: skip
    assert any(
        'E1"> Density: unknown attribute of Element/Buoyancy, ignored (known: none: its hull '
        "is the body's drawn Mesh, Size, MeshScale and MeshOrigin)" in m
        for m in messages
    ), messages
    assert scenario.water is not None and scenario.water.density == 1025.0


def test_a_water_in_another_library_is_warned_and_read() -> None:
    with pytest.warns(ScenarioFileWarning, match=r":4: <Lib Name=\"Sea\"> LibName: expected"):
        scenario = scenario_from_xml(
            water_xml().replace(
                '"sixdof" SimObject="Environment', '"fhsim_base" SimObject="Environment'
            )
        )
    assert scenario.water is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario_from_xml(water_xml())  # the file as written reads without a warning


def test_the_documented_errors_are_what_the_documented_file_gives() -> None:
    """docs/fhsim.md's error lines come from its example, changed as listed here."""
    doc = (ROOT / "docs" / "fhsim.md").read_text()
    block = _doc_block("Water: floating bodies")
    skew = "0,2," + SYMMETRIC[4:]
    for old, new in [
        ('WaveAmplitude="0.3,0.1"', 'WaveAmplitude="0.3,200"'),
        ('WavePeriod="6,3.5"', 'WavePeriod="6"'),
        (' Drag.Water="Sea.Water"', ""),
        ('Hull.Water="Sea.Water"', 'Hull.Water="Sea.Surface"'),
        ('Diagonal="180,180,600,20,90,60"', f'Matrix="{skew}"'),
    ]:
        assert old in block
        with pytest.raises(ScenarioFileError) as info:
            scenario_from_xml(block.replace(old, new), "s.xml")
        assert f"sixdof: error: {info.value}\n" in doc
