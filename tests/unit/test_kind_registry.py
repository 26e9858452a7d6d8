"""Every element kind is whole: the registry (`sixdof.scenario.kinds`) against the dynamics,
the XML form, the page's drawings and locales, the docs and the tests.

A kind added without one of its parts fails here, naming the kind and the part.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from sixdof.fields import LIMITS
from sixdof.scenario import BodySpec, Integration, Scenario, scenario_from_xml, scenario_to_xml
from sixdof.scenario.errors import UNION_TAGS
from sixdof.scenario.fhsim_xml_format import ELEMENT_OBJECTS, KIND_OF
from sixdof.scenario.kind import DRAWINGS
from sixdof.scenario.kinds import BY_NAME, KIND_TABLE, KINDS, dynamics_kinds
from sixdof.simulation.limits import ELEMENT_FIELDS, ELEMENT_LIMITS

ROOT = Path(__file__).resolve().parents[2]
LOCALES = sorted((ROOT / "frontend" / "src").glob("**/locales/*.json"))
NAMES = [k.name for k in KIND_TABLE]
sys.path.insert(0, str(ROOT / "scripts"))
from protocol_gen.kinds import render_kinds  # noqa: E402


def test_the_pages_table_of_kinds_is_current() -> None:
    path = ROOT / "frontend" / "src" / "core" / "kinds.gen.js"
    assert path.read_text(encoding="utf-8") == render_kinds(), "run scripts/gen_protocol.py"


def test_the_registry_and_the_dynamics_know_the_same_kinds() -> None:
    # dynamics_kinds() reads the dynamics' own table of kinds, numpy-free (the scenario
    # imports no numpy): when that table moves, dynamics_kinds() follows it
    assert dynamics_kinds(), "dynamics_kinds() found no kinds in the dynamics"
    assert set(KINDS) == set(dynamics_kinds()), "a kind without its dynamics, or the reverse"
    assert KINDS == tuple(sorted(KINDS, key=dynamics_kinds().__getitem__))
    assert UNION_TAGS == set(KINDS)


def test_the_registry_is_the_order_the_scenario_has_always_had() -> None:
    # the JSON union's order: error messages list the tags in it, and docs quote it
    assert KINDS[:7] == ("pivot", "spring", "damper", "ground", "load", "buoyancy", "added_mass")


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_is_its_model_tag_and_module(name: str) -> None:
    kind = BY_NAME[name]
    assert kind.model.model_fields["kind"].annotation.__args__ == (name,)  # type: ignore[union-attr]
    assert kind.model.__module__ == f"sixdof.scenario.kinds.{name}"


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_has_an_xml_form_that_round_trips(name: str) -> None:
    kind = BY_NAME[name]
    assert kind.xml_object.startswith("Element/") and KIND_OF[kind.xml_object] == name
    assert ELEMENT_OBJECTS[name] == kind.xml_object
    fields = set(kind.model.model_fields)
    for attr, (field, _) in kind.xml_attributes.items():
        head = field.partition(".")[0]  # "target.Pos": an entry of the field target
        assert head in fields or kind.xml_read is not None, f"{name}.{attr}: no field {field}"
    assert {"Force", "Moment"} <= set(kind.xml_ports)
    spec = {"kind": name, "body": "A", **kind.example}
    scenario = Scenario(
        bodies=[BodySpec(Name="A")],
        elements=[spec],  # type: ignore[list-item]  # validated into the kind's model
        integration=Integration(method="rk4", stepsize=0.001),
    )
    back = scenario_from_xml(scenario_to_xml(scenario))
    assert back.elements == scenario.elements


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_has_a_drawing_the_page_and_the_notebook_know(name: str) -> None:
    drawing = BY_NAME[name].drawing
    assert drawing in DRAWINGS
    page = (ROOT / "frontend" / "src" / "view" / "elements.js").read_text(encoding="utf-8")
    # "arrow" and "none": the free-body drawing (teach/fbd.js) draws every element's force
    assert drawing in ("arrow", "none") or f"drawing === '{drawing}'" in page
    notebook = (ROOT / "backend" / "sixdof" / "notebook" / "elements.py").read_text("utf-8")
    # the notebook has no labels ("tag"), and draws a load's force as its "arrow"
    assert drawing in ("tag", "none") or f'drawing == "{drawing}"' in notebook
    generated = (ROOT / "frontend" / "src" / "core" / "kinds.gen.js").read_text("utf-8")
    assert f'"{name}": {{"drawing": "{drawing}"' in generated, "run scripts/gen_protocol.py"


@pytest.mark.parametrize("name", NAMES)
def test_what_the_panel_tunes_has_its_limits(name: str) -> None:
    panel = BY_NAME[name].panel
    tuned = [*panel.numbers, *(f for f, _ in panel.vectors)]
    # hello.limits.elements carries their ranges (simulation/limits.py); points are the server's
    named = [ELEMENT_LIMITS.get(f, f) for f in tuned]  # a joint's rest and limits: its positions
    assert [f for f in named if f not in LIMITS and f not in ("point", "to")] == []
    assert set(tuned) - {"point", "to"} <= set(ELEMENT_FIELDS)


def _locale_keys() -> dict[str, dict[str, str]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in LOCALES}


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_has_its_words_in_every_locale(name: str) -> None:
    kind = BY_NAME[name]
    keys = [f"elements.kind.{name}"]
    keys += [f"elements.field.{f}" for f in kind.panel.numbers]
    keys += [f"elements.field.{f}" for f, _ in kind.panel.vectors]
    if kind.panel.summary is not None:
        keys += [f"elements.summary.{name}", f"elements.field.{kind.panel.summary}"]
    locales = _locale_keys()
    assert set(locales) == {"en", "de", "nb"}
    for lang, table in locales.items():
        missing = [k for k in keys if k not in table]
        assert not missing, f"{lang}: {missing}"


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_has_its_docs_section(name: str) -> None:
    page, _, anchor = BY_NAME[name].docs.partition("#")
    assert anchor in _anchors((ROOT / "docs" / page).read_text(encoding="utf-8"))


def test_every_kind_has_a_closed_form_test() -> None:
    tagged: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        tagged |= set(re.findall(r"mark\.closed_form\(\"(\w+)\"\)", path.read_text("utf-8")))
    assert set(KINDS) <= tagged, f"no @pytest.mark.closed_form for {set(KINDS) - tagged}"
