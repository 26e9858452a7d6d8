"""Honest edits (issue 45): the caption says "changed since the preset" after an edit of the
elements or of the water too, not only of a body's parameters; and a new element starts where
it can be seen: a spring added with the form as it opens runs from the top of the selected body
to a world point one body size above it, relaxed, not zero length at the origin."""

from __future__ import annotations

import math

import pytest
from panelkit import open_elements, open_water, type_into
from playwright.sync_api import Browser, Page
from presetsweep import load_paused
from support.pagekit import WAIT_MS, Served, open_folder, open_page, wait_frames

NOTE = "document.querySelector('#caption .caption-note')"


def note(page: Page) -> str | None:
    shown: str | None = page.evaluate(
        "(() => { const n = document.querySelector('#caption .caption-note');"
        " return n && !n.hidden ? n.textContent : null; })()"
    )
    return shown


def hello_after(page: Page, before: int, test: str) -> None:
    page.wait_for_function(
        f"(k) => __sixdof.helloCount > k && ({test})", arg=before, timeout=WAIT_MS
    )


def test_a_new_spring_is_seen_and_the_caption_says_changed(
    browser: Browser, server: Served
) -> None:
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    load_paused(page, "hover")
    assert note(page) is None
    open_elements(page)
    add = ".sixdof-element-add"
    open_folder(page, add)
    folder = page.locator(add)
    folder.get_by_label("Kind", exact=True).select_option(label="spring")
    before = page.evaluate("__sixdof.helloCount")
    folder.get_by_role("button", name="Add", exact=True).click()
    hello_after(page, before, "__sixdof.hello.scenario.elements.length === 1")
    spring = page.evaluate("__sixdof.hello.scenario.elements[0]")
    body = page.evaluate("__sixdof.hello.scenario.bodies[0]")
    box = page.evaluate("__sixdof.bodyBox()")
    # on top of the body's mesh, its far end straight above, as long as the body is big
    assert spring["point"] == pytest.approx([0, 0, box["min"][2]], abs=1e-3)
    top = [body["Pos"][k] + spring["point"][k] for k in range(3)]  # the box is not turned at t = 0
    length = math.dist(top, spring["to"])
    assert spring["to"][:2] == pytest.approx(top[:2], abs=1e-3) and spring["to"][2] < top[2]
    assert length >= 0.5
    assert spring["rest_length"] == pytest.approx(length, abs=2e-3)  # relaxed: nothing jumps
    page.wait_for_function("__sixdof.elements().length === 1 && __sixdof.elements()[0].visible")
    wait_frames(page, 2)
    drawn = page.evaluate("__sixdof.elements()[0]")
    assert drawn["length"] == pytest.approx(length, rel=0.02)
    force = page.evaluate("__sixdof.lastState.elements[0].force")
    assert math.hypot(*force) < 0.01 * body.get("Mass", 1.0) * 9.81
    # the caption says the scene is no longer the preset's
    page.wait_for_function(f"{NOTE} && !{NOTE}.hidden", timeout=WAIT_MS)
    assert "Changed since the preset" in (note(page) or "")
    assert run.errors == []
    run.close()


def test_a_water_edit_says_changed(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    load_paused(page, "floating_box")
    assert note(page) is None
    open_water(page)
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, ".sixdof-water", "Density (kg/m³)", "1000")
    hello_after(page, before, "__sixdof.hello.scenario.water.density === 1000")
    page.wait_for_function(f"{NOTE} && !{NOTE}.hidden", timeout=WAIT_MS)
    assert "Changed since the preset" in (note(page) or "")
    assert run.errors == []
    run.close()
