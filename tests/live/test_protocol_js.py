"""The page's generated files follow the models, and one bad value gets one answer.

frontend/src/net/messages.gen.d.ts declares every message as a TypeScript type and
frontend/src/net/protocol.gen.js holds the constants the page imports; both must be regenerated
whenever the Python definition changes (`python scripts/gen_protocol.py`). A bad value must
be refused with the same code, field and range text whichever door it comes through: a
scenario file, REST, the websocket.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sixdof.scenario import ScenarioFileError, load_scenario_file
from sixdof.server.app import create_app
from sixdof.server.protocol import CLIENT_MESSAGES, SERVER_MESSAGES
from sixdof.server.settings import Settings
from sixdof.view_style import as_dict

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from protocol_gen.page import render_constants, render_types  # noqa: E402

SRC = ROOT / "frontend" / "src" / "net"


@pytest.mark.parametrize(
    ("name", "render"),
    [("protocol.gen.js", render_constants), ("messages.gen.d.ts", render_types)],
)
def test_the_generated_page_files_are_current(name: str, render) -> None:  # type: ignore[no-untyped-def]
    assert (SRC / name).read_text(encoding="utf-8") == render(), (
        f"frontend/src/net/{name} is out of date: run python scripts/gen_protocol.py"
    )


def test_the_page_types_declare_every_message_in_its_union() -> None:
    text = render_types()
    for messages, union in ((SERVER_MESSAGES, "ServerMessage"), (CLIENT_MESSAGES, "ClientMessage")):
        block = text.split(f"export type {union} =", 1)[1].split(";", 1)[0]
        assert block.split() == [w for m in messages.values() for w in ("|", m.__name__)]
        for kind, model in messages.items():
            interface = text.split(f"export interface {model.__name__} {{", 1)[1].split("\n}", 1)[0]
            assert f'type: "{kind}";' in interface
    # what the server sends is present; what a client sends may be left out
    assert "  preset_modified: boolean;" in text and "  frames: " in text
    assert "  channel?: " in text and "  ghost?: GhostFrame | null;" in text


def test_the_constants_module_carries_the_view() -> None:
    text = render_constants()
    block = text.split("export const VIEW = Object.freeze(/** @type {View} */ (", 1)[1]
    assert json.loads(block.split("));", 1)[0]) == as_dict()


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
            first = ws.receive_json()
            while first["type"] == "preparing":  # the process's first join: the physics loads
                first = ws.receive_json()
            assert first["type"] == "hello"
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
