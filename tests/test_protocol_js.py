"""The page's protocol module is generated from the models, and one bad value gets one answer.

frontend/src/protocol.gen.js carries the message types, frame keys, error codes, ranges
and view constants of the Python definition; it must be regenerated whenever they change
(`python scripts/gen_protocol.py`). A bad value must be refused with the same code, field
and range text whichever door it comes through: a scenario file, REST, the websocket.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sixdof.fields import LIMITS
from sixdof.scenario import ScenarioFileError, load_scenario_file
from sixdof.server.app import create_app
from sixdof.server.protocol_js import render_js
from sixdof.server.settings import Settings

GENERATED = Path(__file__).resolve().parent.parent / "frontend" / "src" / "protocol.gen.js"


def test_the_generated_page_module_is_current() -> None:
    assert GENERATED.read_text(encoding="utf-8") == render_js(), (
        "frontend/src/protocol.gen.js is out of date: run python scripts/gen_protocol.py"
    )


def test_the_generated_module_carries_the_one_table() -> None:
    text = render_js()
    block = text.split("export const LIMITS = Object.freeze(", 1)[1].split(");", 1)[0]
    limits = json.loads(block)
    assert limits["Mass"] == {"lo": 1e-6, "hi": 1e6, "unit": "kg", "loOpen": False}
    assert set(limits) == set(LIMITS)
    assert "@typedef {Object} Hello" in text and "@property {boolean} preset_modified" in text


# (the value, the field a websocket set_params names, the range text every door must say)
BAD = [
    ({"Mass": -1.0}, "Mass", "must be in [1e-06, 1e+06] kg, got -1"),
    ({"Gravity": 250.0}, "Gravity", "must be in [-100, 100] m/s², got 250"),
    ({"InertiaRadi": [0.5, 0.0, 0.5]}, "InertiaRadi", "must be in [0.0001, 1000] m"),
    ({"MeshScale": [1.0, -1.0, 1.0]}, "MeshScale", "must be in (0, 1e+06]"),
]


@pytest.mark.parametrize(("change", "field", "text"), BAD)
def test_a_bad_value_is_answered_alike_by_file_rest_and_websocket(
    tmp_path: Path, change: dict, field: str, text: str
) -> None:
    body = {"Name": "B", **change}
    # 1. a scenario file
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"bodies": [body]}), encoding="utf-8")
    with pytest.raises(ScenarioFileError) as info:
        load_scenario_file(path)
    assert info.value.attribute is not None and info.value.attribute.startswith(field)
    assert text in info.value.reason
    with TestClient(create_app(Settings())) as client:
        # 2. REST
        reply = client.put("/api/rooms/r/scenario", json={"bodies": [body]})
        assert reply.status_code == 422
        first = reply.json()["detail"][0]
        assert (first["type"], first["field"]) == ("out_of_range", f"bodies[0].{field}")
        assert text in first["msg"]
        with client.websocket_connect("/ws?room=r") as ws:
            assert ws.receive_json()["type"] == "hello"
            # 3a. the websocket, loading the same scenario
            ws.send_text(json.dumps({"type": "load_scenario", "scenario": {"bodies": [body]}}))
            err = _next_reply(ws)
            assert (err["code"], err["field"]) == ("out_of_range", f"scenario.bodies[0].{field}")
            assert text in err["message"]
            # 3b. the websocket, changing it live
            ws.send_text(json.dumps({"type": "set_params", **change}))
            err = _next_reply(ws)
            assert (err["code"], err["field"]) == ("out_of_range", field)
            assert text in err["message"]


def _next_reply(ws) -> dict:  # type: ignore[no-untyped-def]
    while True:
        msg = ws.receive_json()
        if msg["type"] in ("ack", "error"):
            return msg
