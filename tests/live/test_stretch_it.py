"""The "Stretch it" preset in a live room (issue 42): the bar's Mass and Inertia follow its
Size, and the room's scenario after the stretch flips as the caption says it will."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from sixdof.headless import run_scenario
from sixdof.scenario import Scenario
from sixdof.scenario.presets import PRESETS
from sixdof.server import Settings, create_app

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings())) as c:
        yield c


def recv(ws: Any, *types: str) -> dict[str, Any]:
    for _ in range(400):
        msg = ws.receive_json()
        if msg["type"] in types:
            return dict(msg)
    raise AssertionError(f"no {types}")


def test_stretching_the_bar_reweighs_it_and_the_flips_follow_the_caption(
    client: TestClient,
) -> None:
    values = PRESETS["stretch_it"].values
    with client.websocket_connect("/ws?room=stretch") as ws:
        recv(ws, "hello")
        ws.send_text(json.dumps({"type": "load_scenario", "preset": "stretch_it", "id": 1}))
        assert recv(ws, "ack", "error")["type"] == "ack"
        bar = recv(ws, "hello")["scenario"]["bodies"][0]
        a, b, c = bar["Size"]
        m = bar["Density"] * a * b * c
        assert bar["Mass"] == pytest.approx(m, rel=1e-12)
        ws.send_text(json.dumps({"type": "set_params", "Size": [a, values["long_y"], c]}))
        assert recv(ws, "ack", "error")["type"] == "ack"
        hello = recv(ws, "hello")
    bar = hello["scenario"]["bodies"][0]
    b2 = values["long_y"]
    m2 = bar["Density"] * a * b2 * c
    assert bar["Mass"] == pytest.approx(m2, rel=1e-12)
    closed = [m2 * (b2 * b2 + c * c) / 12, m2 * (a * a + c * c) / 12, m2 * (a * a + b2 * b2) / 12]
    np.testing.assert_allclose(bar["Inertia"], [*closed, 0, 0, 0], rtol=1e-12, atol=1e-18)
    # the room's scenario as it is now, run by the same engine: it flips every long_flip s
    scenario = Scenario.model_validate(hello["scenario"])
    r = run_scenario(scenario, t_end=20.0)
    wx = r.states[:, 0, 10]
    flips = np.diff(r.times[1:][np.sign(wx[1:]) != np.sign(wx[:-1])])
    assert len(flips) >= 3
    np.testing.assert_allclose(flips, values["long_flip"], rtol=2e-3)
