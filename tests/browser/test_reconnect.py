"""When the server goes away the page says so, and it reconnects by itself when it is back."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser
from support.pagekit import WAIT_MS, open_page, page_server, require_page


def test_page_reconnects_after_the_server_restarts(browser: Browser, tmp_path: Path) -> None:
    require_page()
    srv = page_server(log=tmp_path / "serve.log")
    try:
        run = open_page(browser, srv.url)
        page = run.page
        hellos = page.evaluate("__sixdof.helloCount")
        srv.stop()
        page.wait_for_function("!__sixdof.connected", timeout=WAIT_MS)
        page.wait_for_function(
            "document.querySelector('[data-hud=conn]').textContent.startsWith('reconnecting')",
            timeout=WAIT_MS,
        )
        assert "reconnecting" in page.locator("#banners").inner_text().lower()
        srv.start()
        # back without a reload: a new hello from the new server, and its frames
        page.wait_for_function(
            "(h) => __sixdof.connected && __sixdof.helloCount > h && __sixdof.lastState.gen > h",
            arg=hellos,
            timeout=WAIT_MS,
        )
        page.wait_for_function(
            "document.querySelector('[data-hud=conn]').textContent === 'connected'"
        )
        assert page.locator("[data-banner='conn']").count() == 0
        t0 = page.evaluate("__sixdof.lastState.t")
        page.wait_for_function("(t) => __sixdof.lastState.t > t", arg=t0)  # frames flow again
        run.close()
    finally:
        srv.stop()
