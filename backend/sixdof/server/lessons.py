"""Lessons: an ordered list of steps (a preset, a saved scenario or a Share link) with a
title and the question each step asks; and the saved scenarios they name. Both live in the
server's store (sixdof.store).

A lesson is written as the lecturer sends it, from the page or as a file (`lesson.json`);
a file may carry a step's scenario inline (`"scenario": {…}`), which is saved and named by
its id. Every step's reference is checked when the lesson is saved, and what it names is
pinned: a lesson's scenarios and links are never pushed out by newer ones. The pins, the
inline scenarios and the lesson are written in one transaction (`Store.apply`): a crash
or a refusal part way leaves no pin without its lesson. Deleting the lesson unpins, in its
transaction, what no other lesson names. The record's shape is the store's (store/kinds.py).

Every function here blocks on the store: the routes (lesson_routes.py) call them in the
requests' pool.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..scenario import Scenario
from ..store import Caps, Change, Delete, Pin, Put, Store, StoreMissing
from ..store.kinds import LESSON, SCENARIO, SHARE, references
from . import presets
from .errors import Refusal
from .snapshots import MAX_ID_CHARS, Snapshots

#: Lessons kept at most; a lesson is never dropped by age, so the next one is refused.
MAX_LESSONS = 256
MAX_STEPS = 64
#: Saved scenarios not named by a lesson: the latest this many (a lesson's are pinned).
SCENARIO_CAPS = Caps(max_count=256, max_bytes=32 * 1024 * 1024)


class LessonStep(BaseModel):
    """One step: exactly one of `preset`, `scenario` (a saved scenario's id, or one inline
    in a file) and `share` (a Share link's id), and the question it asks."""

    model_config = ConfigDict(extra="forbid")
    preset: str | None = Field(None, max_length=64)
    scenario: str | Scenario | None = None
    share: str | None = Field(None, max_length=MAX_ID_CHARS)
    question: str = Field("", max_length=2000)

    @model_validator(mode="after")
    def _one_source(self) -> LessonStep:
        given = [k for k in ("preset", "scenario", "share") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"a step names exactly one of preset, scenario, share; got {given or 'none'}"
            )
        return self


class Lesson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200)
    steps: list[LessonStep] = Field(min_length=1, max_length=MAX_STEPS)


class LessonRefused(Exception):
    """A lesson that cannot be kept: `field` (e.g. `steps.2.share`) and why, or `full`."""

    def __init__(self, field: str, message: str, *, full: bool = False) -> None:
        super().__init__(message)
        self.field, self.message, self.full = field, message, full


def prepare(store: Store) -> None:
    store.limit(SCENARIO, "", SCENARIO_CAPS)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def _scenario_record(scenario: Scenario) -> tuple[str, bytes]:
    """A scenario's id (the start of the SHA-256 of its JSON) and its stored bytes."""
    data = _dumps(scenario.model_dump(mode="json"))
    return hashlib.sha256(data).hexdigest()[:24], data


def save_scenario(store: Store, scenario: Scenario) -> str:
    """Keep `scenario`; its id (the same scenario saved twice is kept once)."""
    sid, data = _scenario_record(scenario)
    if store.get(SCENARIO, sid) is None:
        store.put(SCENARIO, sid, data)
    return sid


def get_scenario(store: Store, sid: str) -> Scenario | None:
    data = store.get(SCENARIO, sid) if len(sid) <= MAX_ID_CHARS else None
    return None if data is None else Scenario.model_validate_json(data)


def list_scenarios(store: Store) -> list[dict[str, Any]]:
    out = []
    for info in store.info(SCENARIO):
        data = store.get(SCENARIO, info.key)
        name = json.loads(data).get("name", "") if data is not None else ""
        out.append({"id": info.key, "name": name, "bytes": info.nbytes,
                    "pinned": info.pinned, "created": info.created})  # fmt: skip
    return out


def save_lesson(store: Store, lesson: Lesson) -> str:
    """Check the lesson's steps, then save its inline scenarios, pin what it names and keep
    it in one transaction; its id. LessonRefused naming the step that names nothing known
    (checked first, and again by the transaction's pins), or when full."""
    if store.usage(LESSON)[0] >= MAX_LESSONS:
        raise LessonRefused(
            "lesson", f"{MAX_LESSONS} lessons are kept already: delete one first", full=True
        )
    changes: list[Change] = []
    steps = [_step(store, f"steps.{i}", step, changes) for i, step in enumerate(lesson.steps)]
    record = {"title": lesson.title, "steps": steps}
    changes += [Pin(kind, key) for kind, key in references(record)]
    lid = secrets.token_urlsafe(9)
    changes.append(Put(LESSON, lid, _dumps(record), pinned=True))
    try:
        store.apply(changes)
    except StoreMissing as exc:  # dropped since it was checked (a burst of newer links)
        i = next(i for i, s in enumerate(steps) if s.get(exc.kind) == exc.key)
        raise _missing(f"steps.{i}", exc.kind, exc.key) from None
    return lid


def _missing(where: str, kind: str, key: str) -> LessonRefused:
    if kind == SHARE:
        return LessonRefused(
            f"{where}.share",
            f"{where}.share: no Share link {key!r} (kept while newer ones leave it room, "
            "unless a lesson names it): make the link again",
        )
    return LessonRefused(f"{where}.scenario", f"{where}.scenario: no saved scenario {key!r}")


def _step(store: Store, where: str, step: LessonStep, changes: list[Change]) -> dict[str, Any]:
    """The stored form of a step, checked; an inline scenario's write added to `changes`."""
    out: dict[str, Any] = {"question": step.question}
    if step.preset is not None:
        try:
            presets.scenario(step.preset)
        except Refusal as exc:
            raise LessonRefused(f"{where}.preset", f"{where}.preset: {exc.message}") from None
        out["preset"] = step.preset
    elif isinstance(step.scenario, Scenario):
        sid, data = _scenario_record(step.scenario)
        changes.append(Put(SCENARIO, sid, data, pinned=True))
        out["scenario"] = sid
    else:
        kind, key = (SCENARIO, step.scenario) if step.scenario is not None else (SHARE, step.share)
        assert key is not None
        if store.get(kind, key) is None:
            raise _missing(where, kind, key)
        out[kind] = key
    return out


def get_lesson(store: Store, lid: str) -> dict[str, Any] | None:
    data = store.get(LESSON, lid) if len(lid) <= MAX_ID_CHARS else None
    return None if data is None else {"id": lid, **json.loads(data)}


def list_lessons(store: Store) -> list[dict[str, Any]]:
    out = []
    for info in store.info(LESSON):
        lesson = get_lesson(store, info.key)
        if lesson is not None:
            out.append({"id": info.key, "title": lesson["title"],
                        "steps": len(lesson["steps"]), "created": info.created})  # fmt: skip
    return out


def step_load(
    store: Store, snapshots: Snapshots, lid: str, index: int
) -> tuple[dict[str, Any], str, str | None]:
    """What loading step `index` of lesson `lid` into a room takes: the `load_scenario`
    message, the question the room asks then (the step's, else its preset's) and the preset
    whose question that is, if one. A Share link's step loads the link's scenario from its start.
    LessonRefused naming the lesson or the step when it is not there (any more)."""
    lesson = get_lesson(store, lid)
    if lesson is None:
        raise LessonRefused("lesson", f"lesson: no lesson {lid[:64]!r}")
    steps: list[dict[str, Any]] = lesson["steps"]
    if not 0 <= index < len(steps):
        raise LessonRefused(
            "step", f"step: the lesson has steps 0 to {len(steps) - 1}, not {index}"
        )
    step, where = steps[index], f"steps.{index}"
    question = str(step.get("question", ""))
    if "preset" in step:
        name = str(step["preset"])
        load = {"type": "load_scenario", "preset": name}
        # the step's own question is shown as written; the preset's, in the page's language
        return (load, question, None) if question else (load, presets.question(name), name)
    if "scenario" in step:
        data = store.get(SCENARIO, step["scenario"])
        if data is None:
            raise _missing(where, SCENARIO, step["scenario"])
        return {"type": "load_scenario", "scenario": json.loads(data)}, question, None
    snapshot = snapshots.get(step["share"])
    if snapshot is None:
        raise _missing(where, SHARE, step["share"])
    return {"type": "load_scenario", "scenario": snapshot.keyframe["scenario"]}, question, None


def delete_lesson(store: Store, lid: str) -> bool:
    """Delete the lesson and unpin what no other lesson names, in one transaction."""
    lesson = get_lesson(store, lid)
    if lesson is None:
        return False
    still = {ref for other in list_lessons(store) if other["id"] != lid
             for ref in references(get_lesson(store, other["id"]) or {})}  # fmt: skip
    unpins = [Pin(*ref, pinned=False) for ref in references(lesson) if ref not in still]
    store.apply([Delete(LESSON, lid), *unpins])
    return True
