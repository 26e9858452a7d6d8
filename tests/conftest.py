"""Fixtures shared by the dynamics tests."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

import numpy as np
import pytest

from sixdof.dynamics import Bodies, outputs

# A token in the developer's environment would make every server the tests start
# watch-only (`sixdof serve` takes --token from SIXDOF_TOKEN); tests that need one set it.
os.environ.pop("SIXDOF_TOKEN", None)

OutputsOverTime = Callable[[np.ndarray, np.ndarray, Bodies], dict[str, np.ndarray]]


def _outputs_over_time(states: np.ndarray, u: np.ndarray, bodies: Bodies) -> dict[str, np.ndarray]:
    """`outputs` of a whole run: states (T, N, 13) → each output with leading axes (T, N).

    The N bodies are tiled T times as arrays (building T·N BodyParams would be slow).
    """
    n_times, n_bodies = states.shape[:2]
    tiled = Bodies(
        **{
            f.name: np.tile(arr, (n_times,) + (1,) * (arr.ndim - 1))
            for f in dataclasses.fields(Bodies)
            for arr in [getattr(bodies, f.name)]
        }
    )
    u_all = np.tile(np.broadcast_to(u, (n_bodies, 6)), (n_times, 1))
    flat = outputs(states.reshape(-1, 13), u_all, tiled)
    return {k: v.reshape(n_times, n_bodies, *v.shape[1:]) for k, v in flat.items()}


@pytest.fixture(scope="session")
def outputs_over_time() -> OutputsOverTime:
    return _outputs_over_time


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests last.

    Playwright's sync API keeps an asyncio loop running in the main thread for as long as
    its session lasts, and tests that call asyncio.run() cannot run after it has started.
    Running fast tests first also gives the quickest feedback. The long wheel tests come
    first among the rest, so that with `pytest -n 2` they start early beside other work.
    """

    def order(item: pytest.Item) -> tuple[bool, bool]:
        return item.get_closest_marker("browser") is not None, "test_wheel" not in item.nodeid

    items.sort(key=order)
    # The tests that run real servers and measure their frame rates (end-to-end, attacks,
    # the cluster's five processes) share one xdist worker (`--dist loadgroup`): the cluster
    # starting its processes beside a frame-rate check cost that check ~20 % of its rate.
    for item in items:
        if any(f"tests/{d}/" in item.nodeid or item.nodeid.startswith(f"{d}/")
               for d in ("e2e", "adversarial", "cluster")):  # fmt: skip
            item.add_marker(pytest.mark.xdist_group("live_servers"))
