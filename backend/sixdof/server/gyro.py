"""POST /api/rooms/{room}/gyro: a gyroscope recording fitted, and compared with the room's
body (analysis/gyro.py does the work, in a child process; this module bounds and authorises
it).

The page sends the file as it is (text/csv). Server-side, because the fit is scipy's
least squares and the comparison is the headless runner's own simulation: the page would
otherwise carry a second integrator and an optimiser. Before anything is parsed: the
Origin is checked and the token (if the server has one) as for any change of a room, and
the body is read only up to GYRO_MAX_BYTES.

Every fit's cost is known before it runs (analysis/gyro_cost.py: samples, duration and
the fastest rate give the integrations' steps; up to 10 s of computing, 422 beyond, naming
the largest fit accepted). The child process reads the file and counts that cost; the cost
is then charged up front to the client's address (GYRO_RATE s per s up to GYRO_BURST s,
apart from the websocket's budget: a fit must not leave the page unable to apply it) and to
all addresses together (GYRO_SHARED_RATE up to GYRO_SHARED_BURST: many addresses cannot
together keep the fitting process busy), 429 when either is short; what the fit did not use
of it is given back when it ends. One fit runs at a time (429 while one does), in the child
(server/fit_process.py), which is killed past `gyro_fit_seconds` (503) and when the server
stops. The event loop only awaits it. The reply's series are thinned to at most
SERIES_POINTS points, and its JSON, made in the child, is passed on as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import Response

from .budget import Budgets, WorkBudget
from .fit_process import FitLost, FitProcess, FitTimeout
from .request_body import capped_body
from .rest import _require_control, _room
from .rest_budget import client_address
from .settings import Settings
from .ws import origin_allowed


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    process = getattr(app.state, "gyro_process", None)
    if process is not None:  # the app stops: so does its fitting process
        await process.close()


router = APIRouter(prefix="/api", lifespan=_lifespan)

#: Largest recording accepted, bytes (200,000 phyphox rows take about 16 MB; a throw's few
#: seconds at 500 Hz about 200 kB).
GYRO_MAX_BYTES = 4 * 1024 * 1024
#: Points per series in the reply.
SERIES_POINTS = 2000

#: Fitting time an address earns per second, and the most it can hold, s.
GYRO_RATE = 0.1
GYRO_BURST = 10.0
#: Fitting time all addresses together earn per second, and the most they can hold, s: however
#: many addresses ask, their fits are charged at most half of the fitting process's seconds.
GYRO_SHARED_RATE = 0.5
GYRO_SHARED_BURST = 20.0

#: Reading a file in the child and counting its fit's cost, s per byte (4 MiB: ~0.15 s
#: measured), charged before it is sent: files refused there cost their address too.
READ_SECONDS_PER_BYTE = 5e-8


def _state(request: Request) -> tuple[Budgets, WorkBudget, FitProcess]:
    """The app's fitting budgets and process, made with its first fit."""
    state = request.app.state
    if getattr(state, "gyro_process", None) is None:
        state.gyro_budgets = Budgets(GYRO_RATE, GYRO_BURST)
        state.gyro_shared = WorkBudget(GYRO_SHARED_RATE, GYRO_SHARED_BURST)
        state.gyro_process = FitProcess()
    return state.gyro_budgets, state.gyro_shared, state.gyro_process


def _payers(address: WorkBudget, shared: WorkBudget) -> tuple[tuple[str, WorkBudget], ...]:
    return (("your address has", address), ("the server (all addresses) has", shared))


def _charge_up_front(address: WorkBudget, shared: WorkBudget, seconds: float) -> None:
    """Charge `seconds` to both budgets, or 429 naming the one that has less left."""
    for whose, budget in _payers(address, shared):
        if budget.left() < seconds or budget.left() <= 0.0:
            raise _spent(whose, budget, seconds)
    address.charge(seconds)
    shared.charge(seconds)


def _spent(whose: str, budget: WorkBudget, need: float) -> HTTPException:
    """429 for a fit of about `need` s (0: any) that `budget` cannot pay now."""
    wait = budget.wait_for(need)
    needs = f"this fit needs up to {need:.2g} s of computing; " if need > 0 else ""
    return HTTPException(
        429,
        f"gyro: {needs}{whose} {max(budget.left(), 0.0):.2g} s left of its fitting time (it "
        f"refills at {budget.rate:g} s per s, up to {budget.burst:g} s); try again in "
        f"{wait:.2g} s",
        headers={"Retry-After": str(max(1, round(wait)))},
    )


def _refused(head: dict[str, Any]) -> HTTPException | None:
    """The child's refusal of the file or the fit, as it said it."""
    if "status" not in head:
        return None
    return HTTPException(int(head["status"]), str(head["detail"]))


@router.post("/rooms/{room}/gyro", response_model=dict[str, Any])
async def gyro(
    request: Request,
    room: str,
    body: Annotated[str | None, Query(max_length=64, description="body Name")] = None,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    """Fit a gyroscope recording (the request body: phyphox's CSV, or t, ωx, ωy, ωz) and
    simulate the room's body from its initial ω: the fit (`sixdof fit --json`'s fields),
    the measured ω, the simulated ω of the body as it is and with the fitted inertia, and
    the set_params fields that apply the fit. Needs the token if the server has one."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    target = _room(request, room)
    raw = await capped_body(request, GYRO_MAX_BYTES)
    with target.sim.lock:
        scenario = target.sim.scenario
    try:
        spec = scenario.body(body) if body else scenario.bodies[0]
    except KeyError as exc:
        raise HTTPException(422, str(exc.args[0])) from None
    budgets, shared, process = _state(request)
    address = budgets.of(client_address(request))
    if process.stopping:
        raise HTTPException(503, "gyro: the server is stopping")
    if process.busy:
        raise HTTPException(
            429, "gyro: a fit is running; try again in a second", headers={"Retry-After": "1"}
        )
    _charge_up_front(address, shared, len(raw) * READ_SECONDS_PER_BYTE)
    process.busy = True
    try:
        answer = await _fit(process, raw, spec.model_dump(mode="json"), settings, address, shared)
    finally:
        process.busy = False
    return Response(answer, media_type="application/json")


async def _fit(
    process: FitProcess,
    raw: bytes,
    spec: dict[str, Any],
    settings: Settings,
    address: WorkBudget,
    shared: WorkBudget,
) -> bytes:
    """Read and cost the file in the child, charge the cost, fit: the answer's JSON bytes."""
    loop = asyncio.get_running_loop()
    limit = settings.gyro_fit_seconds
    cost = 0.0  # charged for the fit, until it runs
    started = loop.time()
    fit_cpu: float | None = None  # what the fit took, as the child measured it
    try:
        head, _ = await process.ask({"do": "read"}, raw, limit)
        if (refusal := _refused(head)) is not None:
            raise refusal
        _charge_up_front(address, shared, float(head["cost"]["seconds"]))
        cost = float(head["cost"]["seconds"])
        started = loop.time()
        head, answer = await process.ask(
            {"do": "fit", "body": spec, "points": SERIES_POINTS}, None, limit
        )
        fit_cpu = float(head["cpu_s"]) if "cpu_s" in head else None
        if (refusal := _refused(head)) is not None:
            raise refusal
        assert answer is not None
        return answer
    except FitTimeout:
        raise HTTPException(
            503,
            f"gyro: the fit took longer than {limit:g} s (the server's gyro_fit_seconds) and "
            "was stopped; a shorter record (cut to the flight) fits sooner",
        ) from None
    except FitLost:
        if process.stopping:
            raise HTTPException(503, "gyro: the server is stopping; the fit was stopped") from None
        raise HTTPException(
            503, "gyro: the fitting process ended before it answered; try again"
        ) from None
    finally:
        # what the fit did not use of its estimate goes back (a fit near the recording's
        # noise stops early: a tenth of it or less): its CPU, as the child measured it (a
        # loaded machine stretches its wall time); the wall time if it never answered
        used = fit_cpu if fit_cpu is not None else loop.time() - started
        unused = max(0.0, cost - used)
        address.charge(-unused)
        shared.charge(-unused)
