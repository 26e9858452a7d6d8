"""Presets are scenario files; their captions are catalogue messages whose numbers come from
the file (sixdof.scenario.presets): every preset a file, no number typed into any language's
caption, the English the server writes formatted as the page formats it, and each file
holding what its caption assumes (the builders that made the files are gone)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from sixdof.dynamics.quaternion import rotate
from sixdof.scenario import Scenario
from sixdof.scenario.elements import PivotElement, SpringElement
from sixdof.scenario.presets import FOLDER, ORDER, PRESETS, elliptic_k, english
from sixdof.scenario.presets.icu import format_message, literal_text, number, placeholders
from sixdof.scenario.presets.numbers import caption_values

LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"
CATALOGUES = {x: json.loads((LOCALES / f"{x}.json").read_text()) for x in ("en", "de", "nb")}
PARTS = ("title", "caption", "question")


def test_every_preset_is_a_file_of_the_json_sixdof_run_reads() -> None:
    assert sorted(p.stem for p in FOLDER.glob("*.json")) == sorted(ORDER)
    for name in ORDER:
        data = json.loads((FOLDER / f"{name}.json").read_text())
        assert data["name"] == name and "caption" not in data, name  # captions: the catalogues
        scenario = PRESETS[name].scenario()
        assert scenario == Scenario.model_validate({**data, "caption": PRESETS[name].caption})


@pytest.mark.parametrize("lang", ["en", "de", "nb"])
def test_no_number_is_typed_into_a_preset_message(lang: str) -> None:
    """Every digit of a preset's title, caption and question is a placeholder's value, each
    language quotes the same values, and English quotes every value the numbers give."""
    catalogue = CATALOGUES[lang]
    for name, preset in PRESETS.items():
        values = preset.values
        quoted: set[str] = set()
        for part in PARTS:
            key = f"preset.{name}.{part}"
            message = catalogue[key]
            assert not re.search(r"[0-9]", literal_text(message)), f"{lang} {key}: {message!r}"
            names = set(placeholders(message))
            assert names <= set(values), f"{lang} {key}: no value for {names - set(values)}"
            assert names == set(placeholders(CATALOGUES["en"][key])), f"{lang} {key}"
            quoted |= names
        assert quoted == set(values), f"{lang} {name}: {set(values) - quoted} not quoted"


def test_the_english_is_the_catalogue_message_with_the_files_numbers() -> None:
    assert english() == CATALOGUES["en"]
    hover = PRESETS["hover"]
    assert hover.caption.startswith("The weight m g = 19.62 N is cancelled by a constant upward")
    assert hover.scenario().caption == hover.caption
    # a changed file changes the numbers every language's message quotes
    heavier = hover.scenario()
    heavier.bodies[0].Mass, heavier.bodies[0].Force = 3.0, (0.0, 0.0, -3.0 * 9.81)
    values = caption_values("hover", heavier)
    assert values == {"weight": pytest.approx(29.43), "force": pytest.approx(-29.43)}
    text = format_message(CATALOGUES["en"]["preset.hover.caption"], values)
    assert "m g = 29.43 N" in text and "Force of -29.43 N" in text
    assert PRESETS["compound_pendulum"].question.startswith("A 1 m bar and a ball on a 1 m string")


def test_elliptic_k() -> None:
    assert elliptic_k(0.0) == pytest.approx(math.pi / 2, rel=1e-15)
    assert elliptic_k(0.5) == pytest.approx(1.8540746773013719, rel=1e-14)  # K(1/2), tables
    assert elliptic_k(0.9) == pytest.approx(2.5780921133481733, rel=1e-14)


@pytest.mark.parametrize(
    ("x", "skeleton", "text"),
    [
        (-19.62, ".00", "-19.62"),
        (1.0005, "", "1.001"),  # V8 rounds the shortest decimal, half away from zero
        (0.9999999999999999, "", "1"),
        (0.5, "", "0.5"),
        (2.0, ".000", "2.000"),
        (3000.0, "", "3,000"),
        (3000.0, "group-off", "3000"),
        (57.29577951308232, "precision-integer", "57"),
        (0.4996, "precision-integer", "0"),  # rounded once, not twice
        (11.028652564025629, ".0", "11.0"),
        (12345.678, ".0 group-off", "12345.7"),
    ],
)
def test_numbers_are_written_as_intl_writes_them_in_english(
    x: float, skeleton: str, text: str
) -> None:
    assert number(x, skeleton) == text


def test_messages_outside_the_subset_are_refused() -> None:
    assert format_message("FhSim's {v, number} m", {"v": 2.5}) == "FhSim's 2.5 m"
    assert format_message("{f} = {v, number, ::.00}", {"f": "2π", "v": 1.0}) == "2π = 1.00"
    with pytest.raises(ValueError, match="subset"):
        format_message("{n, plural, one {# bar} other {# bars}}", {"n": 1.0})
    with pytest.raises(ValueError, match="subset"):
        format_message("'{v}' is literal", {"v": 1.0})
    with pytest.raises(ValueError, match="subset"):
        number(1.0, "percent")
    with pytest.raises(KeyError):
        format_message("{v, number}", {})


def _held(scenario: Scenario) -> np.ndarray:
    """Where the first body's pivot holds its body point in the world at the start."""
    b = scenario.bodies[0]
    (pivot,) = (e for e in scenario.elements if isinstance(e, PivotElement) and e.body == b.Name)
    return np.asarray(b.Pos) + rotate(np.asarray(b.Quater), np.asarray(pivot.point))


def test_the_files_hold_what_the_captions_assume() -> None:
    s = {name: p.scenario() for name, p in PRESETS.items()}
    v = {name: p.values for name, p in PRESETS.items()}
    for name in ("hover", "spin_up"):  # the weight cancelled
        b = s[name].bodies[0]
        assert b.Force == (0.0, 0.0, -b.Mass * b.Gravity), name
    for name in ("compound_pendulum", "gyroscope", "heavy_top"):  # the pivot at the origin
        np.testing.assert_allclose(_held(s[name]), 0.0, atol=1e-12, err_msg=name)
    bar = s["compound_pendulum"].bodies[0]
    assert v["compound_pendulum"]["angle"] == pytest.approx(math.degrees(1.0))  # released at 1 rad
    # the two balls: their CG at the origin, the spring stretched by 0.2 m, same density
    light, heavy, lone = s["two_masses_spring"].bodies
    assert light.Mass * light.Pos[0] + heavy.Mass * heavy.Pos[0] == pytest.approx(0.0, abs=1e-9)
    spring, wall = s["two_masses_spring"].elements
    assert isinstance(spring, SpringElement)
    gap = heavy.Pos[0] - light.Pos[0] - (light.Size[0] + heavy.Size[0]) / 2
    assert gap - spring.rest_length == pytest.approx(0.2, abs=1e-9)
    # the light ball alone beside them on the same spring, tied to a wall point, stretched alike
    assert isinstance(wall, SpringElement) and isinstance(wall.to, tuple)
    assert (lone.Mass, lone.Size, wall.stiffness) == (light.Mass, light.Size, spring.stiffness)
    stretch = wall.to[0] - (lone.Pos[0] + wall.point[0]) - wall.rest_length
    assert stretch == pytest.approx(0.2, abs=1e-9) and wall.to[1] == lone.Pos[1]
    assert heavy.Size[0] ** 3 / light.Size[0] ** 3 == pytest.approx(heavy.Mass / light.Mass)
    # the mount at rest at Pos 0: the two springs carry its weight
    box = s["spring_mount"].bodies[0]
    springs = [e for e in s["spring_mount"].elements if isinstance(e, SpringElement)]
    hang = [-e.to[2] for e in springs if isinstance(e.to, tuple)]
    assert len(hang) == 2 and hang[0] == hang[1]
    stretch = hang[0] - springs[0].rest_length
    assert 2 * springs[0].stiffness * stretch == pytest.approx(box.Mass * box.Gravity, rel=1e-8)
    # the floating bodies: their CG draft − KG below the still level (plus a start's heave)
    started = {"floating_box": 0.05, "stiff_and_tender": 0.05, "drift_in_current": 0.0}
    for name, heave in started.items():
        for b in s[name].bodies:
            kg = b.MeshOrigin[2] + b.Size[2] / 2
            draft = b.Mass / (s[name].water.density * b.Size[0] * b.Size[1])
            assert b.Pos[2] == pytest.approx(draft - kg + heave, abs=1e-12), (name, b.Name)
    assert v["floating_box"]["draft"] == pytest.approx(0.4)
    buoy = s["buoy_in_waves"].bodies[0]
    assert buoy.Pos[2] == pytest.approx(v["buoy_in_waves"]["draft"] - 0.2, abs=1e-6)  # KG 0.2
    assert buoy.MeshOrigin[2] + 0.5 == pytest.approx(0.2)
    assert bar.Size[2] == v["compound_pendulum"]["bar"]
