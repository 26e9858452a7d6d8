"""The lecturer's view (/class/, frontend/src/class/): twelve groups' rooms as tiles whose
bodies move, a preset and then a lesson's step loaded into all of them (every room's viewers
get the new hello, the step's with its question), all paused; a watch-only page and a wrong
token are refused. Three students' pages answer the step's question in their answer box and
the tiles tally each group's answers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest
from classkit import Viewer, class_page, hellos
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served, open_page, page_server, require_page

from sixdof.scenario.presets import PRESETS

TOKEN = "lecturer-token"
GROUPS = [f"group-{i:02d}" for i in range(12)]
QUESTION = "Which way will the handle turn?"


def save_lesson(server: Served) -> str:
    lesson = {"title": "Spin", "steps": [
        {"preset": "tennis_racket", "question": QUESTION}, {"preset": "free_fall"}]}  # fmt: skip
    request = urllib.request.Request(
        f"{server.url}/api/lessons", data=json.dumps(lesson).encode(), method="POST",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as reply:
        return str(json.loads(reply.read())["id"])


def tile_times(page: Page) -> dict[str, float]:
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('.tile')]"
        ".map((t) => [t.dataset.room, Number(t.dataset.t)]))"
    )


def test_the_class_view_shows_every_group_loads_and_pauses_them(
    browser: Browser, tmp_path: Path
) -> None:
    require_page()
    server = page_server(token=TOKEN, log=tmp_path / "serve.log")
    try:
        save_lesson(server)
        with ExitStack() as stack:
            viewers = [Viewer(stack, server, room) for room in GROUPS]
            with class_page(browser, server, f"token={TOKEN}&prefix=group-") as page:
                page.wait_for_function("document.querySelectorAll('.tile').length === 12",
                                       timeout=WAIT_MS)  # fmt: skip
                before = tile_times(page)
                assert sorted(before) == GROUPS
                page.wait_for_function(  # every group's body moves: its time goes on
                    "(t0) => [...document.querySelectorAll('.tile')]"
                    ".every((t) => Number(t.dataset.t) > t0[t.dataset.room] + 0.2)",
                    arg=before, timeout=WAIT_MS,
                )  # fmt: skip
                pixels = page.evaluate(
                    "() => [...document.querySelectorAll('.tile canvas')].map((c) => c.getContext("
                    "'2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3"
                    " && v > 0))"
                )
                assert all(pixels), pixels  # each tile draws its body
                page.click("#select-all")
                page.select_option("#preset", "spin_up")
                page.click("#load")
                page.wait_for_function(
                    "document.querySelector('#result').textContent.startsWith('load_scenario: 12')",
                    timeout=WAIT_MS,
                )
                hellos(page, viewers, lambda h: h.get("preset") == "spin_up")
                page.wait_for_function("document.querySelectorAll('#step option').length === 2",
                                       timeout=WAIT_MS)  # fmt: skip
                page.click("#load-step")  # the lesson's first step, into every room
                page.wait_for_function(
                    "document.querySelector('#result').textContent.startsWith('lesson_step: 12')",
                    timeout=WAIT_MS,
                )
                hellos(page, viewers, lambda h: (h.get("question") or {}).get("text") == QUESTION
                       and h.get("preset") == "tennis_racket")  # fmt: skip
                page.click("#pause")
                page.wait_for_function(
                    "[...document.querySelectorAll('.tile')]"
                    ".every((t) => t.dataset.running === 'false')",
                    timeout=WAIT_MS,
                )
                link = page.locator(".tile[data-room='group-03'] a").get_attribute("href")
                assert link is not None and "room=group-03" in link  # the room, full size
    finally:
        server.stop()
    server.check_log(TOKEN)


@pytest.mark.parametrize("query", ["prefix=group-", "token=wrong"])
def test_a_watch_page_or_a_wrong_token_gets_no_class_view(
    browser: Browser, tmp_path: Path, query: str
) -> None:
    require_page()
    server = page_server(token=TOKEN, log=tmp_path / "serve.log")
    try:
        with class_page(browser, server, query) as page:
            page.wait_for_function(
                "document.querySelector('#status').dataset.state === 'error'", timeout=WAIT_MS
            )
            assert "needs the lecturer's token" in page.inner_text("#status")
            assert page.locator(".tile").count() == 0
        request = urllib.request.Request(f"{server.url}/api/class/rooms")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        info.value.close()
        assert info.value.code == 403
    finally:
        server.stop()


def wait_question(page: Page, text: str) -> None:
    page.wait_for_function(
        "(text) => { const f = document.querySelector('#answer');"
        " return !f.hidden && f.querySelector('.answer-question').textContent.includes(text); }",
        arg=text, timeout=WAIT_MS,
    )  # fmt: skip


def answer(page: Page, text: str) -> None:
    page.fill("#answer input", text)
    page.click("#answer button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#answer .answer-status').textContent.includes('sent')",
        timeout=WAIT_MS,
    )


def test_students_answer_and_the_class_view_tallies_then_steps_on(
    browser: Browser, tmp_path: Path
) -> None:
    require_page()
    server = page_server("--data", str(tmp_path / "data"), token=TOKEN, log=tmp_path / "serve.log")
    students = []
    try:
        save_lesson(server)
        groups = ["group-a", "group-a", "group-b"]
        students = [open_page(browser, server.url, room=room) for room in groups]
        for run in students:
            assert run.page.evaluate("() => __sixdof.hello.can_control") is False
            assert run.page.locator("#answer").is_hidden()  # no question asked yet
            # a student's page cannot read the class view
            status = run.page.evaluate("() => fetch('/api/class/rooms').then((r) => r.status)")
            assert status == 403
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            lecturer = context.new_page()
            errors: list[str] = []
            lecturer.on("pageerror", lambda exc: errors.append(str(exc)))
            lecturer.goto(f"{server.url}/class/?token={TOKEN}&prefix=group-")
            lecturer.wait_for_function(
                "document.querySelectorAll('.tile').length === 2 &&"
                " document.querySelectorAll('#step option').length === 2",
                timeout=WAIT_MS,
            )
            lecturer.click("#select-all")
            lecturer.click("#load-step")  # the lesson's first step
            for run in students:
                wait_question(run.page, QUESTION)
            for run, text in zip(students, ["It flips over.", "it flips over", "Stays"],
                                 strict=True):  # fmt: skip
                answer(run.page, text)
            lecturer.wait_for_function(
                "() => { const n = (room) => document.querySelector(`.tile[data-room=${room}]`)"
                ".dataset.answers; return n('group-a') === '2' && n('group-b') === '1'; }",
                timeout=WAIT_MS,
            )
            tally = lecturer.inner_text(".tile[data-room=group-a] .tile-tally")
            assert QUESTION in tally and "2 × it flips over" in tally, tally
            assert "1 × stays" in lecturer.inner_text(".tile[data-room=group-b] .tile-tally")
            lecturer.click("#next-step")  # free fall: the preset's own question
            following = PRESETS["free_fall"].question.split(":")[0]
            for run in students:
                wait_question(run.page, following)
            lecturer.wait_for_function(
                "[...document.querySelectorAll('.tile')].every((t) => t.dataset.answers === '0')",
                timeout=WAIT_MS,
            )
            lecturer.click("#next-step")  # past the last step: said, nothing sent
            lecturer.wait_for_function(
                "document.querySelector('#result').textContent.includes('no next step')",
                timeout=WAIT_MS,
            )
            assert not errors, errors
        finally:
            context.close()
        for run in students:
            assert run.page.evaluate("() => __sixdof.hello.scenario.name") == (
                PRESETS["free_fall"].scenario().name
            )
    finally:
        for run in students:
            run.close()
        server.stop()
    server.check_log(TOKEN)
