"""A look back's cost is known before it runs (issue 40): the estimate from the keyframe before
`t` to `t` is charged to the address when its turn comes, what the pieces take beyond it as
they end, and what they left of it is given back."""

from __future__ import annotations

import asyncio

import pytest
from support.driving import crowd as driven

from sixdof.server.budget import Budgets, run_pieces
from sixdof.server.errors import Refusal
from sixdof.simulation.cost import REPLAY_FRAME, REPLAY_START, lookback_seconds
from sixdof.simulation.replay import past_frame_pieces


def test_the_estimate_counts_the_steps_from_the_keyframe_before_t() -> None:
    sim = driven()  # 7000 steps of 8 bodies: one segment, from t = 0
    rec = sim.recording
    assert rec is not None
    per_step = sim.step_estimate()
    for t in (0.5, 3.9, 4.5, sim.t):
        span = min(t, sim.t) - rec.segments[rec.index_at(t)].t  # type: ignore[index]
        frames, steps = span * sim.frame_rate + 1, span / sim.step_size + 1
        want = REPLAY_START + frames * REPLAY_FRAME + steps * per_step
        assert lookback_seconds(sim, t) == pytest.approx(want, rel=1e-12)
    assert lookback_seconds(sim, -1.0) == 0.0  # not recorded: the look back says why
    # the further from its keyframe, the costlier: 7 s from it against the keyframe itself
    assert lookback_seconds(sim, sim.t) > 50 * lookback_seconds(sim, rec.segments[0].t)


def test_the_reserve_is_charged_up_front_and_what_is_left_of_it_given_back() -> None:
    now = [0.0]
    budgets = Budgets(rate=0.1, burst=1.0, clock=lambda: now[0])
    budget = budgets.of("10.0.0.1")
    sim = driven()

    async def look(estimate: float) -> tuple[float, float]:
        async with budgets.lookback(budget, "recording/frame", estimate) as reserved:
            during = budget.left()
            _, spent = await run_pieces(past_frame_pieces(sim, 2.0), budget, reserved)
        return during, spent

    during, spent = asyncio.run(look(0.6))
    assert during == pytest.approx(1.0 - 0.6)  # charged when its turn came
    assert spent < 0.6
    assert budget.left() == pytest.approx(1.0 - spent)  # the unused reserve came back
    assert budgets.everyone.left() == pytest.approx(2.0 - spent)

    before = budget.left()
    _, again = asyncio.run(look(0.0))  # no reserve: every piece charged as it ends
    assert budget.left() == pytest.approx(before - again)


def test_a_look_back_whose_estimate_the_budget_cannot_hold_is_refused_before_any_work() -> None:
    budgets = Budgets(rate=0.1, burst=1.0, clock=lambda: 0.0)
    budget = budgets.of("10.0.0.2")

    async def look() -> None:
        async with budgets.lookback(budget, "go_back", 12.0):
            raise AssertionError("a look back of 12 s ran on a budget of 1 s")

    with pytest.raises(Refusal) as refused:
        asyncio.run(look())
    assert "go_back: about 12 s of computing" in refused.value.message
    assert budget.left() == pytest.approx(1.0)  # nothing charged
