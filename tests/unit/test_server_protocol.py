"""The protocol's one definition: models, JSON Schema, docs/protocol.md and the live limits agree.

docs/protocol.md's generated parts follow the models; these tests fail when anyone edits one
without the other (regenerate with `python scripts/gen_protocol.py`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from sixdof.fields import LIMITS
from sixdof.scenario import BodySpec, Scenario
from sixdof.server.error_codes import ERROR_CODES
from sixdof.server.protocol import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    Hello,
    client_message_adapter,
    json_schema,
    limits,
    server_message_adapter,
)
from sixdof.simulation import LiveSimulation, live_limits

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from protocol_gen.docs import render  # noqa: E402
from protocol_gen.examples import examples  # noqa: E402

DOC = ROOT / "docs" / "protocol.md"


def test_docs_match_the_models() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/protocol.md is out of date: run python scripts/gen_protocol.py"
    )


def test_docs_name_every_message_field_and_error_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind, model in {**SERVER_MESSAGES, **CLIENT_MESSAGES}.items():
        section = text.split(f"### `{kind}`", 1)[1].split("\n### ", 1)[0]
        for field in model.model_fields:
            if field != "type":
                assert f"| `{field}` |" in section, f"{kind}.{field} not documented"
        assert "```json" in section, f"{kind} has no example"
    for code, meaning in ERROR_CODES.items():
        assert f"| `{code}` | {meaning} |" in text


@pytest.mark.parametrize("kind", [*SERVER_MESSAGES, *CLIENT_MESSAGES])
def test_every_example_validates_against_its_model(kind: str) -> None:
    adapter = server_message_adapter if kind in SERVER_MESSAGES else client_message_adapter
    cases = examples()[kind]
    assert cases
    for case in cases:
        assert adapter.validate_python(case).type == kind


def test_schema_covers_both_directions_with_a_discriminator() -> None:
    schema = json_schema()
    mapping = schema["discriminator"]["mapping"]
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(SERVER_MESSAGES) | set(CLIENT_MESSAGES)
    assert schema["x-server-to-client"] == ["hello", "state", "ack", "error", "preparing"]
    set_input = schema["$defs"]["SetInput"]["properties"]["Force"]
    assert (set_input["minItems"], set_input["maxItems"]) == (3, 3)
    assert [item["maximum"] for item in set_input["prefixItems"]] == [LIMITS["Force"].hi] * 3
    codes = schema["$defs"]["Error"]["properties"]["code"]["enum"]
    assert codes == list(ERROR_CODES)


def _bounds(prop: dict) -> tuple[float | None, float | None]:
    """(minimum or exclusiveMinimum, maximum) of a number, or of a tuple's first item."""
    for option in prop.get("anyOf", [prop]):
        item = option.get("prefixItems", [option])[0]
        if "maximum" in item:
            return item.get("minimum", item.get("exclusiveMinimum")), item["maximum"]
    return None, None


@pytest.mark.parametrize("model", ["SetParams", "SetInput", "BodyState", "SetTimeScale", "Step"])
def test_published_schema_bounds_are_the_one_table(model: str) -> None:
    props = json_schema()["$defs"][model]["properties"]
    checked = 0
    for name, prop in props.items():
        lo, hi = _bounds(prop)
        if hi is None:
            continue
        assert (lo, hi) == (LIMITS[name].lo, LIMITS[name].hi), name
        checked += 1
    assert checked >= 1
    live = live_limits()
    assert limits() == live
    for name in ("Mass", "InertiaRadi", "CGOffset", "Gravity", "Force", "Moment", "time_scale"):
        assert live[name] == LIMITS[name].pair(), name


def test_state_model_matches_what_the_simulation_sends() -> None:
    """The State/BodyFrame models forbid extra fields, so a new output must be added here."""
    frame = LiveSimulation(Scenario(bodies=[BodySpec(Name="A"), BodySpec(Name="C")])).frame()
    state = server_message_adapter.validate_python({"type": "state", "seq": 1, **frame})
    assert [b.Name for b in state.bodies] == ["A", "C"]


def test_hello_example_limits_are_the_live_ones() -> None:
    hello = Hello.model_validate(examples()["hello"][0])
    assert hello.limits.model_dump(mode="json") == live_limits()


def test_client_message_ids_are_echoable() -> None:
    for mid in ("7", 7, None):
        assert client_message_adapter.validate_python({"type": "pause", "id": mid}).id == mid
    with pytest.raises(ValueError, match="64"):
        client_message_adapter.validate_python({"type": "pause", "id": "x" * 65})
    prose = re.sub(r"<!--.*?-->", "", DOC.read_text(encoding="utf-8"))  # as it reads
    assert re.search(r"200 messages per second", prose)


def test_the_state_frame_shape_is_the_simulations() -> None:
    """The hot `state` frame is encoded by hand (orjson), not by the model: the BodyFrame
    model documents exactly its keys, in its order."""
    from sixdof.server.protocol import BodyFrame

    frame = LiveSimulation(Scenario(bodies=[BodySpec(Name="A")])).frame()
    assert list(frame["bodies"][0]) == list(BodyFrame.model_fields)
