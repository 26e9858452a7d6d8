"""What a request or a message is charged is the CPU its work takes, not its wall time
(server/pools.py's Meter): a request whose work waits (for a lock, a disk, a gateway's
worker) or runs on a machine loaded by other processes is not billed for the waiting. The
waits here are the work being measured (a thread that sleeps costs no CPU), not waits for a
condition."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest

from sixdof.server.budget import WorkBudget, over_budget
from sixdof.server.control import VALIDATE_ON_LOOP, handle
from sixdof.server.pools import Meter, metering, off_loop
from sixdof.server.rest_budget import charged
from sixdof.server.settings import Settings

WAIT_S = 0.2
BURN_S = 0.05


def _waits() -> str:
    time.sleep(WAIT_S)
    return "done"


def _burns(seconds: float = BURN_S) -> float:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass
    return seconds


def _burns_then_fails() -> None:
    _burns()
    raise ValueError("the body is not a scenario")


def _charge_of(work: Any, at_least: float = 0.0) -> tuple[float, Any]:
    """(what `charged` charged a budget with a standing clock, what the work returned)."""
    budget = WorkBudget(rate=1.0, burst=10.0, clock=lambda: 0.0)

    async def request() -> Any:
        with charged(budget, at_least):
            return await off_loop(work)

    try:
        result: Any = asyncio.run(request())
    except ValueError as exc:
        result = exc
    return 10.0 - budget.left(), result


def test_a_request_that_waits_is_not_charged_the_wait() -> None:
    spent, result = _charge_of(_waits)
    assert result == "done"
    assert spent < 0.02  # its CPU; charged its wall time, it would be at least WAIT_S


def test_a_request_is_charged_the_cpu_its_work_took() -> None:
    spent, _ = _charge_of(_burns)
    assert BURN_S <= spent < BURN_S + 0.02


def test_a_request_is_charged_at_least_its_floor() -> None:
    spent, _ = _charge_of(_waits, at_least=0.3)
    assert spent == pytest.approx(0.3)


def test_a_refused_body_is_charged_its_validation() -> None:
    spent, result = _charge_of(_burns_then_fails)
    assert isinstance(result, ValueError)
    assert BURN_S <= spent < BURN_S + 0.02


def test_work_is_counted_once_by_the_innermost_meter() -> None:
    async def nested() -> tuple[float, float]:
        with metering() as outer:
            await off_loop(_burns)
            with metering() as inner:
                await off_loop(_burns)
        return outer.cpu, inner.cpu

    outer, inner = asyncio.run(nested())
    assert BURN_S <= outer < BURN_S + 0.02
    assert BURN_S <= inner < BURN_S + 0.02


def test_a_synchronous_block_is_counted_here() -> None:
    meter = Meter()
    with meter.here():
        _burns()
    with meter.here():
        time.sleep(WAIT_S / 4)
    assert BURN_S <= meter.cpu < BURN_S + 0.02


def test_a_message_answered_later_by_its_gate_is_charged_its_reading_not_the_wait() -> None:
    """A gateway's gate awaits the room's worker: the client is charged what the worker
    reports (its own CPU), not the round trip."""

    async def answered_later() -> list[tuple[str, str]]:
        await asyncio.sleep(WAIT_S)
        return [('{"type": "ack"}', "reply")]

    def gate(kind: str, obj: dict[str, Any], mid: Any) -> Any:
        return answered_later()

    text = '{"type": "pause", "id": 7}'
    replies, spent = asyncio.run(handle(text, None, 1.0, Settings(), gate))  # type: ignore[arg-type]
    assert replies == [('{"type": "ack"}', "reply")]
    assert 0.0 <= spent < 0.02


def test_a_refused_message_is_charged_what_refusing_it_took() -> None:
    """A large message is validated off the loop: its validation's CPU is counted."""
    element = json.dumps({"type": "spring", "bodyA": "B"})
    text = json.dumps({"type": "set_elements", "id": 3, "elements": []})
    text = text.replace("[]", "[" + ",".join([element] * 2000) + "]")
    assert len(text) > VALIDATE_ON_LOOP
    replies, spent = asyncio.run(handle(text, None, 1.0, Settings()))  # type: ignore[arg-type]
    assert '"error"' in replies[0][0]
    assert 0.0 < spent < 1.0


@pytest.mark.parametrize("estimate", [0.0, 0.3])
def test_a_client_that_waits_as_told_is_not_refused_again(estimate: float) -> None:
    """The refusal's "try again in" counts what checking the message cost (charged, and
    charged again when it is asked again): after exactly that wait the budget holds the
    estimate (a message's check compares it with what is left before its own cost)."""
    clock = [0.0]
    budget = WorkBudget(rate=0.25, burst=1.0, clock=lambda: clock[0])
    budget.charge(0.9 if estimate else 1.05)  # 0.1 s left, or 0.05 s owed
    checked = 0.05  # a large scenario's validation and estimate

    async def refused() -> str:
        with metering() as meter:
            meter.cpu = checked
            return over_budget("load_scenario", estimate, budget.left(), 0.25, 1.0, 1).message

    message = asyncio.run(refused())
    budget.charge(checked)  # what handle() charges for the refused message
    found = re.search(r"try again in ([0-9.e+-]+) s", message)
    assert found is not None, message
    clock[0] += float(found.group(1))
    left = budget.left()
    assert left >= estimate and left > 0.0, message  # not refused again
    assert left < estimate + checked + 0.01  # the wait is not padded beyond the cost
