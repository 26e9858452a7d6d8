"""The generated parts of docs/protocol.md, rewritten in place between markers.

The prose of docs/protocol.md is written in the file itself. What follows from the code sits
between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->`: a block on lines of
its own (the error codes, each message's fields and examples, the parts, the binary layout,
the REST routes) or a value inside a sentence (a setting's default, the protocol version).
`render(text)` rewrites every such part and refuses a document that lacks one or names one
it does not know, so a test comparing the file with `render()` catches any drift.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from fastapi.routing import APIRoute
from pydantic import BaseModel

from sixdof.server import binary
from sixdof.server.bem import router as bem_router
from sixdof.server.error_codes import ERROR_CODES
from sixdof.server.gyro import router as gyro_router
from sixdof.server.hydro import router as hydro_router
from sixdof.server.past_routes import router as past_router
from sixdof.server.protocol import (
    CLIENT_MESSAGES,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    BodyFrame,
    BodyState,
    Hydrodynamics,
    HydroPeriods,
    HydrostaticsInfo,
    Limits,
    PresetInfo,
    Status,
)
from sixdof.server.rest import router
from sixdof.server.settings import Settings

from .examples import examples
from .schema import Array, Const, Map, Ref, Scalar, Tuple, Type, Union, describe, fields

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

MARKED = re.compile(
    r"<!-- generated: (?P<name>[\w.-]+) -->(?P<body>.*?)<!-- end generated: (?P=name) -->",
    re.DOTALL,
)


def md(t: Type) -> str:
    """A type as docs/protocol.md's tables write it (`number[3]`, `a \\| b`)."""
    if isinstance(t, Ref):
        return t.name
    if isinstance(t, Const):
        return json.dumps(t.value)
    if isinstance(t, Union):
        return " \\| ".join(md(o) for o in t.options)
    if isinstance(t, Tuple):
        return f"[{', '.join(md(i) for i in t.items)}]"
    if isinstance(t, Array):
        return f"{md(t.item)}[{t.width}]" if t.width else f"{md(t.item)}[]"
    if isinstance(t, Map):
        return f"{{string: {md(t.value)}}}"
    assert isinstance(t, Scalar)
    return t.kind


def _fields(model: type[BaseModel]) -> list[str]:
    rows = ["| field | type | required / default | range | meaning |", "|---|---|---|---|---|"]
    for f in fields(model.model_json_schema()):
        if f.name == "type":
            continue
        if f.required:
            need = "required"
        else:
            need = f"default `{json.dumps(f.default)}`" if f.has_default else "optional"
        rows.append(f"| `{f.name}` | {md(f.type)} | {need} | {f.range} | {f.description} |")
    return rows


def _messages(messages: Mapping[str, type[BaseModel]], direction: str) -> list[str]:
    every = examples()
    out: list[str] = []
    for kind, model in messages.items():
        out += ["", f"### `{kind}` ({direction})", "", describe(model), "", *_fields(model)]
        for example in every[kind]:
            out += ["", "```json", json.dumps(example, ensure_ascii=False), "```"]
    return out[1:]


def _parts() -> list[str]:
    out: list[str] = []
    for model in (
        Status, BodyFrame, Limits, PresetInfo, HydrostaticsInfo, HydroPeriods, BodyState,
        Hydrodynamics,
    ):  # fmt: skip
        out += ["", f"### `{model.__name__}`", "", describe(model), "", *_fields(model)]
    return out[1:]


def _error_codes() -> list[str]:
    rows = [f"| `{code}` | {meaning} |" for code, meaning in ERROR_CODES.items()]
    return ["| code | meaning |", "|---|---|", *rows]


def _rest() -> list[str]:
    rows = ["| method | path | what |", "|---|---|---|"]
    for route in [
        *router.routes,
        *past_router.routes,
        *gyro_router.routes,
        *bem_router.routes,
        *hydro_router.routes,
    ]:
        if isinstance(route, APIRoute):
            doc = " ".join((route.endpoint.__doc__ or route.name.replace("_", " ")).split())
            rows += [f"| {m} | `{route.path}` | {doc} |" for m in sorted(route.methods or ())]
    return rows


BLOCKS: dict[str, Callable[[], list[str]]] = {
    "error-codes": _error_codes,
    "server-messages": lambda: _messages(SERVER_MESSAGES, "server → client"),
    "client-messages": lambda: _messages(CLIENT_MESSAGES, "client → server"),
    "parts": _parts,
    "binary": lambda: (binary.__doc__ or "").strip().splitlines()[2:],
    "rest": _rest,
}


def values() -> dict[str, str]:
    """The values written inside sentences: the protocol version and the settings' defaults."""
    d = {name: field.default for name, field in Settings.model_fields.items()}
    return {
        "version": str(PROTOCOL_VERSION),
        "room_ttl": f"{d['room_ttl']:g}",
        "max_watcher_rooms": str(d["max_watcher_rooms"]),
        "max_rooms": str(d["max_rooms"]),
        "frame_rate": f"{d['frame_rate']:g}",
        "max_message_kib": str(d["max_message_bytes"] // 1024),
        "work_rate": f"{d['work_rate']:g}",
        "work_burst": f"{d['work_burst']:g}",
        "slice_ms": f"{d['slice_seconds'] * 1000:g}",
        "tick_budget": f"{d['tick_budget']:g}",
        "rate_limit": f"{d['rate_limit']:g}",
        "flood_window": f"{d['flood_window']:g}",
        "max_pending_replies": str(d["max_pending_replies"]),
    }


def render(text: str | None = None) -> str:
    """docs/protocol.md (or `text`) with every generated part rewritten."""
    if text is None:
        text = DOC.read_text(encoding="utf-8")
    inline = values()
    found = {m["name"] for m in MARKED.finditer(text)}
    if found ^ (set(BLOCKS) | set(inline)):
        unknown, missing = found - set(BLOCKS) - set(inline), (set(BLOCKS) | set(inline)) - found
        raise ValueError(f"docs/protocol.md: unknown parts {unknown}, missing parts {missing}")

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        body = inline[name] if name in inline else "\n\n" + "\n".join(BLOCKS[name]()) + "\n\n"
        return f"<!-- generated: {name} -->{body}<!-- end generated: {name} -->"

    return MARKED.sub(fill, text)
