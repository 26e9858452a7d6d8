"""What a REST request that changes something costs its address: the websocket's budget.

A websocket message's computing time is charged to its address's budget (budget.py), and a
message arriving with it spent is refused before it is validated. A `PUT` of a scenario is
the same work as a `load_scenario` (validating and building up to 64 bodies) and a Share
link keeps a copy of a room, so both are charged to the same budget, the same way: `admit`
before anything costly is read, `charged` around the work. An address that has spent it
gets 429 with the budget's own sentence and Retry-After.

`admit` takes an estimate of the work, refused up front when it is over what is left (as a
`step` is); a scenario's is 0 until its cost is estimated before it is built.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import HTTPException, Request

from .budget import Budgets, WorkBudget, over_budget
from .pools import Meter, metering
from .settings import Settings


def client_address(request: Request) -> str:
    """The network address a request's budget is kept under."""
    return request.client.host if request.client else "unknown"


def address_budget(request: Request) -> WorkBudget:
    """The budget of the request's address, which its websockets share."""
    budgets: Budgets = request.app.state.budgets
    return budgets.of(client_address(request))


def admit(request: Request, kind: str, estimate: float = 0.0, asked: float = 0.0) -> WorkBudget:
    """The address's budget when it has something left and at least `estimate` s; else 429
    naming what is left, the refill rate and when to try again (counting `asked`, what the
    request's checks so far cost, which asking again costs again)."""
    budget = address_budget(request)
    left = budget.left()
    if left > 0.0 and estimate <= left:
        return budget
    settings: Settings = request.app.state.settings
    refusal = over_budget(
        kind, estimate, left, settings.work_rate, settings.work_burst, None, budget, asked
    )
    wait = budget.wait_for(max(estimate, 0.0) + asked)
    raise HTTPException(429, refusal.message, headers={"Retry-After": str(max(1, math.ceil(wait)))})


@contextmanager
def charged(budget: WorkBudget, at_least: float = 0.0) -> Iterator[Meter]:
    """Charge the CPU the block's work takes (at least `at_least` s) to `budget`, refused or
    not: a body that fails validation cost its validation. Its work in the requests' pool
    (`off_loop`) is counted; a synchronous block on the loop is counted with the meter's
    `here`."""
    with metering() as meter:
        try:
            yield meter
        finally:
            budget.charge(max(at_least, meter.cpu))
