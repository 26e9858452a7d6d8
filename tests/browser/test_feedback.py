"""What the page tells the user after a change: refusals, a changed preset, plots, HUD, phone.

Each test drives the page as a user would (fields, buttons, checkboxes) against a real server
and checks what is on screen against the server's own values.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import Browser, Page
from support.pagekit import (
    SHOTS,
    WAIT_MS,
    PageRun,
    Served,
    load_preset,
    open_page,
    wait_frames,
    wait_plot_redraw,
    wait_sim,
)

CHANGED = "Changed since the preset was loaded"


def type_into(page: Page, label: str, text: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")


def wait_hello(page: Page, before: int, cond: str = "true") -> None:
    page.wait_for_function(
        f"(b) => __sixdof.helloCount > b && ({cond})", arg=before, timeout=WAIT_MS
    )


def test_a_refused_value_goes_back_and_its_error_clears_on_the_next_change(
    page_run: PageRun, server: Served
) -> None:
    page = page_run.page
    load_preset(page, "hover")
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    type_into(page, "Mass (kg)", "-1")
    error = page.locator(".sixdof-error[data-field='Mass']")
    error.wait_for(timeout=WAIT_MS)
    assert "-1" in error.inner_text()  # the message keeps what was refused...
    # ...while the field shows what the server still uses
    assert float(page.get_by_label("Mass (kg)", exact=True).input_value()) == mass
    assert server.get_json(f"/api/rooms/{page_run.room}/scenario")["bodies"][0]["Mass"] == mass

    # another parameter accepted: a new hello with a different scenario clears the error
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, "Gravity (m/s²)", "5")
    wait_hello(page, before, "__sixdof.hello.scenario.bodies[0].Gravity === 5")
    error.wait_for(state="detached", timeout=WAIT_MS)
    assert page.locator(".sixdof-error").count() == 0

    # and a preset loaded clears it too
    type_into(page, "Mass (kg)", "-1")
    error.wait_for(timeout=WAIT_MS)
    load_preset(page, "free_fall")
    error.wait_for(state="detached", timeout=WAIT_MS)
    assert page.locator(".lil-controller.has-error").count() == 0
    assert page_run.errors == []


def test_reload_preset_brings_back_its_values_and_the_caption_says_when_it_changed(
    page_run: PageRun,
) -> None:
    page = page_run.page
    load_preset(page, "coriolis_full")
    note = page.locator("#caption .caption-note")
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    assert page.locator("#caption").is_visible() and not note.is_visible()

    before = page.evaluate("__sixdof.helloCount")
    page.get_by_label("Model", exact=True).select_option("fhsim")
    wait_hello(page, before, "__sixdof.hello.scenario.bodies[0].model === 'fhsim'")
    note.wait_for(state="visible", timeout=WAIT_MS)
    assert CHANGED in note.inner_text()
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, "Mass (kg)", str(3 * mass))
    wait_hello(page, before, f"__sixdof.hello.scenario.bodies[0].Mass === {3 * mass}")

    # the preset is still the one selected: Reload preset is the way back
    before = page.evaluate("__sixdof.helloCount")
    page.get_by_role("button", name="Reload preset").click()
    wait_hello(page, before, "__sixdof.hello.scenario.bodies[0].model === 'full'")
    assert page.evaluate("__sixdof.hello.scenario.bodies[0].Mass") == mass
    assert float(page.get_by_label("Mass (kg)", exact=True).input_value()) == mass
    assert page.get_by_label("Model", exact=True).input_value() == "full"
    note.wait_for(state="hidden", timeout=WAIT_MS)
    assert page.evaluate("__sixdof.lastState.t") < 1.0  # the state started again too
    assert page_run.errors == []


def test_only_the_ticked_plots_take_space_and_the_y_axis_is_labelled(page_run: PageRun) -> None:
    page = page_run.page
    load_preset(page, "tennis_racket")  # AngVel x = 4 rad/s
    page.click("#btn-plots")
    page.uncheck("#plot-chooser input[data-channel='Pos']")
    page.uncheck("#plot-chooser input[data-channel='Energy']")
    page.check("#plot-chooser input[data-channel='AngVel']")
    cells = page.locator(".plot-cell")
    assert cells.count() == 1
    grid = page.locator("#plot-grid").bounding_box()
    first = cells.nth(0).bounding_box()
    assert first["x"] == pytest.approx(grid["x"], abs=2), "the one plot starts at the left"
    page.check("#plot-chooser input[data-channel='Pos']")
    assert [cells.nth(i).get_attribute("data-channel") for i in range(cells.count())] == [
        "Pos",
        "AngVel",
    ]
    a, b = cells.nth(0).bounding_box(), cells.nth(1).bounding_box()
    assert a["x"] == pytest.approx(grid["x"], abs=2) and b["x"] > a["x"] + a["width"] - 1
    assert b["x"] - (a["x"] + a["width"]) < 12 and b["y"] == pytest.approx(a["y"], abs=2)

    wait_sim(page, 0.5)
    wait_plot_redraw(page)
    ticks = page.evaluate("__sixdof.plotTicks('AngVel')")
    values = [float(t) for t in ticks]
    assert len(values) >= 4, f"too few y labels: {ticks}"
    assert any(abs(v - 4.0) < 1e-9 for v in values), f"4 rad/s is not labelled: {ticks}"
    assert page_run.errors == []


def test_hud_shows_a_single_step_and_says_slow_motion(page_run: PageRun) -> None:
    page = page_run.page
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    t0 = page.evaluate("__sixdof.lastState.t")
    page.click("#btn-step")
    page.wait_for_function("(t) => __sixdof.lastState.t > t", arg=t0)
    h = page.evaluate("__sixdof.lastState.status.step")
    t1 = page.evaluate("__sixdof.lastState.t")
    assert t1 - t0 == pytest.approx(h, rel=1e-6) and h == pytest.approx(1e-3)
    page.wait_for_function("(t) => document.querySelector('[data-hud=t]').textContent"
                           " === `t = ${t.toFixed(3)} s`", arg=t1)  # fmt: skip

    page.evaluate("__sixdof.send({type: 'resume'})")
    page.get_by_label("Time scale", exact=True).select_option(label="1/4 ×")
    page.wait_for_function("__sixdof.lastState.status.time_scale === 0.25")
    page.wait_for_function(
        "document.querySelector('[data-hud=rtf]').textContent.endsWith(' · slow motion ×0.25')"
    )
    assert page_run.errors == []


def test_phone_toolbar_fits_and_plots_hide_the_caption(browser: Browser, server: Served) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    run = open_page(browser, server.url, width=390, height=844)
    page = run.page
    load_preset(page, "hover")
    # every control of the toolbar but the language picker (Access → Language in the sheet)
    buttons = page.locator("#toolbar > *:not(#lang-picker)")
    assert buttons.count() == 16
    assert page.locator("#lang-picker").is_hidden()
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        name = buttons.nth(i).inner_text()
        assert buttons.nth(i).is_visible(), name
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
        # the label is not cut: its text fits its button
        assert buttons.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth"), name
    toolbar = page.locator("#toolbar").bounding_box()
    caption = page.locator("#caption").bounding_box()
    assert caption["y"] + caption["height"] <= toolbar["y"], "the caption sits above the toolbar"
    timeline = page.locator("#timeline").bounding_box()
    assert timeline["y"] + timeline["height"] <= toolbar["y"], "the timeline sits above it too"
    assert caption["y"] + caption["height"] <= timeline["y"], "and the caption above the timeline"
    page.screenshot(path=str(SHOTS / "phone_toolbar.png"))

    page.click("#btn-plots")
    page.locator("#plots").wait_for(state="visible")
    wait_frames(page, 2)
    assert page.locator("#plots").is_visible() and not page.locator("#caption").is_visible()
    page.screenshot(path=str(SHOTS / "phone_plots.png"))
    page.click("#btn-plots")
    assert page.locator("#caption").is_visible()
    assert run.errors == []
    run.close()


def test_a_non_unit_initial_quaternion_is_kept_and_said(page_run: PageRun) -> None:
    page = page_run.page
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate(
        "__sixdof.send({type: 'load_scenario', scenario: {name: 'q', bodies: "
        "[{Name: 'B', Quater: [1.1, 0, 0, 0], Gravity: 0}]}})"
    )
    page.wait_for_function("(b) => __sixdof.helloCount > b", arg=before)
    banner = page.locator("[data-banner='quater']")
    banner.wait_for(state="visible")
    assert "|Quater| = 1.100" in banner.inner_text()
    assert page.evaluate("__sixdof.hello.scenario.bodies[0].Quater[0]") == 1.1
    assert page_run.errors == []


def test_a_room_too_costly_for_its_share_says_it_runs_slowed(
    page_run: PageRun, server: Served
) -> None:
    """64 bodies at a 10 µs step and 10×: a million steps per second per body, more than the
    room's share of a tick. The room drops time instead of slowing its neighbours, and the
    HUD says so."""
    page = page_run.page
    bodies = [{"Name": f"B{i}", "Pos": [0, 2 * i, 0], "Gravity": 0.0} for i in range(64)]
    before = page.evaluate("__sixdof.helloCount")
    request = urllib.request.Request(
        f"{server.url}/api/rooms/{page_run.room}/scenario", method="PUT",
        data=json.dumps({"name": "crowd", "bodies": bodies}).encode(),
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    urllib.request.urlopen(request, timeout=10).read()
    wait_hello(page, before, "__sixdof.hello.scenario.bodies.length === 64")
    type_into(page, "Step (s)", "0.00001")  # the Run folder's
    page.get_by_label("Time scale", exact=True).select_option(label="10 ×")
    slowed = "document.querySelector(\"[data-hud='rtf']\").textContent.includes('slowed')"
    page.wait_for_function(slowed, timeout=WAIT_MS)
    assert page.locator("#hud.limited").count() == 1
    # the real-time factor is measured over a second: it falls once a whole second is slow
    page.wait_for_function("__sixdof.lastState.status.rtf < 0.5", timeout=WAIT_MS)
    assert page.evaluate("__sixdof.lastState.status.compute_limited") is True
    page.get_by_label("Time scale", exact=True).select_option(label="1/100 ×")
    page.wait_for_function(f"!({slowed})", timeout=WAIT_MS)
