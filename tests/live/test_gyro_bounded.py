"""A gyroscope fit cannot hold the server (issue 40, findings 1 and 17), against a real
`sixdof serve`: a hostile recording is refused before it runs; an accepted fit runs in a child
process of its own while the server answers and its loop stays free; a fit past
`gyro_fit_seconds` is killed and the server goes on; SIGINT mid-fit stops the server and the fit.

Nothing here is timed: the fit's place is read from /proc (which process spends its CPU), the
loop's from its probe, and every wait is for a condition.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.adversary import wait_until
from support.gyro_files import spinning, tumbling, with_rate_at_row
from support.serving import FLOAT, MAX_HELD_S, HeldLoop, Served, scenario_file

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "gyro_flip.csv").read_bytes()
ROOM = "gyro"
#: Accepted (estimated at 7.0 s of computing, under the 10 s ceiling), and long: random rates
#: over 120 s, which the fit searches hundreds of integrations for (3.8 s of a core measured).
LONG = tumbling(250.0).encode()

pytestmark = pytest.mark.xdist_group("gyro_bounded")


def post(server: Served, data: bytes, timeout: float = 600.0) -> tuple[int, Any]:
    """POST the recording to the room; (status, the JSON answer)."""
    request = urllib.request.Request(f"{server.url}/api/rooms/{ROOM}/gyro", data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def served(tmp_path: Path, *args: str) -> Served:
    """A server with room ROOM made (one body, as FLOAT)."""
    server = Served(*args, scenario=scenario_file(tmp_path, FLOAT))
    body = json.dumps(FLOAT.model_dump(mode="json")).encode()
    put = urllib.request.Request(
        f"{server.url}/api/rooms/{ROOM}/scenario", body, method="PUT",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(put, timeout=120) as reply:
            assert reply.status == 200
    except Exception:
        server.stop()  # what the server said is the failure's report (a 500 seen once)
        print(server.output[-4000:])
        raise
    return server


def fitting_child(server: Served) -> int | None:
    """The pid of the server's fitting process (analysis/gyro_child.py), if it runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.pid and b"sixdof.analysis.gyro_child" in command:
            return int(entry.name)
    return None


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) the process has spent; a process gone has spent nothing
    more than when last seen, so callers read it while it lives."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Posting:
    """A POST in a thread: `answer` once it came."""

    def __init__(self, server: Served, data: bytes) -> None:
        self.answer: tuple[int, Any] | None = None
        self.thread = threading.Thread(target=self._run, args=(server, data), daemon=True)
        self.thread.start()

    def _run(self, server: Served, data: bytes) -> None:
        self.answer = post(server, data)

    def wait(self) -> tuple[int, Any]:
        self.thread.join(600)
        assert self.answer is not None, "the fit never answered"
        return self.answer


def computing(child: int, since: float) -> bool:
    """The child has spent half a second of CPU more than `since` (its fit is under way)."""
    try:
        return cpu_seconds(child) > since + 0.5
    except OSError:
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    live = served(tmp_path_factory.mktemp("gyro"))
    try:
        yield live
    finally:
        live.stop()
        live.check_log()


def test_hostile_recordings_are_refused_before_they_run(server: Served) -> None:
    # finding 1: 30 rows at 1e5 rad/s over 120 s (it held the loop for hours)
    status, out = post(server, spinning(1e5).encode())
    assert status == 422, out
    assert "column 'Gyroscope x (rad/s)': 100000 is outside ±1e+04 rad/s" in out["detail"]
    # within AngVel's range but over the fit's ceiling: why, and what would be accepted
    status, out = post(server, spinning(5e3).encode())
    assert status == 422, out
    assert out["detail"].startswith("the file: 30 samples over 120 s at up to 5e+03 rad/s")
    assert "The largest fit accepted: at 5e+03 rad/s, a record of at most" in out["detail"]
    # finding 17: a rate of 1e308 among 500s was a 500 (a zero step inside)
    status, out = post(server, with_rate_at_row("1e308").encode())
    assert status == 422, out
    assert out["detail"] == (
        "the file: row 4 (line 5), column 'Gyroscope x (rad/s)': 1e308 is outside ±1e+04 "
        "rad/s (AngVel's limit: no body carrying a gyroscope turns that fast; check the "
        "column's units)"
    )
    assert post(server, EXAMPLE)[0] == 200  # and the server fits the next one


def test_a_long_fit_runs_in_its_own_process_while_the_server_answers(server: Served) -> None:
    status, out = post(server, EXAMPLE)  # the fitting process started and idle
    assert status == 200, out
    child = fitting_child(server)
    assert child is not None, "the fit ran inside the server, not in a child process"
    child_before, server_before = cpu_seconds(child), cpu_seconds(server.pid)
    with HeldLoop(server) as held:
        fit = Posting(server, LONG)
        assert wait_until(lambda: computing(child, child_before), 300), "no fit under way"
        health = server.get_json("/api/health", timeout=60)
        assert fit.answer is None, "the fit ended before the server was asked"
        assert health["status"] == "ok"
        child_after = cpu_seconds(child)  # read while it lives (it may be retired later)
        status, out = fit.wait()
    server_spent = cpu_seconds(server.pid) - server_before
    assert status == 200, out
    assert held.longest <= MAX_HELD_S, held.longest
    # the fit's seconds of CPU were the child's; the server only waited for them
    child_spent = child_after - child_before
    assert child_spent > 0.5 and server_spent < 0.5 * child_spent, (server_spent, child_spent)


def test_a_fit_past_the_wall_clock_limit_is_killed_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    server = served(tmp_path, "--limit", "gyro_fit_seconds=1")
    try:
        assert post(server, EXAMPLE[:200])[0] == 422  # the child started (too few samples)
        child = fitting_child(server)
        assert child is not None
        status, out = post(server, LONG)
        assert status == 503, out
        assert out["detail"].startswith(
            "gyro: the fit took longer than 1 s (the server's gyro_fit_seconds) and was stopped"
        )
        assert wait_until(lambda: not Path(f"/proc/{child}").exists(), 30), "not killed"
        assert server.get_json("/api/health")["status"] == "ok"
        status, out = post(server, with_rate_at_row("1e308").encode())  # a new child reads it
        assert status == 422 and "1e308 is outside" in out["detail"], out
        assert fitting_child(server) not in (None, child)
    finally:
        server.stop()
    server.check_log()


def test_sigint_mid_fit_stops_the_server_and_its_fit(tmp_path: Path) -> None:
    server = served(tmp_path)
    try:
        assert post(server, EXAMPLE)[0] == 200
        child = fitting_child(server)
        assert child is not None
        before = cpu_seconds(child)
        fit = Posting(server, LONG)
        assert wait_until(lambda: computing(child, before), 300), "no fit under way"
        server.proc.send_signal(signal.SIGINT)
        # the server does not wait for the fit: it stops it, answers, and exits
        server.proc.wait(120)
        status, out = fit.wait()
        assert status == 503, out
        assert out["detail"] == "gyro: the server is stopping; the fit was stopped"
        assert wait_until(lambda: not Path(f"/proc/{child}").exists(), 30)
    finally:
        server.stop()
    assert "Traceback" not in server.output, server.output[-4000:]
