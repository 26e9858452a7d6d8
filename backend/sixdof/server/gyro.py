"""POST /api/rooms/{room}/gyro: a gyroscope recording fitted, and compared with the room's
body (analysis/gyro.py does the work; this module bounds and authorises it).

The page sends the file as it is (text/csv). Server-side, because the fit is scipy's
least squares and the comparison is the headless runner's own simulation: the page would
otherwise carry a second integrator and an optimiser. Before anything is parsed: the
Origin is checked and the token (if the server has one) as for any change of a room, the
body is read only up to GYRO_MAX_BYTES, and the client's address must have fitting time
left (a budget of its own, GYRO_RATE s per s up to GYRO_BURST s, apart from the websocket's:
a fit of a few seconds must not leave the page unable to apply it); one fit runs at a time
(a second waits for none: 429), in a worker thread so the rooms keep ticking. The reply's
series are thinned to at most SERIES_POINTS points.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import warnings
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request

from ..fields import FieldError
from .budget import Budgets
from .rest import _capped_body, _require_control, _room
from .settings import Settings
from .ws import origin_allowed

router = APIRouter(prefix="/api")

#: Largest recording accepted, bytes (200,000 phyphox rows take about 16 MB; a throw's few
#: seconds at 500 Hz about 200 kB).
GYRO_MAX_BYTES = 4 * 1024 * 1024
#: Points per series in the reply.
SERIES_POINTS = 2000

#: Fitting time an address earns per second, and the most it can hold, s.
GYRO_RATE = 0.1
GYRO_BURST = 10.0

_busy = threading.Lock()


def _budgets(request: Request) -> Budgets:
    """The app's fitting budgets, made with its first fit."""
    state = request.app.state
    budgets = getattr(state, "gyro_budgets", None)
    if budgets is None:
        budgets = state.gyro_budgets = Budgets(GYRO_RATE, GYRO_BURST)
    return budgets


def _thin(t: Any, w: Any) -> dict[str, Any]:
    """Every k-th sample of times t (n,) and ω (n, 3), at most SERIES_POINTS of them."""
    stride = max(1, math.ceil(len(t) / SERIES_POINTS))
    return {"t": t[::stride].tolist(), "omega": [w[::stride, k].tolist() for k in range(3)]}


def _work(text: str, room: Any, body_name: str | None) -> dict[str, Any]:
    """Read, fit, compare (in a worker thread); GyroFileError for a bad file."""
    from ..analysis.gyro import fit, fitted_scenario, read_gyro_text, simulate_body

    data = read_gyro_text(text, name="the file")
    result = fit(data)
    with room.sim.lock:
        scenario = room.sim.scenario
    try:
        spec = scenario.body(body_name) if body_name else scenario.bodies[0]
    except KeyError as exc:
        raise FieldError("body", "invalid", str(exc.args[0])) from None
    with warnings.catch_warnings():  # impossible inertia: warned when the room got it
        warnings.simplefilter("ignore")
        izz = float(spec.params().inertia_cg[2, 2])
    rz = math.sqrt(izz / spec.Mass)  # the body's own Izz is kept; Ix, Iy follow the ratios
    a, b = (float(v) for v in result.ratios)
    radii = [rz * math.sqrt(a), rz * math.sqrt(b), rz]
    t_sim, w_sim = simulate_body(spec, result.omega0, float(data.t[-1]))
    fitted_body = spec.model_copy(update={"InertiaRadi": tuple(radii), "Inertia": None})
    t_fit, w_fit = simulate_body(fitted_body, result.omega0, float(data.t[-1]))
    reply = result.to_json()
    reply.update(
        {
            "body": spec.Name,
            "measured": _thin(data.t, data.omega),
            "simulated": {
                **_thin(t_sim, w_sim),
                "InertiaRadi": list(spec.InertiaRadi),
                "Inertia": spec.Inertia,
                "model": spec.model,
            },
            "simulated_fitted": _thin(t_fit, w_fit),
            "apply": {"InertiaRadi": radii, "Inertia": None},
            "scenario": fitted_scenario(result, mass=spec.Mass, radius=rz).model_dump(mode="json"),
        }
    )
    return reply


@router.post("/rooms/{room}/gyro")
async def gyro(
    request: Request,
    room: str,
    body: Annotated[str | None, Query(max_length=64, description="body Name")] = None,
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """Fit a gyroscope recording (the request body: phyphox's CSV, or t, ωx, ωy, ωz) and
    simulate the room's body from its initial ω: the fit (`sixdof fit --json`'s fields),
    the measured ω, the simulated ω of the body as it is and with the fitted inertia, and
    the set_params fields that apply the fit. Needs the token if the server has one."""
    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not change rooms (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    target = _room(request, room)
    raw = await _capped_body(request, GYRO_MAX_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HTTPException(400, "the file: not UTF-8 text (a CSV export)") from None
    budget = _budgets(request).of(request.client.host if request.client else "unknown")
    if budget.left() <= 0.0:
        wait = budget.wait_for(0.0)
        raise HTTPException(
            429,
            f"gyro: your address has used its fitting time; try again in {wait:.2g} s",
            headers={"Retry-After": str(max(1, round(wait)))},
        )
    if not _busy.acquire(blocking=False):
        raise HTTPException(
            429, "gyro: a fit is running; try again in a second", headers={"Retry-After": "1"}
        )
    from ..analysis.gyro import GyroFileError

    started = time.perf_counter()
    try:
        return await asyncio.to_thread(_work, text, target, body)
    except GyroFileError as exc:
        raise HTTPException(422, str(exc)) from None
    except FieldError as exc:
        raise HTTPException(422, exc.message) from None
    finally:
        _busy.release()
        budget.charge(time.perf_counter() - started)
