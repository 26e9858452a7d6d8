"""The page's BEM job (issue 43), against a real `sixdof serve` with a token: POST
/api/rooms/{room}/bem runs `sixdof bem` for the room's floating body in a child process while
the room's frames keep coming and the event loop stays free (its probe); one job at a time;
a job over the bound is refused naming its numbers; the fit it makes is a radiation element
the room takes through set_elements; a server stopped mid-job takes its child with it.

Nothing here is timed: every wait is for a condition.
"""

from __future__ import annotations

import itertools
import json
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from support.adversary import TOKEN, Bystander, controller, put_scenario, send, wait_until
from support.serving import MAX_HELD_S, HeldLoop, Served
from support.worlds import FLOATING_SPHERE

ROOM = "bem"
BUOY = json.loads((resources.files("sixdof.scenario.presets") / "buoy_in_waves.json").read_text())
#: The 960-panel sphere: 960² × 201 frequencies is over the bound.
SPHERE = FLOATING_SPHERE

pytestmark = pytest.mark.xdist_group("bem_job")


def post(server: Served, room: str, ask: dict[str, Any], token: str | None = TOKEN) -> Any:
    """(status, JSON answer) of POST /api/rooms/{room}/bem."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        f"{server.url}/api/rooms/{room}/bem", json.dumps(ask).encode(), headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=300) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def job(server: Served, room: str = ROOM) -> dict[str, Any]:
    answer: dict[str, Any] = server.get_json(f"/api/rooms/{room}/bem", timeout=60)
    return answer


def bem_child(server: Served) -> int | None:
    """The pid of the server's BEM process (analysis/bem_child.py), if it runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == server.pid and b"bem_child" in command:
            return int(entry.name)
    return None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    live = Served(token=TOKEN)
    try:
        assert put_scenario(live, ROOM, BUOY) == 200
        yield live
    finally:
        live.stop()


def test_a_job_runs_beside_the_room_and_its_fit_is_an_element(server: Served) -> None:
    assert post(server, ROOM, {}, token=None)[0] == 403  # the token, before anything runs
    assert post(server, ROOM, {"frequencies": 3})[0] == 422  # too few to fit a memory
    assert job(server)["state"] == "idle"
    with Bystander(server, ROOM) as watcher:
        with HeldLoop(server) as held:
            status, started = post(server, ROOM, {"frequencies": 12})
            assert status == 202, started
            assert started["body"] == "Buoy" and started["panels"] == 160
            assert started["total"] == 13 and started["seconds"] > 0
            status, busy = post(server, ROOM, {})  # one job per server
            assert status == 409 and "a job is running for Buoy" in busy["detail"], busy
            seen: set[int] = set()
            frames_at: dict[int, int] = {}

            def progressed() -> bool:
                now = job(server)
                seen.add(now["done"])
                frames_at.setdefault(now["done"], len(watcher.times))
                return now["state"] != "running"

            assert wait_until(progressed, 600), "the job did not end"
            done = job(server)
        assert done["state"] == "done", done
        assert done["done"] == done["total"] == 13
        assert len(seen) > 2, f"no progress was seen: {sorted(seen)}"
        # the room's frames kept coming while it ran, and the loop was never held long
        counts = [frames_at[k] for k in sorted(frames_at)]
        assert counts == sorted(counts) and counts[-1] > counts[0], frames_at
        assert held.longest <= MAX_HELD_S, f"the loop was held {held.longest * 1e3:.1f} ms"
    fit = done["fit"]
    assert len(fit["A"]) >= 1 and len(fit["D"]) == 6 and 0 <= fit["error"] <= 1
    # heave's A∞ of the half-submerged buoy: positive, below its displaced mass (400 kg)
    assert 0 < fit["infinite"][2][2] < 400
    ids = itertools.count(1)
    with controller(server, ROOM) as ws:
        element = {"kind": "radiation", "body": "Buoy", "fit": fit}
        reply = send(ws, {"type": "set_elements", "elements": [*BUOY["elements"], element]},
                     next(ids))  # fmt: skip
        assert reply["type"] == "ack", reply
    scenario = server.get_json(f"/api/rooms/{ROOM}/scenario")
    radiation = [e for e in scenario["elements"] if e["kind"] == "radiation"]
    assert len(radiation) == 1 and radiation[0]["fit"]["infinite"] == fit["infinite"]
    server.check_log()


def test_a_job_over_the_bound_is_refused_naming_its_numbers(server: Served) -> None:
    assert put_scenario(server, "sphere", SPHERE) == 200
    status, out = post(server, "sphere", {"frequencies": 200})
    assert status == 422, out
    assert out["detail"].startswith("bem: Sphere: 960 panels² × 201 frequencies"), out
    assert "over the 120 s a job may take; ask for at most" in out["detail"], out
    assert job(server, "sphere")["state"] == "idle" and bem_child(server) is None


def test_a_server_stopped_mid_job_takes_its_child_along(server: Served) -> None:
    status, out = post(server, ROOM, {"frequencies": 200})
    assert status == 202, out
    child = bem_child(server)
    assert child is not None
    assert wait_until(lambda: job(server)["done"] > 0, 300), "no progress"
    server.proc.send_signal(signal.SIGINT)
    server.proc.wait(120)
    assert wait_until(lambda: not Path(f"/proc/{child}").exists(), 30), "the child outlived it"
