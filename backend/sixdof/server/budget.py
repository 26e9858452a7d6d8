"""What a client may cost: seconds of server computing, charged per network address.

Counting messages (clients.RateLimiter) does not bound work: one `step` of 10,000 steps of
64 bodies costs 0.4 s, a thousand `pause` messages cost nothing. Every message's computing
time (the CPU its work takes, pools.Meter: not its wall time, which a loaded machine would
stretch and bill to the client) is charged to a token bucket of *seconds* kept per address (all
connections from one address share it, so opening more sockets buys nothing); a message
arriving with the bucket empty is refused before it is even validated, and a costly one
(a `step`, a scenario) is refused up front when its estimate is over what is left.

Looking back (a past frame, going back; simulation/replay.py) costs tens of ms: it runs in
pieces of ~2 ms with the event loop free between them (`run_pieces`), each piece charged to
the address, one look back of an address at a time (`WorkBudget.lane`: the others wait
their turn, at most LOOKBACK_QUEUE of them) and at most LOOKBACK_PARALLEL of all addresses
at once (`Budgets.lookbacks`), so the pieces of many clients cannot pile up before a tick.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import Refusal
from .pools import counted_so_far, off_loop

if TYPE_CHECKING:
    from ..simulation.pieces import Pieces

#: Look backs of one address waiting for their turn; more are refused at once (429), which
#: costs the server nothing but the request's parsing.
LOOKBACK_QUEUE = 16
#: Look backs running at once, of all addresses (their pieces run in the requests' pool).
LOOKBACK_PARALLEL = 2
#: All addresses together may cause as much computing as this many addresses at full
#: tilt: a room full of clients (or one client behind many addresses) cannot take more.
ALL_ADDRESSES = 2.0

T = TypeVar("T")


class WorkBudget:
    """A token bucket of compute seconds: `rate` s per s, holding at most `burst` s; and
    the address's queue of look backs (`lane`, `queued`)."""

    def __init__(
        self,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        shared: WorkBudget | None = None,
    ) -> None:
        """shared: a budget every address also draws on (Budgets' `everyone`)."""
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.shared = shared
        self._tokens = burst
        self._last = clock()
        self.lane = asyncio.Lock()  # FIFO: one look back of this address at a time
        self.queued = 0  # look backs of this address running or waiting

    def own(self) -> float:
        """Seconds this budget alone holds now."""
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        return self._tokens

    def left(self) -> float:
        """Seconds available now, the shared budget's too (negative after a message that cost
        more than was left)."""
        own = self.own()
        return own if self.shared is None else min(own, self.shared.left())

    def charge(self, seconds: float) -> None:
        self.own()
        self._tokens -= seconds
        if self.shared is not None:
            self.shared.charge(seconds)

    @property
    def full(self) -> bool:
        return self.own() >= self.burst

    def wait_for(self, seconds: float) -> float:
        """Seconds until `seconds` of budget will be there."""
        wait = max(0.0, (seconds - self.own()) / self.rate)
        return wait if self.shared is None else max(wait, self.shared.wait_for(seconds))


class Budgets:
    """One WorkBudget per client address, dropped again once it has refilled, each also
    drawing on `everyone`: ALL_ADDRESSES addresses' worth for all of them together."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = burst
        self.everyone = WorkBudget(rate * ALL_ADDRESSES, burst * ALL_ADDRESSES, clock)
        self._new = partial(WorkBudget, rate, burst, clock, self.everyone)
        self._by_address: dict[str, WorkBudget] = {}
        self.lookbacks = asyncio.Semaphore(LOOKBACK_PARALLEL)

    def of(self, address: str) -> WorkBudget:
        budget = self._by_address.get(address)
        if budget is None:
            if len(self._by_address) > 1024:  # forget the addresses that owe nothing
                self._by_address = {
                    a: b for a, b in self._by_address.items() if b.queued or not b.full
                }
            budget = self._by_address[address] = self._new()
        return budget

    def own_left(self, address: str) -> float:
        """Seconds `address`'s own budget holds (a whole one for an address not seen yet,
        which asking does not enter into the table)."""
        budget = self._by_address.get(address)
        return self.burst if budget is None else budget.own()

    @asynccontextmanager
    async def lookback(
        self, budget: WorkBudget, kind: str, estimate: float = 0.0
    ) -> AsyncIterator[float]:
        """A turn to look back for `budget`'s address: after its earlier look backs (FIFO),
        once its budget holds the look back's `estimate` (lookback_seconds), and while fewer
        than LOOKBACK_PARALLEL others run. The estimate is charged when the turn comes and
        yielded (`run_pieces` charges only what the pieces take beyond it, and gives back
        what they did not use). Refusal `rate_limited` at once when LOOKBACK_QUEUE already
        wait, or when the budget would take longer than `burst / rate` s to hold it."""
        if budget.queued >= LOOKBACK_QUEUE:
            raise Refusal(
                "rate_limited",
                f"{kind}: {budget.queued} look backs of your address are waiting already "
                f"(at most {LOOKBACK_QUEUE}); wait for their answers",
            )
        budget.queued += 1
        try:
            async with budget.lane:
                wait = budget.wait_for(estimate) if budget.left() <= estimate else 0.0
                if wait > budget.burst / budget.rate:
                    raise over_budget(
                        kind, estimate, budget.left(), budget.rate, budget.burst, None, budget
                    )
                if wait > 0.0:  # queued, not refused: the client waits instead of asking again
                    await asyncio.sleep(wait)
                async with self.lookbacks:
                    budget.charge(estimate)
                    yield estimate
        finally:
            budget.queued -= 1


#: The budget of the client whose message is being handled (ws.py sets it for each
#: connection's receive loop): control.py's `go_back` takes its turn in that address's lane.
CURRENT: contextvars.ContextVar[tuple[Budgets, WorkBudget] | None] = contextvars.ContextVar(
    "sixdof_budget", default=None
)


async def run_pieces(
    pieces: Pieces[T], budget: WorkBudget | None = None, reserved: float = 0.0
) -> tuple[T, float]:
    """Run a look back's pieces (simulation/pieces.py) one after another in the requests'
    thread pool (pools.off_loop), the event loop free throughout; its result and the
    computing seconds it took (the threads' CPU). `reserved`: seconds already charged to
    `budget` for it, up front (Budgets.lookback); what the pieces take beyond that is
    charged as each piece ends, and what they left of it is given back at the end. An
    uncuttable piece (`Offload`) runs in the same pool."""
    spent = 0.0
    value: Any = None
    try:
        while True:
            finished, asked, cpu = await off_loop(_timed_send, pieces, value)
            spent = _charge(budget, spent, cpu, reserved)
            if finished:
                result: T = asked
                return result, spent
            value = None
            if asked is not None:
                value, cpu = await off_loop(_timed_call, asked.fn, *asked.args)
                spent = _charge(budget, spent, cpu, reserved)
    finally:
        if budget is not None and spent < reserved:
            budget.charge(spent - reserved)  # an estimate errs high: the rest is given back


def _timed_send(pieces: Pieces[T], value: Any) -> tuple[bool, Any, float]:
    """One piece, in a worker thread: (finished, what it asked for or its result, its CPU
    seconds). A StopIteration cannot cross into an asyncio future, so it is unpacked here."""
    started = time.thread_time()
    try:
        return False, pieces.send(value), time.thread_time() - started
    except StopIteration as done:
        return True, done.value, time.thread_time() - started


def _timed_call(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.thread_time()
    return fn(*args), time.thread_time() - started


def _charge(budget: WorkBudget | None, spent: float, seconds: float, reserved: float) -> float:
    """Charge the part of a piece's `seconds` beyond what was `reserved`; the new total."""
    total = spent + seconds
    if budget is not None:
        budget.charge(max(0.0, total - max(reserved, spent)))
    return total


def over_budget(
    kind: str,
    estimate: float,
    left: float,
    rate: float,
    burst: float,
    mid: str | int | None,
    budget: WorkBudget | None = None,
    asked: float | None = None,
) -> Refusal:
    """The refusal of a `kind` message estimated at `estimate` s with `left` s in the bucket
    (`budget`, when given: the address's, which says whether the budget for all addresses is
    the one short). Its "try again in" counts `asked`, what checking the message cost (it
    is charged, and asking again costs it again): a client that waits exactly that long is
    not refused again. None: what the meter in force (pools.metering) has counted so far."""
    need = f"about {estimate:.3g} s of computing; " if estimate > 0 else ""
    whose = "your address has {} s left of its budget"
    shared = budget.shared if budget is not None else None
    if shared is not None and shared.left() < budget.own():  # type: ignore[union-attr]
        whose = "all addresses together have {} s left of their budget"
        rate, burst = shared.rate, shared.burst
    asked = counted_so_far() if asked is None else asked
    wait = math.ceil(100.0 * max(0.0, max(estimate, 0.0) - left + asked) / rate) / 100.0
    return Refusal(
        "rate_limited",
        f"{kind}: {need}{whose.format(f'{max(left, 0.0):.3g}')} "
        f"(it refills at {rate:g} s per s, up to {burst:g} s); try again in {wait:g} s",
        "n" if kind == "step" else None,
        mid,
    )
