"""Seeded fuzzing of the two doors that take text from strangers: the websocket protocol and
the FhSim XML reader, 5,000 cases each per run.

Protocol: every message gets exactly one reply (ack or error), the server never answers
`internal`, and the room's state stays finite. XML: every document either reads into a
Scenario with a finite initial state or is refused with a ScenarioFileError; nothing else
escapes (no traceback-worthy exception, no non-finite number).
"""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from sixdof.scenario.fhsim_xml import scenario_from_xml
from sixdof.scenario.fhsim_xml_write import scenario_to_xml
from sixdof.scenario.file_errors import ScenarioFileError
from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app
from sixdof.server.protocol import CLIENT_MESSAGES

CASES = 5000
FIELDS = [
    "Force", "Moment", "frame", "point", "channel", "spring", "body", "Mass", "InertiaRadi",
    "Inertia", "CGOffset", "Gravity", "model", "Mesh", "Material", "MeshScale", "Size",
    "MeshOrigin", "integrator", "step", "n", "state", "time_scale", "preset", "scenario",
    "token", "Pos", "Quater", "LocalVel", "AngVel", "target", "stiffness", "bodies", "x",
]  # fmt: skip
JUNK = ["", "1e400", "nan", "-1", "0", "1e-300", "1,2", "1,2,3,4", "a", "1e200,0,0",
        "0:1e-9:1e9", "&amp;", "1:0:2", "x" * 200]  # fmt: skip
NUMBERS = [0, 1, -1, 0.5, 1e-300, 1e300, -1e300, 1e-5, 2.5e-2, 100, 1e7, 1e200, 3, 10000, 10001]


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 5)
    if kind == 0:
        return rng.choice(NUMBERS) * rng.choice([1, -1])
    if kind == 1:
        return rng.uniform(-10, 10)
    if kind == 2:
        return rng.choice(["", "B", "rk4", "euler", "body", "push", "global", "fhsim", "x" * 70,
                           "tennis_racket", "1.5", "NaN", "\u0000", "é"])  # fmt: skip
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return [rng.choice(NUMBERS) for _ in range(rng.choice([0, 2, 3, 3, 3, 4, 6, 7]))]
    if kind == 5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 6:
        return {rng.choice(FIELDS): _value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if kind == 7:
        return {"bodies": [{f: _value(rng, depth + 1) for f in rng.sample(FIELDS, 3)}]}
    return {"target": [rng.uniform(-3, 3) for _ in range(3)], "stiffness": rng.uniform(0, 50)}


def _message(rng: random.Random, i: int) -> str:
    roll = rng.random()
    if roll < 0.03:
        return rng.choice(["", "{", "[]", "null", "42", '"x"', "{" * 5000, '{"type": NaN}'])
    msg: dict[str, Any] = {"type": rng.choice([*CLIENT_MESSAGES, "nope", 7])}
    for name in rng.sample(FIELDS, rng.randrange(4)):
        msg[name] = _value(rng)
    msg["id"] = i
    text = json.dumps(msg, allow_nan=True)
    if roll < 0.06:  # a key twice
        text = text[:-1] + f', "id": {i}}}'
    elif roll < 0.09:  # non-finite literals in place of a number
        text = text.replace("1e+200", rng.choice(["NaN", "Infinity", "1e400"]))
    return text


def test_the_protocol_answers_every_fuzzed_message_and_stays_finite() -> None:
    rng = random.Random(20261203)
    settings = Settings(rate_limit=1e6, flood_window=1.0, max_clients_per_room=10)
    replies: dict[str, int] = {}
    with TestClient(create_app(settings)) as client:
        with client.websocket_connect("/ws?room=fuzz") as ws:
            while ws.receive_json()["type"] != "hello":  # joined: the room exists (its physics
                pass  # loads with the first room, after the websocket is accepted)
            room = client.app.state.rooms.get("fuzz")  # type: ignore[attr-defined]
            for i in range(CASES):
                ws.send_text(_message(rng, i))
                while True:  # the next ack or error answers this message (one at a time)
                    reply = ws.receive_json()
                    if reply["type"] in ("ack", "error"):
                        break
                kind = reply["type"] if reply["type"] == "ack" else reply["code"]
                replies[kind] = replies.get(kind, 0) + 1
                assert kind != "internal", reply
                if i % 50 == 0:
                    assert np.isfinite(room.sim.state_array()).all(), i
    assert sum(replies.values()) == CASES
    assert replies.get("ack", 0) > 200, replies  # the fuzzer reaches real handling too
    assert len(replies) >= 4, replies  # and several kinds of refusal


def _mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        if len(text) < 2 or "\n" not in text:
            break
        roll = rng.random()
        if roll < 0.35:  # an attribute value replaced
            quotes = [i for i, c in enumerate(text) if c == '"']
            if len(quotes) >= 2:
                k = rng.randrange(len(quotes) // 2) * 2
                a, b = quotes[k], quotes[k + 1]
                junk = rng.choice(JUNK)
                text = text[: a + 1] + junk + text[b:]
        elif roll < 0.5:  # cut short
            text = text[: rng.randrange(len(text))]
        elif roll < 0.6:  # a line dropped
            lines = text.splitlines()
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif roll < 0.7:  # a line repeated
            lines = text.splitlines()
            j = rng.randrange(len(lines))
            lines.insert(j, lines[j])
            text = "\n".join(lines)
        elif roll < 0.8:  # random characters
            j = rng.randrange(len(text))
            text = text[:j] + "".join(rng.choice('<>&"=/ \n\x00ü;') for _ in range(3)) + text[j:]
        elif roll < 0.9:  # a name changed
            text = text.replace(rng.choice(["Mass", "Lib", "Pos", "TOutput", "stepsize",
                                            "Quater", "Contents"]), "Bogus", 1)  # fmt: skip
        else:
            text = rng.choice(["<!DOCTYPE x [<!ENTITY a 'b'>]>", "<?xml version='1.0'?>"]) + text
    return text


def test_the_xml_reader_refuses_or_reads_every_fuzzed_file() -> None:
    rng = random.Random(7)
    seeds = [scenario_to_xml(p.scenario()) for p in PRESETS.values()]  # water presets too
    read = refused = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # files that read with warnings are fine
        for i in range(CASES):
            text = _mutate(rng, rng.choice(seeds))
            try:
                scenario = scenario_from_xml(text, f"fuzz{i}.xml")
            except ScenarioFileError as exc:
                assert str(exc).startswith(f"fuzz{i}.xml"), str(exc)
                refused += 1
                continue
            assert np.isfinite(scenario.initial_states()).all()
            assert np.isfinite(scenario.inputs()).all()
            read += 1
    assert read > 300 and refused > 300, (read, refused)
