"""A key push is scaled to the body (issue 45): by default it asks for 1 m/s² (and 1 rad/s²) for
the body's own mass and inertia, so holding ↑ (or L, a roll) for one second of simulated time
changes the selected body's speed by at most 2 m/s (its rate of turn by at most 2 rad/s) on
every preset, against the same second without the push; a free body gains exactly 1 m/s. (It
gave 12.7 m/s, and the box was 40 m away 3 s later.) Time is stepped, not waited for: 1000
steps of 1 ms with the key held, on the laptop sweep's one visit of each preset, after the
checks that read it at t = 0 (presetsweep.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

from playwright.sync_api import Page
from presetsweep import STEPPED, Sweep, in_sweep, probe
from support.pagekit import WAIT_MS

from sixdof.scenario.presets import ORDER, PRESETS

STEPS = 1000  # of 1 ms: one second


def second(page: Page, key: str | None) -> dict:
    """The first body's frame after one second from the start, stepped while paused with `key`
    held (None: nothing pushes)."""
    page.evaluate("__sixdof.send({type: 'reset', state: null})")
    page.wait_for_function("__sixdof.lastState.t === 0", timeout=WAIT_MS)
    if key:
        page.keyboard.down(key)
    page.evaluate("(n) => __sixdof.send({type: 'step', n})", STEPS)
    page.wait_for_function("(t) => __sixdof.lastState.t >= t", arg=STEPS * 1e-3 - 1e-6)
    if key:
        page.keyboard.up(key)
    frame: dict = page.evaluate("__sixdof.lastState.bodies[0]")
    return frame


@probe("push", ("laptop",), STEPPED)
def pushes(page: Page, name: str) -> dict:
    """The first body's frame after a second with nothing held, with ↑ held, with L held."""
    page.wait_for_function("__sixdof.lastState.status.running === false")
    page.locator("#scene").focus()
    return {"free": second(page, None), "pushed": second(page, "ArrowUp"),
            "turned": second(page, "l")}  # fmt: skip


@in_sweep("laptop")
def test_a_held_key_pushes_gently_on_every_preset(preset_sweep: Callable[[str], Sweep]) -> None:
    sweep = preset_sweep("laptop")
    dv, dw = {}, {}
    for name in ORDER:
        assert PRESETS[name].scenario().integration.stepsize == 1e-3, name
        got = sweep.get(name, "push")
        free, pushed, turned = got["free"], got["pushed"], got["turned"]
        dv[name] = math.dist(pushed["CGVel"], free["CGVel"])
        dw[name] = math.dist(turned["AngVelGlobal"], free["AngVelGlobal"])
    print({k: round(v, 3) for k, v in dv.items()}, {k: round(v, 3) for k, v in dw.items()})
    assert dv["hover"] == 1.0 or abs(dv["hover"] - 1.0) < 0.01  # a free body: a = 1 m/s² for 1 s
    assert abs(dw["tennis_racket"] - 1.0) < 0.15  # ω about x (its p) grows by about 1 rad/s
    assert {k: v for k, v in dv.items() if v > 2.0} == {}
    assert {k: v for k, v in dw.items() if v > 2.0} == {}
    assert sweep.errors == {}
