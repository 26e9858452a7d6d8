"""POST /api/rooms/{room}/gyro: a recording fitted and compared with the room's body;
authorised and bounded before anything is parsed."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sixdof.server import Settings, create_app
from sixdof.server.gyro import GYRO_MAX_BYTES

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "gyro_flip.csv").read_bytes()
BODY = {"Name": "Phone", "Mass": 0.2, "InertiaRadi": [0.05, 0.04, 0.06]}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(token="tok"))) as c:
        r = c.put("/api/rooms/g/scenario?token=tok", json={"bodies": [BODY]})
        assert r.status_code == 200
        yield c


def test_the_fit_and_both_simulations_come_back(client: TestClient) -> None:
    r = client.post("/api/rooms/g/gyro?token=tok&body=Phone", content=EXAMPLE)
    assert r.status_code == 200, r.text
    out = r.json()
    assert np.allclose(out["inertia_ratios"], [0.8102, 0.1941], rtol=0.02)
    assert out["body"] == "Phone" and len(out["measured"]["t"]) == 160
    sim = out["simulated"]
    assert sim["t"][0] == 0.0 and sim["t"][-1] == pytest.approx(out["duration"], abs=0.01)
    assert np.allclose([w[0] for w in sim["omega"]], out["initial_ang_vel"])
    # with the fitted inertia the simulation follows the measurement; as the room has it, not
    fitted = np.array(out["simulated_fitted"]["omega"])
    measured = np.array(out["measured"]["omega"])
    t_m, t_f = np.array(out["measured"]["t"]), np.array(out["simulated_fitted"]["t"])
    on_grid = np.array([np.interp(t_m, t_f, fitted[k]) for k in range(3)])
    assert np.sqrt(np.mean((on_grid - measured) ** 2)) < 0.1
    as_is = np.array([np.interp(t_m, sim["t"], sim["omega"][k]) for k in range(3)])
    assert np.sqrt(np.mean((as_is - measured) ** 2)) > 1.0
    rx, ry, rz = out["apply"]["InertiaRadi"]  # the body's own Iz kept
    assert rz == pytest.approx(0.06)
    assert np.allclose([(rx / rz) ** 2, (ry / rz) ** 2], out["inertia_ratios"])


def test_token_origin_and_size_are_checked_before_parsing(client: TestClient) -> None:
    assert client.post("/api/rooms/g/gyro", content=EXAMPLE).status_code == 403
    evil = {"Origin": "http://evil.example"}
    assert (
        client.post("/api/rooms/g/gyro?token=tok", content=EXAMPLE, headers=evil).status_code == 403
    )
    big = b"0,0,0,0\n" * (GYRO_MAX_BYTES // 8 + 1)
    assert client.post("/api/rooms/g/gyro?token=tok", content=big).status_code == 413
    assert client.post("/api/rooms/nowhere/gyro?token=tok", content=EXAMPLE).status_code == 404


def test_bad_files_and_bodies_are_422_with_the_reason(client: TestClient) -> None:
    r = client.post("/api/rooms/g/gyro?token=tok", content=b'"Time (s)","Accel x"\n0,1\n')
    assert r.status_code == 422 and "Gyroscope x (rad/s)" in r.json()["detail"]
    r = client.post("/api/rooms/g/gyro?token=tok&body=Nobody", content=EXAMPLE)
    assert r.status_code == 422 and "Nobody" in r.json()["detail"]
    assert client.post("/api/rooms/g/gyro?token=tok", content=b"\xff\xfe\x00").status_code == 400
