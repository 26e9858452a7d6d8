"""The suite's tiers, one folder each (docs/testing.md):

- unit: pure Python and compiled physics, no server (`pytest -m unit`, the quick loop)
- live: the server, in process (Starlette's TestClient) or a real uvicorn on loopback
- browser: the page in Debian's headless Chromium against a real server
- cluster: workers and gateways on a real NATS server
- install: a wheel in a new venv (the one cold numba compile, of the free bodies' kernels),
  packaging, JupyterLab
- timing: wall-clock figures (frame rates, gaps, first answers), run alone by
  `make test-timing`; `make test` and plain `pytest` leave it out

A test's tier is its folder's, marked here: no test file marks itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

# OpenBLAS's threads spin while they wait: with pytest's two workers (and the servers they
# start) on two shared cores, a 400 x 400 SVD (the radiation fit's Hankel matrix) took 5 to
# 9 s of wall time against 0.4 s on one thread. One BLAS thread a process; the environment
# is read when numpy loads OpenBLAS, so before anything imports numpy (xdist's workers and
# the servers the tests start inherit it). A test that wants more threads sets its own.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

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
    # `--dist loadgroup` sends the largest xdist groups first unless told otherwise (xdist's
    # loadscope reorder): the browser tier's preset sweeps would start a worker's Playwright
    # loop early, and every later test of that worker calling asyncio.run would fail ("cannot
    # be called from a running event loop"; 39 of a fresh-clone run). The collection's order,
    # browser last (pytest_collection_modifyitems), is kept.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


# A token in the developer's environment would make every server the tests start
# watch-only (`sixdof serve` takes --token from SIXDOF_TOKEN); tests that need one set it.
os.environ.pop("SIXDOF_TOKEN", None)
# The servers the tests start keep their Share links and lessons in memory, not in the
# developer's data folder (`sixdof serve` takes --data from SIXDOF_DATA); tests of the data
# directory give --data themselves.
os.environ["SIXDOF_DATA"] = ":memory:"


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
    keep_xdist_groups(config, items)
    order = {"install": 0, "unit": 1, "live": 2, "cluster": 3, "timing": 4, "browser": 5}
    tiers = {item.nodeid: tier_of(item) for item in items}
    for item in items:
        tier = tiers[item.nodeid]
        item.add_marker(getattr(pytest.mark, tier))
    # Playwright's loop last of all (JupyterLab's test in `install` too)
    items.sort(key=lambda item: ("browser" in getattr(item, "fixturenames", ()),
                                 order[tiers[item.nodeid]]))  # fmt: skip


def keep_xdist_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--dist loadgroup` sends the tests of one `xdist_group` to one worker by a suffix its
    workers add to their node ids (`::test[x]@group`), writing `item._nodeid`; pytest 9 keeps
    a node's id in `item._id`, so the suffix was lost and every group was spread over the
    workers like ungrouped tests (pytest-xdist issue 1386, up to 3.8.0). The same suffix,
    written where pytest 9 reads it; nothing to do where xdist's own took."""
    # set on xdist's workers under --dist loadgroup; absent elsewhere (-n 0, -p no:xdist)
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})  # fmt: skip
        if names and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")  # type: ignore[attr-defined]
