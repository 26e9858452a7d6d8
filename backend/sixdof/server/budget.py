"""What a client may cost: seconds of server computing, charged per network address.

Counting messages (clients.RateLimiter) does not bound work: one `step` of 10,000 steps of
64 bodies costs 0.4 s, a thousand `pause` messages cost nothing. Every message's handling
time is measured and charged to a token bucket of *seconds* kept per address (all
connections from one address share it, so opening more sockets buys nothing); a message
arriving with the bucket empty is refused before it is even validated, and a costly one
(a `step`, a scenario) is refused up front when its estimate is over what is left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from .errors import Refusal


class WorkBudget:
    """A token bucket of compute seconds: `rate` s per s, holding at most `burst` s."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._tokens = burst
        self._last = clock()

    def left(self) -> float:
        """Seconds available now (negative after a message that cost more than was left)."""
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        return self._tokens

    def charge(self, seconds: float) -> None:
        self.left()
        self._tokens -= seconds

    @property
    def full(self) -> bool:
        return self.left() >= self.burst

    def wait_for(self, seconds: float) -> float:
        """Seconds until `seconds` of budget will be there."""
        return max(0.0, (seconds - self.left()) / self.rate)


class Budgets:
    """One WorkBudget per client address, dropped again once it has refilled."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._new = partial(WorkBudget, rate, burst, clock)
        self._by_address: dict[str, WorkBudget] = {}

    def of(self, address: str) -> WorkBudget:
        budget = self._by_address.get(address)
        if budget is None:
            if len(self._by_address) > 1024:  # forget the addresses that owe nothing
                self._by_address = {a: b for a, b in self._by_address.items() if not b.full}
            budget = self._by_address[address] = self._new()
        return budget


def over_budget(
    kind: str, estimate: float, left: float, rate: float, burst: float, mid: str | int | None
) -> Refusal:
    """The refusal of a `kind` message estimated at `estimate` s with `left` s in the bucket."""
    need = f"about {estimate:.3g} s of computing; " if estimate > 0 else ""
    wait = (max(estimate, 0.0) - left) / rate
    return Refusal(
        "rate_limited",
        f"{kind}: {need}your address has {max(left, 0.0):.3g} s left of its budget "
        f"(it refills at {rate:g} s per s, up to {burst:g} s); try again in {wait:.2g} s",
        "n" if kind == "step" else None,
        mid,
    )
