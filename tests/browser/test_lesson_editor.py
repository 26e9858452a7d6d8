"""The lesson editor of the lecturer's view (frontend/src/class/editor.js): a lesson written
on the page, a preset's step and a Share link's (a link made in the test, pasted whole),
saved with the token, is in the step chooser at once; its first step loads into two rooms
and Next step loads the second. A step naming an unknown link is refused with the server's
reason beside that step, and nothing is kept. axe finds nothing serious in the open editor."""

from __future__ import annotations

import json
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from a11ykit import low_contrast, serious
from classkit import Viewer, class_page, hellos
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served, page_server, require_page

from sixdof.scenario.presets import PRESETS

TOKEN = "lecturer-token"
ROOMS = ["group-a", "group-b"]
FIRST = "Which axis is unstable?"
SECOND = "Where will it be in a second?"


def post(server: Served, path: str, body: Any) -> Any:
    request = urllib.request.Request(
        f"{server.url}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def lessons(server: Served) -> list[dict[str, Any]]:
    request = urllib.request.Request(
        f"{server.url}/api/lessons", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return list(json.loads(reply.read()))


def add_preset(page: Page, name: str) -> None:
    page.select_option("#add-preset", name)
    page.click("#add-preset-step")


def add_link(page: Page, text: str) -> None:
    page.fill("#add-share", text)
    page.press("#add-share", "Enter")  # Enter adds the link; it does not save the lesson


def steps(page: Page) -> list[tuple[str, str, str]]:
    """The editor's steps: (kind, what it names, question)."""
    rows = page.evaluate(
        "() => [...document.querySelectorAll('#lesson-steps .lesson-step')].map((li) =>"
        " [li.dataset.kind, li.dataset.ref, li.querySelector('.step-question').value])"
    )
    return [tuple(row) for row in rows]


STEP_CONTROLS = ("#step", "#load-step", "#next-step")


def nothing_to_step(page: Page) -> bool:
    """No lesson saved: the step chooser says so (once the page has asked for the lessons),
    and it and its two buttons are disabled."""
    page.wait_for_function("document.querySelectorAll('#step option').length > 0", timeout=WAIT_MS)
    said = page.eval_on_selector_all("#step option", "(os) => os.map((o) => o.textContent)")
    return said == ["no lessons yet: write one"] and all(page.is_disabled(c) for c in STEP_CONTROLS)


def test_a_lesson_written_on_the_page_is_saved_and_stepped_through(
    browser: Browser, tmp_path: Path
) -> None:
    require_page()
    server = page_server(token=TOKEN, log=tmp_path / "serve.log")
    try:
        with ExitStack() as stack:
            viewers = [Viewer(stack, server, room) for room in ROOMS]
            source = Viewer(stack, server, "source")  # the room the Share link is made of
            with class_page(browser, server, f"token={TOKEN}&prefix=group-") as page:
                page.wait_for_function(
                    "document.querySelectorAll('.tile').length === 2 &&"
                    " document.querySelectorAll('#add-preset option').length > 0",
                    timeout=WAIT_MS,
                )
                load = {"type": "load_scenario", "preset": "spin_up"}
                post(server, "/api/class/act", {"rooms": ["source"], "message": load})
                hellos(page, [source], lambda h: h.get("preset") == "spin_up")
                link = post(server, "/api/rooms/source/share?what=start", {})["id"]
                page.click("#edit-lesson")
                assert page.evaluate("document.activeElement.id") == "lesson-title"
                page.keyboard.type("Spinning")

                # a step naming a link the server does not know: refused by that step
                add_preset(page, "tennis_racket")
                add_link(page, "no-such-link")
                page.click("#lesson-save")
                page.wait_for_function(
                    "document.querySelector('#lesson-result').textContent.startsWith('not saved')",
                    timeout=WAIT_MS,
                )
                reason = page.inner_text("#lesson-steps .lesson-step:nth-child(2) .step-error")
                assert "no Share link 'no-such-link'" in reason, reason
                assert page.inner_text("#lesson-steps .lesson-step:nth-child(1) .step-error") == ""
                focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
                assert focused == "Question of step 2"  # the keyboard is taken to the step
                assert serious(page) == [] and low_contrast(page) == []
                assert lessons(server) == []  # nothing kept
                assert nothing_to_step(page)

                # mended: the bad step removed, the link pasted whole, the order changed
                page.click("button[aria-label='Remove step 2']")
                add_link(page, f"{server.url}/?room=new&snapshot={link}")
                page.fill("#lesson-steps .lesson-step:nth-child(1) .step-question", FIRST)
                page.fill("#lesson-steps .lesson-step:nth-child(2) .step-question", SECOND)
                add_preset(page, "free_fall")
                page.focus("button[aria-label='Move step 3 up']")
                page.keyboard.press("Enter")  # free fall becomes step 2, and then goes
                assert [s[1] for s in steps(page)] == ["tennis_racket", "free_fall", link]
                page.keyboard.press("Enter")  # the focus stays on the moved step: now first
                assert [s[1] for s in steps(page)] == ["free_fall", "tennis_racket", link]
                page.click("button[aria-label='Remove step 1']")
                assert steps(page) == [
                    ("preset", "tennis_racket", FIRST), ("share", link, SECOND)
                ]  # fmt: skip
                assert serious(page) == [] and low_contrast(page) == []
                page.click("#lesson-save")
                page.wait_for_function(
                    "document.querySelector('#lesson-result').textContent.startsWith('saved')",
                    timeout=WAIT_MS,
                )
                saved = lessons(server)
                assert [(x["title"], x["steps"]) for x in saved] == [("Spinning", 2)]
                assert steps(page) == []  # the editor is ready for the next lesson
                # in the step chooser at once, its first step chosen
                chosen = json.loads(page.eval_on_selector("#step", "(s) => s.value"))
                assert chosen == {"lesson": saved[0]["id"], "step": 0}
                assert not any(page.is_disabled(c) for c in STEP_CONTROLS)

                page.click("#select-all")
                page.click("#load-step")
                page.wait_for_function(
                    "document.querySelector('#result').textContent.startsWith('lesson_step: 2')",
                    timeout=WAIT_MS,
                )
                hellos(page, viewers, lambda h: h.get("preset") == "tennis_racket"
                       and (h.get("question") or {}).get("text") == FIRST)  # fmt: skip
                page.click("#next-step")  # the Share link's scenario, from its start
                spin_up = PRESETS["spin_up"].scenario().name
                hellos(page, viewers, lambda h: h["scenario"]["name"] == spin_up
                       and (h.get("question") or {}).get("text") == SECOND)  # fmt: skip
    finally:
        server.stop()
    server.check_log(TOKEN)


def test_a_scenario_file_becomes_a_saved_scenarios_step(browser: Browser, tmp_path: Path) -> None:
    """A scenario file is saved as it is added (its step names the saved id, and the saved
    scenarios list has it the next time the editor opens); a file the server refuses is
    said so, with its reason, and adds no step."""
    require_page()
    server = page_server(token=TOKEN, log=tmp_path / "serve.log")
    mine = PRESETS["free_fall"].scenario().model_copy(update={"name": "my drop"})
    good = tmp_path / "drop.json"
    good.write_text(mine.model_dump_json())
    bad = tmp_path / "broken.json"
    bad.write_text('{"name": "x", "bodies": [{"Name": "B", "Mass": -1}]}')
    try:
        with class_page(browser, server, f"token={TOKEN}") as page:
            page.wait_for_function(
                "document.querySelectorAll('#add-preset option').length > 0", timeout=WAIT_MS
            )
            page.click("#edit-lesson")
            page.set_input_files("#add-file", str(bad))
            page.wait_for_function(
                "document.querySelector('#add-error').textContent.includes('was not saved')",
                timeout=WAIT_MS,
            )
            assert "Mass" in page.inner_text("#add-error"), page.inner_text("#add-error")
            assert steps(page) == []
            page.set_input_files("#add-file", str(good))
            page.wait_for_function(
                "document.querySelectorAll('#lesson-steps .lesson-step').length === 1",
                timeout=WAIT_MS,
            )
            ((kind, sid, _),) = steps(page)
            assert kind == "scenario"
            request = urllib.request.Request(
                f"{server.url}/api/scenarios/{sid}", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            with urllib.request.urlopen(request, timeout=30) as reply:
                assert json.loads(reply.read())["name"] == "my drop"
            page.click("#lesson-close")
            page.click("#edit-lesson")
            page.wait_for_function(
                "(sid) => [...document.querySelectorAll('#add-saved option')]"
                ".some((o) => o.value === sid && o.text.startsWith('my drop'))",
                arg=sid, timeout=WAIT_MS,
            )  # fmt: skip
            page.click("#add-saved-step")
            assert [s[:2] for s in steps(page)] == [("scenario", sid)] * 2
    finally:
        server.stop()
    server.check_log(TOKEN)
