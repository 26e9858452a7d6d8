"""The suite's tiers, one folder each (docs/testing.md):

- unit: pure Python and compiled physics, no server (`pytest -m unit`, the quick loop)
- live: the server, in process (Starlette's TestClient) or a real uvicorn on loopback
- browser: the page in Debian's headless Chromium against a real server
- cluster: workers and gateways on a real NATS server
- install: a wheel in a new venv (the one cold numba compile), packaging, JupyterLab
- timing: wall-clock figures (frame rates, gaps, first answers), run alone by
  `make test-timing`; `make test` and plain `pytest` leave it out

A test's tier is its folder's, marked here: no test file marks itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """The suite tests the checkout it lives in: a `sixdof` imported from elsewhere (an
    editable install of another worktree, a wheel in site-packages) would pass or fail for
    that code instead, and so would the servers the tests start (they import the same)."""
    import sixdof

    backend = os.path.join(os.path.dirname(HERE), "backend")
    where = os.path.dirname(os.path.abspath(sixdof.__file__))
    if os.path.commonpath([where, backend]) != backend:
        raise pytest.UsageError(
            f"sixdof is imported from {where}, not from this checkout's {backend}: "
            "`pip install -e .` here (make setup), or PYTHONPATH=backend"
        )


# A token in the developer's environment would make every server the tests start
# watch-only (`sixdof serve` takes --token from SIXDOF_TOKEN); tests that need one set it.
os.environ.pop("SIXDOF_TOKEN", None)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium, one for the session of a worker (the browser and install
    tiers): Playwright's sync API runs one loop in the main thread, so there is one."""
    from support.pagekit import launch_chromium

    with launch_chromium() as chromium:
        yield chromium


TIERS = ("unit", "live", "browser", "cluster", "install", "timing")
HERE = os.path.dirname(os.path.abspath(__file__))


def tier_of(item: pytest.Item) -> str:
    relative = os.path.relpath(str(item.path), HERE)
    tier = relative.split(os.sep, 1)[0]
    if tier not in TIERS:
        raise pytest.UsageError(f"{relative}: a test lives in one of the tiers' folders {TIERS}")
    return tier


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its folder's tier, and order them.

    The browser tests run last: Playwright's sync API keeps an asyncio loop running in the
    main thread for as long as its session lasts, and tests that call asyncio.run() cannot
    run after it has started. Quick tiers first give the quickest feedback; the install
    tier's long tests start first among the rest, so that with `pytest -n 2` they run early
    beside other work.
    """
    order = {"install": 0, "unit": 1, "live": 2, "cluster": 3, "timing": 4, "browser": 5}
    tiers = {item.nodeid: tier_of(item) for item in items}
    for item in items:
        tier = tiers[item.nodeid]
        item.add_marker(getattr(pytest.mark, tier))
    # Playwright's loop last of all (JupyterLab's test in `install` too)
    items.sort(key=lambda item: ("browser" in getattr(item, "fixturenames", ()),
                                 order[tiers[item.nodeid]]))  # fmt: skip
