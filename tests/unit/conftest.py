"""Fixtures shared by the dynamics tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from sixdof.dynamics import Bodies, outputs

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
