"""A fresh install's first visitor sees why the page waits (issue 32): with numba's cache
cold the server compiles the kernels before the first room, and the page shows the server's
`preparing` message in a banner until the hello comes. The cache lacks the free bodies'
kernels only (support/coldcache.py), and the compile is held while the page comes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from support.coldcache import FREE_BODIES, held_compile, partly_cold
from support.pagekit import TEST_FPS, WAIT_MS, Served, page_server, require_page, wait_connected


@contextmanager
def cold_server_page(browser: Browser, tmp_path: Path) -> Iterator[tuple[Served, Page, list[str]]]:
    """A server on the cold cache `partly_cold` set up, a desktop page (not opened yet) and
    the page's errors; the page closed and the server stopped afterwards."""
    require_page()
    srv = page_server(log=tmp_path / "serve.log")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield srv, page, errors
    finally:
        context.close()
        srv.stop()


def test_the_page_says_the_physics_is_being_prepared(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    partly_cold(tmp_path / "numba", monkeypatch)
    with cold_server_page(browser, tmp_path) as (srv, page, errors):
        banner = page.locator("[data-banner='preparing']")
        with held_compile(srv.pid):
            page.goto(f"{srv.url}/?room=cold&fps={TEST_FPS}")
            banner.wait_for(timeout=60_000)
            assert "preparing the physics" in banner.inner_text()
            assert "compiles" in banner.inner_text()  # the cache was cold: the server says so
        page.wait_for_function("() => window.__sixdof && __sixdof.hello", timeout=300_000)
        assert banner.count() == 0  # gone with the hello
        wait_connected(page, timeout=WAIT_MS)
        assert not errors, errors
    assert "numba's cache is cold" in (tmp_path / "serve.log").read_text()


def test_a_preset_with_elements_waits_for_its_physics_and_the_page_says_so(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh install: the default room (a free body) runs while the elements' kernels
    compile (the cache holds the free bodies' alone; their compile is held here). A preset
    with elements is refused `preparing`; the page says so in its language (German here),
    with the seconds to wait, and keeps the room it has, running as it was."""
    partly_cold(tmp_path / "numba", monkeypatch, only=FREE_BODIES)
    with cold_server_page(browser, tmp_path) as (srv, page, errors):
        page.goto(f"{srv.url}/?room=free&lang=de&fps={TEST_FPS}")
        page.wait_for_function("() => window.__sixdof && __sixdof.hello", timeout=300_000)
        wait_connected(page, timeout=WAIT_MS)
        before = page.evaluate("__sixdof.hello.scenario.name")
        with held_compile(srv.pid):  # the elements' compile: still going, held here
            menu = page.get_by_label("Vorlage", exact=True)  # the panel's preset menu
            # its options after "choose": the presets in the hello's order, titled in German
            index = 1 + page.evaluate(
                "__sixdof.hello.presets.findIndex((p) => p.name === 'floating_box')"
            )
            menu.select_option(index=index)
            said = page.locator(".sixdof-error[role='alert']")  # under the preset menu
            said.wait_for(timeout=WAIT_MS)
            text = said.inner_text()
            assert "Physik der Elemente wird noch kompiliert" in text, text
            assert re.search(r"in etwa \d+ s erneut versuchen", text), text
            assert page.evaluate("__sixdof.hello.scenario.name") == before
            # the preset asks a question, so the page paused the room first: running again
            page.wait_for_function("() => __sixdof.lastState.status.running", timeout=WAIT_MS)
        assert not errors, errors
