"""REST routes of lessons and saved scenarios (lessons.py), all needing the token when the
server has one: a lesson is the lecturer's. Writes are charged to the address's budget as a
Share link is, and every read and write of the store runs in the requests' pool.

    POST   /api/scenarios        a Scenario          -> {"id"}
    GET    /api/scenarios                            -> [{"id", "name", "bytes", …}]
    GET    /api/scenarios/{id}                       -> the Scenario
    POST   /api/lessons          a lesson (or file)  -> {"id", "title", "steps"}
    GET    /api/lessons                              -> [{"id", "title", "steps", …}]
    GET    /api/lessons/{id}                         -> {"id", "title", "steps": [...]}
    DELETE /api/lessons/{id}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Header, HTTPException, Query, Request
from pydantic import ValidationError

from ..scenario import Scenario
from ..store import Store, StoreError
from . import lessons
from .errors import Refusal, strict_loads
from .pools import off_loop
from .request_body import capped_body
from .rest import _require_control, scenario_from_body
from .rest_budget import admit, charged
from .settings import Settings
from .stored import INSUFFICIENT_STORAGE, store_refusal
from .ws import origin_allowed

router = APIRouter(prefix="/api")
T = TypeVar("T")

#: A lesson file may carry its scenarios inline: up to this many bytes.
LESSON_BYTES = 1024 * 1024
#: The least a saved lesson or scenario costs its address's budget, s (as a Share link).
SAVE_COST = 0.05

Token = Annotated[str | None, Query()]
Authorization = Annotated[str | None, Header()]


def _store(request: Request, token: str | None, authorization: str | None) -> Store:
    _require_control(request, request.app.state.settings, token, authorization)
    store: Store = request.app.state.store
    return store


def _writable(request: Request, token: str | None, authorization: str | None) -> Store:
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not save lessons (see --allow-origin)")
    return _store(request, token, authorization)


async def _stored(fn: Callable[..., T], *args: Any) -> T:
    try:
        return await off_loop(fn, *args)
    except StoreError as exc:
        raise store_refusal(exc) from None


def _lesson_from_body(body: bytes) -> lessons.Lesson:
    try:
        return lessons.Lesson.model_validate(strict_loads(body))
    except Refusal as exc:
        raise HTTPException(400, exc.message) from None
    except ValidationError as exc:
        raise HTTPException(422, exc.errors(include_url=False, include_context=False)) from None


def _save_lesson(store: Store, body: bytes) -> dict[str, Any]:
    lesson = _lesson_from_body(body)
    try:
        lid = lessons.save_lesson(store, lesson)
    except lessons.LessonRefused as exc:
        if exc.full:
            raise HTTPException(INSUFFICIENT_STORAGE, exc.message) from None
        detail = [{"loc": ["body", *exc.field.split(".")], "msg": exc.message}]
        raise HTTPException(422, detail) from None
    return {"id": lid, "title": lesson.title, "steps": len(lesson.steps)}


@router.post("/scenarios")
async def save_scenario(
    request: Request, token: Token = None, authorization: Authorization = None
) -> dict[str, str]:
    """Keep a scenario for lessons; {"id"} (the same scenario twice: the same id)."""
    store = _writable(request, token, authorization)
    settings: Settings = request.app.state.settings
    budget = admit(request, "scenario", SAVE_COST)
    body = await capped_body(request, settings.max_message_bytes)
    with charged(budget, SAVE_COST):
        scenario = await off_loop(scenario_from_body, body)
        sid = await _stored(lessons.save_scenario, store, scenario)
    return {"id": sid}


@router.get("/scenarios")
async def list_scenarios(
    request: Request, token: Token = None, authorization: Authorization = None
) -> list[dict[str, Any]]:
    return await _stored(lessons.list_scenarios, _store(request, token, authorization))


@router.get("/scenarios/{sid}", response_model=Scenario)
async def get_saved_scenario(
    request: Request, sid: str, token: Token = None, authorization: Authorization = None
) -> Scenario:
    scenario = await _stored(lessons.get_scenario, _store(request, token, authorization), sid)
    if scenario is None:
        raise HTTPException(404, f"no saved scenario {sid[:64]!r}")
    return scenario


@router.post("/lessons")
async def save_lesson(
    request: Request, token: Token = None, authorization: Authorization = None
) -> dict[str, Any]:
    """Keep a lesson: {"title", "steps": [{"preset"|"scenario"|"share", "question"}]};
    a step's scenario may be inline (a lesson file). 422 naming a step that names nothing
    known; 507 when the store is full."""
    store = _writable(request, token, authorization)
    budget = admit(request, "lesson", SAVE_COST)
    body = await capped_body(request, LESSON_BYTES)
    with charged(budget, SAVE_COST):
        return await _stored(_save_lesson, store, body)


@router.get("/lessons")
async def list_lessons(
    request: Request, token: Token = None, authorization: Authorization = None
) -> list[dict[str, Any]]:
    return await _stored(lessons.list_lessons, _store(request, token, authorization))


@router.get("/lessons/{lid}")
async def get_lesson(
    request: Request, lid: str, token: Token = None, authorization: Authorization = None
) -> dict[str, Any]:
    lesson = await _stored(lessons.get_lesson, _store(request, token, authorization), lid)
    if lesson is None:
        raise HTTPException(404, f"no lesson {lid[:64]!r}")
    return lesson


@router.delete("/lessons/{lid}")
async def delete_lesson(
    request: Request, lid: str, token: Token = None, authorization: Authorization = None
) -> dict[str, bool]:
    store = _writable(request, token, authorization)
    if not await _stored(lessons.delete_lesson, store, lid):
        raise HTTPException(404, f"no lesson {lid[:64]!r}")
    return {"deleted": True}
