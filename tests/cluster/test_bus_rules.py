"""The rules the bus's processes go by, without a bus: the gateway's table of a room's routes
is the app's, a worker's proofs of control are good once and only fresh, what a message
says of its budget is bounded, and the bus's credentials are read and never shown."""

from __future__ import annotations

from typing import Any

import pytest

from sixdof.cluster.login import login, shown
from sixdof.cluster.proof import PROOF_TTL, WINDOW, Checker, Signer, budget
from sixdof.cluster.routes import ROUTES
from sixdof.server.app import create_app
from sixdof.server.settings import Settings

ROOM = "/api/rooms/{room}/"


def test_the_gateways_routes_are_the_apps() -> None:
    """Every route of a room the app has is in the gateway's table, with the token where
    the app asks for one; nothing else is (a path the table lacks is 404 at the gateway)."""
    paths = create_app(Settings()).openapi()["paths"]
    app: dict[tuple[str, str], bool] = {}
    for path, operations in paths.items():
        if path.startswith(ROOM):
            for method, operation in operations.items():
                names = {p["name"] for p in operation.get("parameters", [])}
                app[(method.upper(), path.removeprefix(ROOM))] = "token" in names
    assert set(ROUTES) == set(app)
    for key, route in ROUTES.items():
        assert bool(route.control) == app[key], key  # share: the token for its recording
    assert ROUTES[("POST", "share")].needs_token("what=recording")
    assert not ROUTES[("POST", "share")].needs_token("what=now")
    assert [key for key, route in ROUTES.items() if route.opens] == [("PUT", "scenario")]


class Clock:
    def __init__(self) -> None:
        self.now = 1e9

    def __call__(self) -> float:
        return self.now


def test_a_proof_is_good_once_fresh_and_only_with_the_token() -> None:
    clock = Clock()
    gateway, worker = Signer("T", clock), Checker("T", clock)
    proofs = [gateway.proof("cmd", "lab", f"m{i}") for i in range(WINDOW + 2)]
    # out of order within the window: each taken once
    order = [1, 0, *range(2, WINDOW + 2)]
    assert [worker.check(proofs[i], "cmd", "lab", f"m{i}") for i in order] == [None] * len(order)
    for i in (0, 5, WINDOW + 1):
        assert "replay" in str(worker.check(proofs[i], "cmd", "lab", f"m{i}"))
    late = gateway.proof("cmd", "lab", "late")
    clock.now += PROOF_TTL + 1
    assert "good for" in str(worker.check(late, "cmd", "lab", "late"))
    fresh = gateway.proof("cmd", "lab", "x")
    for changed in (("cmd", "lab", "y"), ("cmd", "other", "x"), ("open", "lab", "x")):
        assert "without this worker's token" in str(worker.check(fresh, *changed))
    assert "without this worker's token" in str(Checker("U", clock).check(fresh, "cmd", "lab", "x"))
    bad: Any
    for bad in (None, {}, {"session": "s", "seq": "x", "at": "1", "mac": ""}, "proof"):
        assert worker.check(bad, "cmd", "lab", "x") is not None
    assert Signer(None).proof("cmd", "lab") is None
    assert Checker(None).check(None, "cmd", "lab", "x") is None  # no token: anyone controls


def test_a_messages_budget_is_at_most_one_addresss() -> None:
    assert budget(1e9, 1.0) == 1.0
    assert budget(0.25, 1.0) == 0.25 and budget(-0.5, 1.0) == -0.5
    for bad in (float("nan"), float("inf"), "lots", None, [1]):
        assert budget(bad, 1.0) == 0.0


def test_the_bus_credentials_are_read_and_never_shown() -> None:
    how = login("nats://u:p%40ss@a:4222,nats://u:p%40ss@b:4222")
    assert how.urls == ["nats://a:4222", "nats://b:4222"]  # discovered servers need them too
    assert how.options == {"user": "u", "password": "p@ss"} and "p@ss" not in repr(how)
    env = {"SIXDOF_NATS_PASSWORD": "s3cret"}
    assert login("a:4222", env).options == {"user": "sixdof", "password": "s3cret"}
    assert login("a:4222", env).how == "user sixdof"
    assert "tls" in login("tls://a:4222").options
    assert shown("nats://u:s3cret@a:4222,nats://b:4222") == "nats://u:***@a:4222,nats://b:4222"
    for env, field in (
        ({"SIXDOF_NATS_USER": "u"}, "SIXDOF_NATS_PASSWORD"),
        ({"SIXDOF_NATS_CA": "/no/such/ca.pem"}, "SIXDOF_NATS_CA"),
        ({"SIXDOF_NATS_CERT": "/etc/hostname"}, "SIXDOF_NATS_KEY"),
    ):
        with pytest.raises(ValueError, match=field):
            login("nats://a:4222", env)
    with pytest.raises(ValueError, match="different credentials"):
        login("nats://u:1@a,nats://v:2@b")
