"""GET /api/rooms/{room}/hydrodynamics: what the page's Hydrodynamics card draws for a body's
radiation element (issue 43): the BEM file's A(ω), B(ω) against the fitted memory's, K(t) of
both, and the fit's error (scenario/radiation_card.py computes them from the element's `fit`,
which carries the file's samples). Open to watchers, as the scenario is; the work (a few ms
of numpy) runs off the event loop and is charged to the address as a websocket message's.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request

from ..scenario.kinds.radiation import RadiationElement, fit_in_water
from ..scenario.water import WaterSpec
from .pools import off_loop
from .protocol import Hydrodynamics
from .rest import _room
from .rest_budget import admit, charged

router = APIRouter(prefix="/api")


@router.get("/rooms/{room}/hydrodynamics", response_model=Hydrodynamics)
async def hydrodynamics(
    request: Request, room: str, body: Annotated[str | None, Query(max_length=64)] = None
) -> dict[str, Any]:
    """A body's radiation memory for the Hydrodynamics card: the BEM file's A(ω), B(ω) and
    the fitted model's, K(t) of both, the fit's error (`body`: the only body with a radiation
    element when left out); 404 when it has none, 422 when its fit carries no file samples
    (nor does another element's of the same memory, as a preset's twin's original does)."""
    scenario = _room(request, room).sim.scenario
    radiation = [e for e in scenario.elements if isinstance(e, RadiationElement)]
    named = [e for e in radiation if body is None or e.body == body]
    if not named or (body is None and len({e.body for e in named}) > 1):
        bodies = ", ".join(sorted({e.body for e in radiation})) or "none"
        raise HTTPException(
            404,
            f"no radiation element for body {body!r} (bodies with one: {bodies})"
            if body is not None or not radiation
            else f"name a body: several have a radiation element ({bodies})",
        )
    element = named[0]
    fit = element.fit
    if fit is not None and fit.samples is None:  # a twin carrying its original's memory
        kept = [e.fit.samples for e in radiation if e.fit is not None and e.fit.samples
                and (e.fit.A, e.fit.B, e.fit.C) == (fit.A, fit.B, fit.C)]  # fmt: skip
        fit = fit.model_copy(update={"samples": kept[0]}) if kept else fit
    if fit is not None:  # in the room's water, as its dynamics have it
        fit = fit_in_water(fit, (scenario.water or WaterSpec()).density)
    budget = admit(request, "hydrodynamics")
    with charged(budget):
        try:
            data = await off_loop(_card, fit)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
    return {"body": element.body, **data}


def _card(fit: Any) -> dict[str, Any]:
    from ..scenario.radiation_card import card  # numpy: loaded with the first room

    return card(fit)
