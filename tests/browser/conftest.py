"""Browser tests: a real `sixdof serve` on a free loopback port and Debian's headless Chromium.

Chromium comes from the system (/usr/bin/chromium, `make browser`); Playwright never downloads
a browser here. The page must have been built (`make setup` runs `npm ci && npm run build` in
frontend/). Each test uses its own room, so tests do not see each other's bodies.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.pagekit import PageRun, Served, open_page, require_page


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    require_page()
    srv = Served(log=tmp_path_factory.mktemp("server") / "serve.log")
    yield srv
    srv.stop()


@pytest.fixture
def page_run(browser: object, server: Served) -> Iterator[PageRun]:
    run = open_page(browser, server.url)  # type: ignore[arg-type]
    yield run
    run.page.context.close()
