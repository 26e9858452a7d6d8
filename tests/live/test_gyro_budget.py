"""A gyroscope fit's estimate is charged before it runs, to its address and to all addresses
together (server/gyro.py): either short, 429 with the time to wait, and nothing is fitted."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from sixdof.server import Settings, create_app
from sixdof.server.budget import Budgets, WorkBudget
from sixdof.server.gyro import (
    GYRO_BURST,
    GYRO_RATE,
    GYRO_SHARED_BURST,
    GYRO_SHARED_RATE,
    READ_SECONDS_PER_BYTE,
)

with warnings.catch_warnings():  # starlette asks for httpx2; httpx still works
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from fastapi.testclient import TestClient

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "gyro_flip.csv").read_bytes()
#: What the example's fit is estimated at (analysis/gyro_cost.py): 160 samples over 1.6 s.
EXAMPLE_SECONDS = 0.153


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), client=("10.0.0.1", 50000)) as c:
        assert c.put("/api/rooms/g/scenario", json={"bodies": [{"Name": "B"}]}).status_code == 200
        yield c


def test_the_estimate_is_charged_up_front_and_what_was_not_used_given_back(
    client: TestClient,
) -> None:
    client.post("/api/rooms/g/gyro", content=b"t\n")  # the app's fitting state is made
    state = client.app.state  # type: ignore[attr-defined]
    # clocks that stand still: a loaded machine's seconds must not refill them meanwhile
    state.gyro_budgets = Budgets(GYRO_RATE, GYRO_BURST, clock=lambda: 0.0)
    state.gyro_shared = WorkBudget(GYRO_SHARED_RATE, GYRO_SHARED_BURST, clock=lambda: 0.0)
    r = client.post("/api/rooms/g/gyro", content=EXAMPLE)
    assert r.status_code == 200, r.text
    left = state.gyro_budgets.of("10.0.0.1").left()
    read = len(EXAMPLE) * READ_SECONDS_PER_BYTE
    # charged: the read and what the fit took of its estimate (its CPU, the child's measure)
    assert GYRO_BURST - read - EXAMPLE_SECONDS - 0.01 < left < GYRO_BURST - read
    assert state.gyro_shared.left() == pytest.approx(GYRO_SHARED_BURST - (GYRO_BURST - left))


def test_the_servers_shared_fitting_time_refuses_every_address_once_spent(
    client: TestClient,
) -> None:
    client.post("/api/rooms/g/gyro", content=b"t\n")  # the app's fitting state is made
    state = client.app.state  # type: ignore[attr-defined]
    state.gyro_shared = WorkBudget(0.01, 0.1)  # less than the example's estimate
    # a clock that stands still: the read's charge (~1 ms) must not refill before it is read
    state.gyro_budgets = Budgets(GYRO_RATE, GYRO_BURST, clock=lambda: 0.0)
    r = client.post("/api/rooms/g/gyro", content=EXAMPLE)
    assert r.status_code == 429, r.text
    assert r.json()["detail"].startswith(
        "gyro: this fit needs up to 0.15 s of computing; the server (all addresses) has "
    )
    assert "(it refills at 0.01 s per s, up to 0.1 s); try again in" in r.json()["detail"]
    assert int(r.headers["Retry-After"]) >= 1
    assert state.gyro_budgets.of("10.0.0.1").left() < GYRO_BURST  # its read was charged
    # another address is refused as well: the shared time is all addresses'
    other = TestClient(client.app, client=("10.0.0.2", 50000))  # the app's lifespan is client's
    r = other.post("/api/rooms/g/gyro", content=EXAMPLE)
    assert r.status_code == 429 and "the server (all addresses) has" in r.json()["detail"]


def test_an_address_short_of_the_estimate_is_refused_before_the_fit(client: TestClient) -> None:
    client.post("/api/rooms/g/gyro", content=b"t\n")
    state = client.app.state  # type: ignore[attr-defined]
    address = state.gyro_budgets.of("10.0.0.1")
    address.charge(address.left() - 0.1)  # 0.1 s left: the read, not the fit
    r = client.post("/api/rooms/g/gyro", content=EXAMPLE)
    assert r.status_code == 429, r.text
    detail = r.json()["detail"]
    assert detail.startswith("gyro: this fit needs up to 0.15 s of computing; your address has")
    assert "s left of its fitting time (it refills at 0.1 s per s, up to 10 s)" in detail
    assert state.gyro_shared.left() == pytest.approx(state.gyro_shared.burst, abs=0.05)
