"""Browser tests: a real `sixdof serve` on a free loopback port and Debian's headless Chromium.

Chromium comes from the system (/usr/bin/chromium, `make browser`); Playwright never downloads
a browser here. The page must have been built (`make setup` runs `npm ci && npm run build` in
frontend/). Each test uses its own room, so tests do not see each other's bodies, and a page
from the worker's pool (support/pagepool.py): a fresh document in a page already open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support import pagepool
from support.pagekit import PageRun, Served, open_page, page_server, require_page


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Count failed tests: a page that was out while one failed is not pooled again."""
    outcome = yield
    if outcome.get_result().failed:  # type: ignore[attr-defined]
        pagepool.note_failure()


@pytest.fixture(autouse=True)
def _pages_not_given_back() -> Iterator[None]:
    """Close the pages a test took and did not give back (it failed before its `close()`):
    left open, each would draw on at 5 frames a second for the rest of the session."""
    before = pagepool.busy_pages()
    yield
    for page in pagepool.busy_pages() - before:
        pagepool.discard(page)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    require_page()
    srv = page_server(log=tmp_path_factory.mktemp("server") / "serve.log")
    yield srv
    srv.stop()


@pytest.fixture
def page_run(browser: object, server: Served) -> Iterator[PageRun]:
    run = open_page(browser, server.url)  # type: ignore[arg-type]
    yield run
    run.close()


@pytest.fixture(scope="session")
def preset_sweep(browser: object, server: Served) -> Callable[[str], Any]:
    """`preset_sweep(size)`: every preset visited once at `size` by the probes of the collected
    tests (presetsweep.py), run the first time a test of that size asks; its failure too is
    kept, so the size's other tests report it instead of sweeping again."""
    from presetsweep import run_sweep

    done: dict[str, Any] = {}

    def of(size: str) -> Any:
        if size not in done:
            try:
                done[size] = run_sweep(browser, server, size)  # type: ignore[arg-type]
            except Exception as exc:
                done[size] = exc
        if isinstance(done[size], Exception):
            raise AssertionError(f"the {size} sweep failed") from done[size]
        return done[size]

    return of
