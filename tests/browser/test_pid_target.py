"""A PID's target in the page (issue 44): its marker is drawn where the controller holds its
body; a plain drag on it moves it level under the pointer and, on release, sends the new
target to the room (set_elements, as the Elements panel sends a change), and the body
follows: the station-keeping barge, its target dragged 2 m north, is held within 0.5 m of
it in the frames. Its gains are live in the Elements panel: surge and sway's Kp and Ki set
to 0 there, the current carries it off. The room is stepped paused (`step`), so what the
frames show does not depend on the machine's load."""

from __future__ import annotations

import math

import pytest
from panelkit import open_elements, type_into
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served, load_preset, open_page, wait_drawn

STEP = 0.5  # s of simulated time a step message advances (500 steps of 1 ms)


def held(page: Page, seconds: float, goal: list[float]) -> list[float]:
    """The barge's horizontal distance from `goal` in the frames of `seconds` more simulated
    time, stepped STEP at a time."""
    out = []
    for _ in range(round(seconds / STEP)):
        t = page.evaluate("__sixdof.lastState.t")
        page.evaluate("__sixdof.send({type: 'step', n: 500})")
        page.wait_for_function(
            "(t) => Math.abs(__sixdof.lastState.t - t) < 1e-6", arg=t + STEP, timeout=WAIT_MS
        )
        pos = page.evaluate("__sixdof.lastState.bodies[0].Pos")
        out.append(math.hypot(pos[0] - goal[0], pos[1] - goal[1]))
    return out


def test_dragging_the_target_moves_the_station_and_the_gains_are_live(
    browser: Browser, server: Served
) -> None:
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    load_preset(page, "station_keeping")
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running", timeout=WAIT_MS)
    wait_drawn(page)
    markers = page.evaluate("__sixdof.targets()")
    spec = page.evaluate("__sixdof.hello.scenario.elements")
    k = next(i for i, e in enumerate(spec) if e["kind"] == "controller")
    start = spec[k]["target"]["Pos"]
    assert [(m["element"], m["body"]) for m in markers] == [(k, "Barge")]
    assert markers[0]["Pos"] == pytest.approx(start)
    goal = [start[0] + 2.0, start[1], start[2]]
    a = page.evaluate("(p) => __sixdof.nedScreenPosition(p)", start)
    b = page.evaluate("(p) => __sixdof.nedScreenPosition(p)", goal)
    before = page.evaluate("__sixdof.helloCount")
    page.mouse.move(a["x"], a["y"])
    page.mouse.down()
    page.mouse.move(b["x"], b["y"], steps=8)
    page.mouse.up()
    page.wait_for_function(
        "([k, n]) => __sixdof.helloCount > n"
        " && __sixdof.hello.scenario.elements[k].target.Pos[0] > 1.5",
        arg=[k, before],
        timeout=WAIT_MS,
    )
    sent = page.evaluate("(k) => __sixdof.hello.scenario.elements[k].target.Pos", k)
    assert sent == pytest.approx(goal, abs=0.03)  # level: its depth kept
    assert page.evaluate("__sixdof.targets()")[0]["Pos"] == pytest.approx(sent)
    assert page.evaluate("__sixdof.drag") is None  # the barge was not pushed
    # the barge follows its target and holds there in the current and the waves
    follow = held(page, 20.0, sent)
    assert follow[0] > 1.5 and max(follow[-10:]) < 0.5, follow

    # gains off in surge and sway from the Elements panel: the current carries it away
    open_elements(page)
    item = f".sixdof-element-{k}"
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, item, "Kp (6)", "0, 0, 0, 0, 0, 400")
    page.wait_for_function(
        "([k, n]) => __sixdof.helloCount > n && __sixdof.hello.scenario.elements[k].kp[0] === 0",
        arg=[k, before],
        timeout=WAIT_MS,
    )
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, item, "Ki (6)", "0, 0, 0, 0, 0, 40")
    page.wait_for_function(
        "([k, n]) => __sixdof.helloCount > n && __sixdof.hello.scenario.elements[k].ki[0] === 0",
        arg=[k, before],
        timeout=WAIT_MS,
    )
    drift = held(page, 10.0, sent)
    # off beyond the 0.5 m it was held within, at the current's pace less what kd and the
    # damper still hold back, c U / (c + kd) = 0.086 m/s (measured 0.86 m in 10 s)
    assert drift[-1] > 0.6 and drift[-1] > drift[0] + 0.5, drift
    assert run.errors == []
    run.close()
