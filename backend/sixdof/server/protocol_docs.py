"""docs/protocol.md, generated from the protocol's pydantic models.

`render()` builds the whole document: connection rules, error codes, and for every message
its fields (from the models' JSON Schema) and an example (validated against its model by the
tests). scripts/gen_protocol.py writes it; a test fails when the file and `render()`
differ, so the document cannot drift from the code.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from fastapi.routing import APIRoute
from pydantic import BaseModel

from ..scenario import Scenario
from . import binary
from .protocol import (
    CLIENT_MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    BodyFrame,
    BodyState,
    ErrorCode,
    Limits,
    PresetInfo,
    Status,
    limits,
)
from .rest import router
from .settings import Settings

ERROR_CODES: dict[str, str] = {
    "bad_json": "the text is not JSON",
    "unknown_type": "`type` is not one of the client messages",
    "invalid": "wrong shape: missing or unknown field, wrong width, not a finite number, "
    "wrong kind of value",
    "out_of_range": "a number outside its allowed range (the message says the range)",
    "unstable_step": "the integrator step is beyond the method's stability limit",
    "unknown_body": "no body with that `Name` in the room's scenario",
    "unknown_preset": "no preset with that name",
    "forbidden": "control needs the server's token; or the room is full / too many rooms",
    "too_large": "message over the size limit; the connection is then closed (1009)",
    "rate_limited": "over the message rate; the message was dropped (a sustained flood "
    "closes the connection, 1008)",
    "diverged": "the simulation diverged and paused itself (sent unprompted, no `id`)",
    "internal": "a server fault; the room pauses with the reason (sent unprompted, no `id`)",
}

_STATUS = {
    "running": True,
    "time_scale": 1.0,
    "rtf": 0.998,
    "overruns": 0,
    "paused_reason": None,
    "compute_limited": False,
    "forked_at": None,
    "recorded_from": 0.0,
    "integrator": "rk4",
    "step": 0.001,
}
_BODY = {
    "Name": "B",
    "Pos": [0.0, 0.0, -2.0],
    "Quater": [1.0, 0.0, 0.0, 0.0],
    "Vel": [0.5, 0.0, 0.0],
    "LocalVel": [0.5, 0.0, 0.0],
    "AngVel": [0.0, 0.0, 0.0],
    "Euler": [0.0, 0.0, 0.0],
    "Force": [0.5, 0.0, -9.81],
    "Moment": [0.0, 0.0, 0.0],
    "KineticEnergy": 0.125,
    "PotentialEnergy": 19.62,
    "TotalEnergy": 19.745,
    "LinearMomentum": [0.5, 0.0, 0.0],
    "AngularMomentum": [0.0, 0.0, 0.0],
    "CGPos": [0.0, 0.0, -2.0],
    "CGVel": [0.5, 0.0, 0.0],
    "AngVelGlobal": [0.0, 0.0, 0.0],
    "TranslationalEnergy": 0.125,
    "RotationalEnergy": 0.0,
    "Loads": [
        {
            "source": "constant",
            "Force": [0.0, 0.0, -9.81],
            "Moment": [0.0, 0.0, 0.0],
            "At": [0.0, 0.0, -2.0],
        },
        {
            "source": "push",
            "Force": [0.5, 0.0, 0.0],
            "Moment": [0.0, 0.0, 0.0],
            "At": [0.0, 0.0, -2.0],
        },
    ],
}


def examples() -> dict[str, list[dict[str, Any]]]:
    """One or more example objects per message type (each must validate against its model)."""
    scenario = Scenario(name="hover", caption="Gravity balanced by a constant lift.")
    return {
        "hello": [
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "version": "0.1.0",
                "room": "main",
                "can_control": True,
                "scenario": scenario.model_dump(mode="json"),
                "preset": "hover",
                "preset_modified": False,
                "integrator": "rk4",
                "step": 0.001,
                "presets": [
                    {
                        "name": "hover",
                        "title": "Hover",
                        "caption": "Gravity balanced.",
                        "question": "Push it once: what will it do then?",
                        "flip_axis": None,
                    }
                ],
                "limits": limits(),
                "status": _STATUS,
            }
        ],
        "state": [{"type": "state", "seq": 123, "t": 2.05, "status": _STATUS, "bodies": [_BODY]}],
        "ack": [{"type": "ack", "id": "7", "of": "set_params"}],
        "error": [
            {
                "type": "error",
                "id": "7",
                "code": "out_of_range",
                "message": "Mass: must be in [1e-06, 1e+06] kg, got -1",
                "field": "Mass",
            }
        ],
        "set_input": [
            {"type": "set_input", "id": 1, "body": "B", "Force": [0.0, 0.0, -9.81]},
            {
                "type": "set_input",
                "channel": "push",
                "frame": "body",
                "Force": [5.0, 0.0, 0.0],
                "point": [0.5, 0.0, 0.0],
            },
            {"type": "set_input", "channel": "push"},
        ],
        "set_params": [
            {
                "type": "set_params",
                "id": "7",
                "body": "B",
                "Mass": 2.0,
                "InertiaRadi": [0.3, 0.4, 0.5],
            },
            {"type": "set_params", "integrator": "euler", "step": 0.0005},
        ],
        "pause": [{"type": "pause"}],
        "resume": [{"type": "resume"}],
        "step": [{"type": "step", "n": 10}],
        "reset": [
            {"type": "reset", "state": None},
            {"type": "reset", "body": "B", "state": {"Pos": [0, 0, -1], "AngVel": [0, 0, 1]}},
        ],
        "set_time_scale": [{"type": "set_time_scale", "time_scale": 0.25}],
        "auth": [{"type": "auth", "token": "s3cret", "id": 1}],
        "go_back": [{"type": "go_back", "t": 12.5, "id": 9}],
        "undo_go_back": [{"type": "undo_go_back", "id": 10}],
        "set_ghost": [
            {"type": "set_ghost", "changes": {"model": "fhsim"}, "id": 11},
            {"type": "set_ghost", "changes": {"integrator": "euler", "step": 0.01}},
            {"type": "set_ghost", "changes": None},
        ],
        "load_scenario": [
            {"type": "load_scenario", "preset": "tennis_racket"},
            {"type": "load_scenario", "scenario": {"name": "drop", "bodies": [{"Mass": 2.0}]}},
        ],
    }


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " \\| ".join(json.dumps(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " \\| ".join(_type(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array":
        if "prefixItems" in schema:
            return f"[{', '.join(_type(s) for s in schema['prefixItems'])}]"
        width = schema.get("minItems")
        inner = _type(schema.get("items", {}))
        return f"{inner}[{width}]" if width and width == schema.get("maxItems") else f"{inner}[]"
    if kind == "object" and "additionalProperties" in schema:
        return f"{{string: {_type(schema['additionalProperties'])}}}"
    return {
        "number": "number",
        "integer": "integer",
        "string": "string",
        "boolean": "boolean",
        "null": "null",
    }.get(kind, kind)


def _bounds(schema: dict[str, Any]) -> str:
    for s in (schema, schema.get("items", {}), *schema.get("anyOf", [])):
        s = s.get("items", s)
        if "minimum" in s or "maximum" in s:
            unit = f" {s['description']}" if s.get("description") else ""
            lo = f"{s['minimum']:g}" if "minimum" in s else "-∞"
            hi = f"{s['maximum']:g}" if "maximum" in s else "∞"
            return f"[{lo}, {hi}]{unit}"
        if s.get("maxLength"):
            return f"at most {s['maxLength']} characters"
    return ""


def _fields(model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema()
    required = set(schema.get("required", []))
    rows = ["| field | type | required / default | range | meaning |", "|---|---|---|---|---|"]
    for name, prop in schema.get("properties", {}).items():
        if name == "type":
            continue
        need = "required" if name in required else f"default `{json.dumps(prop.get('default'))}`"
        if name in required or "default" not in prop:
            need = "required" if name in required else "optional"
        text = (prop.get("description") or "").replace("\n", " ")
        rows.append(f"| `{name}` | {_type(prop)} | {need} | {_bounds(prop)} | {text} |")
    return rows


def _doc(model: type[BaseModel]) -> str:
    text = " ".join((model.__doc__ or "").split())
    text = text.removeprefix("server -> client: ").removeprefix("client -> server: ")
    return text[:1].upper() + text[1:]


def _section(kind: str, model: type[BaseModel], direction: str) -> list[str]:
    out = [f"### `{kind}` ({direction})", "", _doc(model), ""]
    out += _fields(model)
    for example in examples()[kind]:
        out += ["", "```json", json.dumps(example, ensure_ascii=False), "```"]
    return [*out, ""]


def render() -> str:
    codes = get_args(ErrorCode)
    d = {name: field.default for name, field in Settings.model_fields.items()}
    kib, rate = d["max_message_bytes"] // 1024, f"{d['rate_limit']:g}"
    lines = [
        f"# sixdof websocket protocol v{PROTOCOL_VERSION}",
        "",
        "<!-- Generated by scripts/gen_protocol.py from backend/sixdof/server/protocol.py."
        " Do not edit: tests/test_server_protocol_docs.py fails when this file and the models"
        " differ. -->",
        "",
        "The live server streams a room's simulation over a websocket; the page (or any client)"
        " sends control messages back. Every frame is a JSON text frame holding one object with"
        " a `type`. The pydantic models in `backend/sixdof/server/protocol.py` are the one"
        " definition; their JSON Schema is served at `GET /api/protocol.schema.json`.",
        "",
        "## Connecting",
        "",
        "`ws://HOST:PORT/ws?room=NAME&token=TOKEN`",
        "",
        "- `room` (default `main`): 1 to 64 characters from `A-Z a-z 0-9 _ -`. Everyone in a"
        " room sees one simulation. A room is made from the server's default scenario when its"
        " first client joins and removed some minutes (`room_ttl`, default"
        f" {d['room_ttl']:g} s) after its last"
        " client leaves. A bad name gets an `error` (field `room`) and close code 1008.",
        "- `token`: only when the server runs with `--token`. Without the right token a client"
        " gets `can_control: false` in `hello` and may watch; every control message is refused"
        " with code `forbidden`, before it is validated. The token may instead come in an"
        ' `Authorization: Bearer TOKEN` header or as the first message, `{"type": "auth",'
        ' "token": …}` (answered by `ack` and a new `hello`), which keeps it out of URLs'
        " and access logs. A room made by a watcher counts against"
        f" `max_watcher_rooms` ({d['max_watcher_rooms']}), apart from the"
        f" {d['max_rooms']} rooms of clients that may control. A room with no client stops"
        " ticking (its `t` stays) until someone joins again.",
        "- `frames` (optional): `binary` for state frames in the compact binary layout below"
        " (`hello.frames` confirms it); `json`, the default, otherwise.",
        "- `snapshot` (optional): the id of a Share link's snapshot (POST"
        " /api/rooms/{room}/share); a room that does not exist yet is made from it, an existing"
        " room is joined as it is. An unknown id gets an `error` (field `snapshot`) and 1008.",
        "- Origin: a browser's websocket is refused (HTTP 403) unless its `Origin` is the"
        " address the page was loaded from, given as an IP address or `localhost` (e.g."
        " `http://192.168.1.20:8000`), or is allowed with `--allow-origin` (needed for pages"
        " reached by a host name, e.g. `--allow-origin http://lab.local:8000`). Clients that"
        " send no Origin (scripts, notebooks) are allowed.",
        "- On connect the server sends `hello`, then a `state` frame at the frame rate"
        f" ({d['frame_rate']:g} Hz)."
        " Whenever the scenario, a parameter, a constant input or the integrator changes, every"
        " client of the room gets a new `hello`.",
        "",
        "## Replies, limits and closing",
        "",
        "- Every client message may carry an `id` (string of at most 64 characters, or integer);"
        " the reply echoes it. A message that was applied gets `ack`; one that was refused gets"
        " `error` with `code`, `message` (naming the field and the allowed range), `field`, and"
        " **nothing changes** (`set_params` is all or nothing). The connection stays open.",
        f"- A message over {kib} KiB gets `error` `too_large` and the server closes with **1009**.",
        "- Work is charged: every message's computing time counts against a budget per client"
        f" address ({d['work_rate']:g} s per s, up to {d['work_burst']:g} s banked); with the"
        " budget spent, or a `step` whose estimate is over what is left, the message gets"
        " `error` `rate_limited` saying when to retry. A `step` runs in slices of at most"
        f" {d['slice_seconds'] * 1000:g} ms with other rooms ticking in between.",
        "- A room whose settings need more computing than its share of a tick"
        f" ({d['tick_budget']:g} of a frame period for all rooms together) drops time:"
        " `status.compute_limited` is true and `rtf` says how much slower it runs.",
        f"- More than {rate} messages per second from one client: each message over the limit"
        f" is dropped with `error` `rate_limited`; more than {rate} dropped within"
        f" {d['flood_window']:g} s closes the connection with **1008**.",
        "- State frames are latest-wins per client: a slow client skips frames (visible as gaps"
        " in `seq`) and never slows the room or other clients. Replies (`hello`, `ack`,"
        " `error`) are never skipped; a client that lets"
        f" {d['max_pending_replies']} of them pile up unread is"
        " disconnected.",
        "- Frames are in FhSim's frames and units: global frame North-East-Down (z down),"
        " quaternions scalar first `[w, x, y, z]`, SI units.",
        "",
        "## Error codes",
        "",
        "| code | meaning |",
        "|---|---|",
        *[f"| `{c}` | {ERROR_CODES[c]} |" for c in codes],
        "",
        "## Server → client",
        "",
    ]
    for kind, model in SERVER_MESSAGES.items():
        lines += _section(kind, model, "server → client")
    lines += ["## Client → server", ""]
    for kind, model in CLIENT_MESSAGES.items():
        lines += _section(kind, model, "client → server")
    lines += ["## Parts", ""]
    for model in (Status, BodyFrame, Limits, PresetInfo, BodyState):
        lines += [f"### `{model.__name__}`", "", _doc(model), "", *_fields(model), ""]
    lines += [
        "### `Scenario`",
        "",
        "The scenario JSON of `GET /api/rooms/{room}/scenario` and `GET /api/presets/{name}`:"
        " `name`, `caption`, `bodies` (each a `BodySpec` with FhSim's names: `Name`, `Mass`,"
        " `InertiaRadi`, `Inertia`, `CGOffset`, `Gravity`, `model`, `Material`, `Mesh`,"
        " `MeshScale`, `MeshOrigin`, `Size`, `Force`, `Moment`, `Pos`, `Quater`, `LocalVel`,"
        " `AngVel`) and `integration` (`method`, `stepsize`, `HMax`, `HMin`, `AbsTol`,"
        " `RelTol`, `TOutput`). Its full schema is in `/api/protocol.schema.json` under"
        " `$defs`.",
        "",
        "## Binary state frames",
        "",
        *(binary.__doc__ or "").strip().splitlines()[2:],
        "",
        "## REST",
        "",
        "Beside the websocket (FastAPI's own documentation is at `/docs` and `/openapi.json`):",
        "",
        "| method | path | what |",
        "|---|---|---|",
        *_rest_rows(),
        "",
        "Static files: `/meshes/<file>` from `meshes/`; `/` and `/assets/*` from the built page"
        " (`frontend/dist/`; without it `/` answers 503 saying to run `make setup`).",
        "",
    ]
    return "\n".join(lines)


def _rest_rows() -> list[str]:
    rows = []
    for route in router.routes:
        if isinstance(route, APIRoute):
            doc = " ".join((route.endpoint.__doc__ or route.name.replace("_", " ")).split())
            for method in sorted(route.methods or ()):
                rows.append(f"| {method} | `{route.path}` | {doc} |")
    return rows
