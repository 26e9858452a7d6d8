"""POST and GET /api/rooms/{room}/bem: `sixdof bem` for a room's floating body, started from the
page, while the room keeps running (issue 43). The work is analysis/bem_child.py's, in a child
process; this module bounds, authorises, charges and watches it.

POST (the token, as for any change of a room; checked before anything is read or started)
starts a job for the room's current scenario's floating body: the child sets the job up (the
hull's panels, the frequencies) and waits; its cost is estimated as panels² × frequencies
(SECONDS_PER_PANEL2 each: Capytaine's influence matrices, one per frequency, on one thread)
and refused over MAX_SECONDS (422, naming the numbers and the most frequencies that would
fit) or when the address's BEM budget (BEM_RATE s per s, up to BEM_BURST) cannot pay it (429);
else charged and the child told to go, and POST answers 202 with the job's state. One job per
server at a time: another POST while one runs is 409, naming it. GET reads the room's job:
`state` (idle, running, done, failed), frequencies `done` of `total`, `error`, and once done
the fitted memory (`fit`: the `radiation` element's, as scenario/radiation_files.fit_of makes
it of the file) that the page adds with set_elements as any element.

The child runs at a lower priority on one thread; it is killed past its deadline
(DEADLINE_FACTOR × its estimate, at least MIN_DEADLINE_S), when the server stops (SIGINT and
SIGTERM, fit_process.watch) and when the app shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from .budget import Budgets, WorkBudget
from .fit_process import STARTUP_SECONDS, watch
from .rest import _require_control, _room
from .rest_budget import client_address
from .settings import Settings
from .ws import origin_allowed

#: CPU seconds per panel² per frequency (the infinite one counted), Capytaine on one thread:
#: the 960-panel sphere took ~0.5 s a frequency; the 160-panel buoy 1.0 s for 11 and 1.3 s
#: for 31, most of it the child's start (2026-12-05).
SECONDS_PER_PANEL2 = 1.2e-6
#: The fewest frequencies a memory is fitted to (scenario/bem_file's, which loads numpy: the
#: server starts without it; tests/unit/test_bem_file.py checks they agree).
MIN_FREQUENCIES = 8
#: The largest job accepted, estimated CPU seconds.
MAX_SECONDS = 120.0
#: BEM seconds an address earns per second, and the most it holds (one largest job).
BEM_RATE = 0.05
BEM_BURST = MAX_SECONDS
#: A job is killed past this many times its estimate (a loaded machine's share of a core),
#: and never before MIN_DEADLINE_S.
DEADLINE_FACTOR = 20.0
MIN_DEADLINE_S = 120.0


class BemRequest(BaseModel):
    """What the page asks: the body (the only floating one when left out) and how many
    frequencies (sixdof bem's default when left out)."""

    model_config = ConfigDict(extra="forbid")
    body: str | None = Field(None, max_length=64)
    frequencies: int | None = Field(None, ge=MIN_FREQUENCIES, le=200)


class Child:
    """The BEM process, started from a worker thread: `subprocess.Popen` there spawns it with
    vfork, where the event loop's own spawn (uvloop's) forks the whole server on the loop,
    which the loop probe read as 8–18 ms of the loop's CPU at each job's start. Its stdout is
    read through the loop; its stdin (a line, then "go") is written from a worker thread."""

    def __init__(self, popen: subprocess.Popen[bytes], stdout: asyncio.StreamReader) -> None:
        self.popen = popen
        self.stdout = stdout

    @classmethod
    async def start(cls, command: list[str], env: dict[str, str]) -> Child:
        popen = await asyncio.to_thread(
            subprocess.Popen, command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
        await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), popen.stdout
        )
        return cls(popen, reader)

    async def send(self, data: bytes) -> None:
        await asyncio.to_thread(self._send, data)

    def _send(self, data: bytes) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(data)
        self.popen.stdin.flush()

    async def wait(self) -> int:
        """Its exit status, once it has ended (reaped in a worker thread); its stdin closed."""
        code = await asyncio.to_thread(self.popen.wait)
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        return code


class Job:
    """The server's BEM job: its room, state, progress and outcome, and its child."""

    def __init__(self, room: str) -> None:
        self.room = room
        self.state = "running"
        self.body: str | None = None
        self.panels = 0
        self.frequencies = 0
        self.seconds = 0.0  # the estimate charged
        self.done = 0
        self.total = 0
        self.error: str | None = None
        self.fit: dict[str, Any] | None = None
        self.stopping = False
        self.child: Child | None = None
        self.task: asyncio.Task[None] | None = None

    def kill(self) -> None:
        """Kill the child now (safe in a signal handler)."""
        child = self.child
        if child is not None and child.popen.returncode is None:
            with contextlib.suppress(OSError):
                os.kill(child.popen.pid, signal.SIGKILL)

    def fail(self, error: str) -> None:
        self.state, self.error = "failed", error
        self.kill()

    def view(self) -> dict[str, Any]:
        return {
            "state": self.state, "body": self.body, "panels": self.panels,
            "frequencies": self.frequencies, "seconds": round(self.seconds, 3),
            "done": self.done, "total": self.total, "error": self.error, "fit": self.fit,
        }  # fmt: skip


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    job: Job | None = getattr(app.state, "bem_job", None)
    if job is not None:  # the app stops: so does its job
        job.stopping = True
        job.kill()
        if job.task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(job.task, 10)


router = APIRouter(prefix="/api", lifespan=_lifespan)


def _budgets(request: Request) -> Budgets:
    state = request.app.state
    if getattr(state, "bem_budgets", None) is None:
        state.bem_budgets = Budgets(BEM_RATE, BEM_BURST)
    budgets: Budgets = state.bem_budgets
    return budgets


@router.get("/rooms/{room}/bem", response_model=dict[str, Any])
async def bem_status(request: Request, room: str) -> dict[str, Any]:
    """The room's BEM job: state (idle, running, done, failed), frequencies done of total,
    error, and once done the fitted radiation memory (`fit`)."""
    _room(request, room)
    job: Job | None = getattr(request.app.state, "bem_job", None)
    if job is None or job.room != room:
        return {"state": "idle", "busy": job is not None and job.state == "running"}
    return job.view()


@router.post("/rooms/{room}/bem", response_model=dict[str, Any], status_code=202)
async def bem_start(
    request: Request,
    room: str,
    ask: BemRequest,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    """Start `sixdof bem` for the room's floating body in a child process: 202 and the job's
    state (GET follows it), 409 while a job runs, 422 over the bound, 429 over the budget."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    target = _room(request, room)
    running: Job | None = getattr(request.app.state, "bem_job", None)
    if running is not None and running.state == "running":
        raise HTTPException(
            409,
            f"bem: a job is running for {running.body or 'a body'} in room {running.room!r} "
            f"({running.done} of {running.total or running.frequencies + 1} frequencies); "
            "one job per server at a time: try again when it is done",
        )
    address = _budgets(request).of(client_address(request))
    if address.left() <= 0.0:
        raise _spent(address, 0.0)
    with target.sim.lock:
        scenario = target.sim.scenario.model_dump(mode="json")
    job = request.app.state.bem_job = Job(room)
    try:
        await _set_up(job, {"scenario": scenario, "body": ask.body, "frequencies": ask.frequencies})
        _charge(job, address)
    except BaseException:
        # reaped before the answer: a refused job leaves no process behind, not even a zombie
        job.kill()
        if job.child is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(job.child.wait(), STARTUP_SECONDS)
        request.app.state.bem_job = None
        raise
    assert job.child is not None
    with contextlib.suppress(OSError):  # it ended: _follow reads its end
        await job.child.send(b"go\n")
    job.task = asyncio.get_running_loop().create_task(_follow(job))
    return JSONResponse(job.view(), status_code=202)


async def _set_up(job: Job, ask: dict[str, Any]) -> None:
    """Start the child and read the job it set up (422 with its refusal)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "CAPYTAINE_PROGRESS_BAR": "false"}  # fmt: skip
    command = [sys.executable, "-m", "sixdof.analysis.bem_child", str(os.getpid())]
    job.child = await Child.start(command, env)
    watch(job)
    try:
        await job.child.send(json.dumps(ask).encode() + b"\n")
        line = await asyncio.wait_for(job.child.stdout.readline(), STARTUP_SECONDS)
        said = json.loads(line)
    except (asyncio.TimeoutError, ValueError, OSError):
        raise HTTPException(503, "bem: the BEM process did not start; try again") from None
    if "error" in said:
        raise HTTPException(422, f"bem: {said['error']}")
    job.body, job.panels, job.frequencies = said["body"], said["panels"], said["frequencies"]
    job.total = job.frequencies + 1


def _charge(job: Job, address: WorkBudget) -> None:
    """Estimate the job's cost; 422 over MAX_SECONDS, 429 over the address's budget."""
    per_frequency = job.panels**2 * SECONDS_PER_PANEL2
    job.seconds = per_frequency * job.total
    if job.seconds > MAX_SECONDS:
        most = int(MAX_SECONDS / per_frequency) - 1
        fewer = (
            f"at most {most} frequencies for this hull" if most >= 2 else "a hull of fewer panels"
        )
        raise HTTPException(
            422,
            f"bem: {job.body}: {job.panels} panels² × {job.total} frequencies (the infinite "
            f"one counted) ≈ {job.seconds:.3g} s of computing, over the {MAX_SECONDS:g} s a "
            f"job may take; ask for {fewer}",
        )
    if address.left() < job.seconds:
        raise _spent(address, job.seconds)
    address.charge(job.seconds)


def _spent(budget: WorkBudget, need: float) -> HTTPException:
    wait = budget.wait_for(need)
    needs = f"this job needs about {need:.3g} s of computing; " if need > 0 else ""
    return HTTPException(
        429,
        f"bem: {needs}your address has {max(budget.left(), 0.0):.3g} s left of its BEM time "
        f"(it refills at {budget.rate:g} s per s, up to {budget.burst:g} s); try again in "
        f"{wait:.3g} s",
        headers={"Retry-After": str(max(1, round(wait)))},
    )


async def _follow(job: Job) -> None:
    """Read the child's progress until its fit, its error, its end or its deadline."""
    deadline = max(MIN_DEADLINE_S, DEADLINE_FACTOR * job.seconds)
    try:
        await asyncio.wait_for(_read(job), deadline)
    except asyncio.TimeoutError:
        job.fail(f"the job took longer than {deadline:.0f} s and was stopped")
    except asyncio.CancelledError:
        job.fail("the server stopped")
        raise
    finally:
        job.kill()
        if job.child is not None:
            with contextlib.suppress(Exception):
                await job.child.wait()


async def _read(job: Job) -> None:
    assert job.child is not None
    while True:
        line = await job.child.stdout.readline()
        if not line:
            stopped = "the server stopped" if job.stopping else "the BEM process ended"
            job.fail(f"{stopped} before the job was done")
            return
        said = json.loads(line)
        if "done" in said:
            job.done, job.total = int(said["done"]), int(said["total"])
        elif "fit" in said:
            job.fit, job.state = said["fit"], "done"
            return
        elif "error" in said:
            job.fail(str(said["error"]))
            return
