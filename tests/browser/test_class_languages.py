"""The lecturer's view in the lab's languages (frontend/src/class/, core/i18n.js): its own
texts, its tiles and the lesson editor's rows come from the catalogue of ?lang=, and none of
its English is left in German or Norwegian (the server's reasons stay in its English)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest
from classkit import Viewer, class_page
from playwright.sync_api import Browser
from support.pagekit import WAIT_MS, page_server, require_page

TOKEN = "lecturer-token"
LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["de", "nb"])
def test_the_class_view_speaks_the_asked_language(
    browser: Browser, tmp_path: Path, lang: str
) -> None:
    require_page()
    own, english = catalogue(lang), catalogue("en")
    server = page_server(token=TOKEN, log=tmp_path / "serve.log")
    try:
        query = f"token={TOKEN}&lang={lang}"
        with ExitStack() as stack, class_page(browser, server, query) as page:
            Viewer(stack, server, "group-a")  # a room, watched by one student
            page.wait_for_function(
                "document.querySelectorAll('.tile .tile-info').length === 1"
                " && document.querySelector('.tile .tile-info').textContent !== ''",
                timeout=WAIT_MS,
            )
            assert page.evaluate("document.documentElement.lang") == lang
            assert page.title() == own["class.doc.title"]
            marked = page.evaluate(
                "[...document.querySelectorAll('[data-i18n]')]"
                ".filter((e) => e.id !== 'status').map((e) => [e.dataset.i18n, e.textContent])"
            )
            assert len(marked) >= 25
            for key, text in marked:
                assert text == own[key], (key, text)
            labels = page.evaluate(
                "[...document.querySelectorAll('[data-i18n-attr]')].map((e) => e.getAttribute("
                "e.dataset.i18nAttr.split(':')[0]))"
            )
            assert own["class.controls"] in labels and own["class.tiles"] in labels
            status = page.inner_text("#status")
            assert status == own["class.rooms"].split("one {")[1].split("}")[0].replace("#", "1")
            info = page.inner_text(".tile .tile-info")
            viewer = own["class.tile.info"].split("one {# ")[1].split("}")[0]
            assert info.startswith(f"1 {viewer} · t = "), info
            # the lesson editor: a step's row, and the server's refusal of a lesson untitled
            page.get_by_role("button", name=own["class.write"]).click()
            page.get_by_role("button", name=own["class.editor.preset.add"]).click()
            row = page.locator("#lesson-steps .lesson-step")
            first = page.eval_on_selector("#add-preset", "(s) => s.options[0].text")
            assert first == page.eval_on_selector("#preset", "(s) => s.options[0].text")
            name = page.eval_on_selector("#add-preset", "(s) => s.value")
            title = own.get(f"preset.{name}.title")
            assert title is None or first == title, (first, title)  # the preset's own title
            assert row.locator(".step-what").inner_text() == f"{own['class.kind.preset']}: {first}"
            names = row.locator("button").evaluate_all("(bs) => bs.map((b) => b.textContent)")
            assert names == [own["class.editor.up"], own["class.editor.down"],
                             own["class.editor.remove"]]  # fmt: skip
            question = row.locator(".step-question").get_attribute("aria-label")
            assert question == own["class.editor.question.of"].replace("{n}", "1")
            page.get_by_role("button", name=own["class.editor.save"]).click()
            refused = own["class.editor.reasons"].split(":")[0]
            page.wait_for_function(
                "(p) => document.querySelector('#lesson-result').textContent.startsWith(p)",
                arg=refused,
                timeout=WAIT_MS,
            )
            # none of the view's own English is left on the page
            shown = page.evaluate("document.body.innerText")
            for key, text in english.items():
                if key.startswith("class.") and "{" not in text and own[key] != text:
                    if len(text) >= 4 and text not in own[key]:
                        assert text not in shown, (key, text)
    finally:
        server.stop()
