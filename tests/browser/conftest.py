"""Browser tests: a real `sixdof serve` on a free loopback port and Debian's headless Chromium.

Chromium comes from the system (/usr/bin/chromium, `make browser`); Playwright never downloads
a browser here. The page must have been built (`make setup` runs `npm ci && npm run build` in
frontend/). Each test uses its own room, so tests do not see each other's bodies.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pagekit import CHROMIUM, CHROMIUM_ARGS, PageRun, Server, free_port, open_page, require_page
from playwright.sync_api import Browser, sync_playwright


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    require_page()
    srv = Server(free_port(), tmp_path_factory.mktemp("server") / "serve.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    require_page()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page_run(browser: Browser, server: Server) -> Iterator[PageRun]:
    run = open_page(browser, server.url)
    yield run
    run.page.context.close()
