"""The page speaks the protocol the server defines: a test that fails when the two drift.

The pydantic models in sixdof.server.protocol are the one definition. The page is plain
JavaScript, so this reads every message literal it builds (`{ type: '…', key: … }`) and every
message type it dispatches on (`msg.type === '…'`), and checks them against the models.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

from sixdof.server import protocol

SOURCES = sorted((Path(__file__).parent.parent / "frontend" / "src").glob("*.js"))
LITERAL = re.compile(r"\{\s*type:\s*'(\w+)'((?:[^{}]|\{[^{}]*\})*)\}")
KEY = re.compile(r"(?:^|,)\s*(\w+)\s*:")
DISPATCH = re.compile(r"msg\.type\s*===\s*'(\w+)'")


def _models(union: object) -> dict[str, type[protocol.BaseModel]]:
    members = typing.get_args(typing.get_args(union)[0])
    return {typing.get_args(m.model_fields["type"].annotation)[0]: m for m in members}


CLIENT = _models(protocol.ClientMessage)
SERVER = _models(protocol.ServerMessage)


def _page_text() -> str:
    assert SOURCES, "frontend/src has no JavaScript"
    return "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)


def test_every_message_the_page_sends_is_a_client_message_with_known_fields() -> None:
    sent = LITERAL.findall(_page_text())
    assert len(sent) >= 10, "the page's message literals were not found"
    for kind, rest in sent:
        assert kind in CLIENT, f"the page sends {kind!r}, which the protocol does not define"
        fields = set(CLIENT[kind].model_fields)
        keys = set(KEY.findall(rest))
        assert keys <= fields, f"{kind}: the page sends {sorted(keys - fields)}, not in the model"


def test_every_message_type_the_page_handles_is_a_server_message() -> None:
    handled = set(DISPATCH.findall(_page_text()))
    assert {"hello", "state", "error", "ack"} <= handled
    assert handled <= set(SERVER), f"the page handles unknown types {handled - set(SERVER)}"


def test_every_client_message_is_sent_by_the_page() -> None:
    """Each control the protocol offers is reachable from the page."""
    sent = {kind for kind, _ in LITERAL.findall(_page_text())}
    assert sent == set(CLIENT), f"not sent by the page: {set(CLIENT) - sent}"
