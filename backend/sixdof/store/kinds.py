"""The kinds of record the store holds, and what a stored lesson names: the one definition
the server's lessons (server/lessons.py) write and `sixdof export` (archive.py) follows.

A stored lesson is JSON `{"title", "steps": [step, …]}`; a step carries its `question` and
exactly one source: `preset` (a name, nothing stored), `scenario` (a saved scenario's id) or
`share` (a Share link's id). The keys of the sources that are records are those records'
kinds, so a step's reference is `(kind, step[kind])`.
"""

from __future__ import annotations

import json
from typing import Any

SHARE, SCENARIO, LESSON, MESH = "share", "scenario", "lesson", "mesh"
#: A step's sources, in the order a step is read.
STEP_SOURCES = ("preset", SCENARIO, SHARE)
#: The step sources that name a record of the store (of the kind of the same name).
STORED_SOURCES = (SCENARIO, SHARE)


def references(lesson: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, key) of the records a stored lesson's steps name, in step order."""
    refs = []
    for step in lesson.get("steps", []):
        for kind in STORED_SOURCES:
            if isinstance(step.get(kind), str):
                refs.append((kind, step[kind]))
    return refs


def lesson_references(data: bytes) -> list[tuple[str, str]]:
    """The references of a stored lesson's bytes."""
    record = json.loads(data)
    return references(record) if isinstance(record, dict) else []
