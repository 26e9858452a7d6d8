"""A fresh install's first visitor sees why the page waits (issue 32): with numba's cache
cold the server compiles the kernels before the first room, and the page shows the server's
`preparing` message in a banner until the hello comes. The cache lacks the free bodies'
kernels only (support/coldcache.py), and the compile is held while the page comes."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser
from support.coldcache import held_compile, partly_cold
from support.pagekit import TEST_FPS, WAIT_MS, Served, require_page, wait_connected


def test_the_page_says_the_physics_is_being_prepared(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_page()
    partly_cold(tmp_path / "numba", monkeypatch)
    srv = Served(log=tmp_path / "serve.log")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
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
    finally:
        context.close()
        srv.stop()
    assert "numba's cache is cold" in (tmp_path / "serve.log").read_text()
