"""The page's BEM job (issue 43): in the Water folder, Compute hydrodynamics (BEM) runs
`sixdof bem` on the server for the floating body (the buoy: 160 panels, a few seconds), a line
follows its frequencies, and Add radiation damping puts a `radiation` element with the fitted
memory into the room: the hello that comes back has it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from a11ykit import open_in
from playwright.sync_api import Browser
from support.pagekit import PageRun, Served, load_preset, open_folder


@pytest.fixture
def run(browser: Browser, server: Served) -> Iterator[PageRun]:
    page_run = open_in(browser, server.url, "en")  # waits out a cold compile (180 s)
    yield page_run
    page_run.close()


def test_the_page_computes_the_hulls_hydrodynamics_and_adds_its_damping(run: PageRun) -> None:
    page = run.page
    load_preset(page, "buoy_in_waves")
    open_folder(page, ".sixdof-water")
    open_folder(page, ".sixdof-bem")
    bem = page.locator(".sixdof-bem")
    status = page.locator(".sixdof-bem-status")
    bem.get_by_role("button", name="Compute hydrodynamics (BEM)").click()
    # the progress line, then the fit (a BEM job of the buoy takes seconds of a core)
    page.wait_for_function(
        "/Buoy: \\d+ of \\d+ frequencies solved \\(160 panels\\)|Buoy: done/"
        ".test(document.querySelector('.sixdof-bem-status').textContent)",
        timeout=300_000,
    )
    page.wait_for_function(
        "/Buoy: done|BEM:/.test(document.querySelector('.sixdof-bem-status').textContent)",
        timeout=300_000,
    )
    text = status.inner_text()
    assert text.startswith("Buoy: done; radiation memory of "), text
    assert (
        page.evaluate("__sixdof.hello.scenario.elements.some((e) => e.kind === 'radiation')")
        is False
    )
    before = page.evaluate("__sixdof.helloCount")
    bem.get_by_role("button", name="Add radiation damping").click()
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements.some("
        "(e) => e.kind === 'radiation' && e.body === 'Buoy')",
        arg=before,
    )
    radiation = page.evaluate(
        "__sixdof.hello.scenario.elements.find((e) => e.kind === 'radiation')"
    )
    assert len(radiation["fit"]["A"]) >= 1 and len(radiation["fit"]["infinite"]) == 6
    assert radiation["fit"]["infinite"][2][2] > 0  # the heave's added mass at infinity
    page.wait_for_function(
        "/radiation damping added/.test(document.querySelector('.sixdof-bem-status').textContent)"
    )
    # the room runs on with it
    t = page.evaluate("__sixdof.lastState.t")
    page.wait_for_function("(t) => __sixdof.lastState.t > t + 0.5", arg=t)
