"""The water in the page (issue 28): the surface drawn at exactly the server's Airy waves
(level − η at the drawn frame's simulated time, computed here with sixdof.dynamics.water),
standing still while paused; translucent, with the hull under it showing through (the
screen's pixels with and without the water); the buoyancy drawn at the centre of buoyancy in
the free-body diagram; the waterline card with the hello's hydrostatics; the panel's Water
folder sending set_water, the hello coming back with it, and a refused value shown under the
control it names. SIXDOF_DOC_SHOTS=1 renews docs/img/water_1280x720.jpg."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
import pytest
from a11ykit import low_contrast, open_in, serious
from panelkit import open_water, type_into
from playwright.sync_api import Browser, Page
from support.pagekit import (
    REPO,
    SHOTS,
    PageRun,
    Served,
    decode_png,
    distant_view,
    load_preset,
    wait_drawn,
    wait_frames,
)

from sixdof.dynamics.water import Water, Wave, elevation

SCREENSHOT = REPO / "docs" / "img" / "water_1280x720.jpg"  # docs/frontend.md shows it


@pytest.fixture
def run(browser: Browser, server: Served) -> Iterator[PageRun]:
    page_run = open_in(browser, server.url, "en")  # waits out a cold compile (180 s)
    yield page_run
    page_run.close()


def paused(page: Page) -> dict:
    """Pause the room, keep the camera still, and wait until the newest frame is drawn."""
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.setFollow(false)")
    page.evaluate("__sixdof.resetView()")
    wait_drawn(page)
    return page.evaluate("__sixdof.lastState")


def water_of(hello: dict) -> Water:
    w = hello["scenario"]["water"]
    waves = tuple(Wave(x["amplitude"], x["period"], x["direction"]) for x in w["waves"])
    return Water(w["density"], w["level"], tuple(w["current"]), waves, w["depth"])


def pixels(page: Page, at: dict, half: int = 6) -> np.ndarray:
    """The mean colour (RGB) of the screen in a square round the page point `at`."""
    clip = {"x": at["x"] - half, "y": at["y"] - half, "width": 2 * half, "height": 2 * half}
    return decode_png(page.screenshot(clip=clip)).reshape(-1, 3).astype(float).mean(axis=0)


def test_the_surface_is_the_servers_waves_at_the_frames_time(run: PageRun) -> None:
    page = run.page
    load_preset(page, "buoy_in_waves")
    page.wait_for_function("__sixdof.lastState.t > 1.0")
    state = paused(page)
    hello = page.evaluate("__sixdof.hello")
    water = water_of(hello)
    gravity = hello["scenario"]["bodies"][0]["Gravity"]
    assert water.waves, "the preset has waves"
    cg = state["bodies"][0]["CGPos"]
    worst = 0.0
    for x, y in [(cg[0], cg[1]), (cg[0] + 3.3, cg[1] - 2.1), (cg[0] - 7.5, cg[1] + 4.0)]:
        drawn = page.evaluate("([x, y]) => __sixdof.water(x, y)", [x, y])
        assert drawn["visible"]
        assert drawn["t"] == pytest.approx(state["t"], abs=1e-9)  # the frame's time, not the clock
        vx, vy, vz = drawn["vertex"]
        expected = water.level - float(elevation(water, gravity, state["t"], vx, vy))
        worst = max(worst, abs(vz - expected))
        assert vz == pytest.approx(expected, abs=1e-3), (vx, vy)
    # the wave at the CG in the frame is the same wave
    eta = float(elevation(water, gravity, state["t"], cg[0], cg[1]))
    assert state["bodies"][0]["WaveElevation"] == pytest.approx(eta, abs=1e-9)
    # paused, the water stands still
    before = page.evaluate("__sixdof.water(0, 0)")
    page.wait_for_timeout(400)
    after = page.evaluate("__sixdof.water(0, 0)")
    assert after["t"] == before["t"] and after["vertex"] == before["vertex"]
    card = page.evaluate("__sixdof.water(0, 0).card")
    assert "Draft" in card and "η" in card
    # the Water plot: the draft and the wave at the CG
    page.click("#btn-plots")
    page.check("#plot-chooser input[data-channel='Water']")
    page.wait_for_function("__sixdof.plotSpan('Water') && __sixdof.plotTicks('Water')")
    # the timeline's past shows the water of that moment
    n = page.evaluate("__sixdof.timeline.requests")
    page.evaluate("__sixdof.timeline.showAt(0.5)")
    page.wait_for_function(f"__sixdof.timeline.requests > {n} && __sixdof.timeline.frame")
    past = page.evaluate("__sixdof.timeline.frame")
    page.wait_for_function("(t) => Math.abs(__sixdof.water(0, 0).t - t) < 1e-9", arg=past["t"])
    drawn = page.evaluate("__sixdof.water(2.0, 1.0)")
    vx, vy, vz = drawn["vertex"]
    expected = water.level - float(elevation(water, gravity, past["t"], vx, vy))
    assert vz == pytest.approx(expected, abs=1e-3)
    worst = max(worst, abs(vz - expected))
    print(
        f"surface vs level − η at t = {state['t']:.4f} s and the past {past['t']:.4f} s: worst"
        f" {worst * 1e6:.2f} µm; {drawn['vertices']} vertices, draw {drawn['cost']:.3f} ms"
    )
    assert not run.errors, run.errors


def test_water_is_drawn_with_the_hull_seen_through_it(run: PageRun) -> None:
    page = run.page
    load_preset(page, "floating_box")
    page.click("#caption button")  # the caption's ×: the view alone
    # upright and still, where it floats: the centre of buoyancy is then half the draft down
    page.evaluate(
        "__sixdof.send({type: 'reset', state: {Quater: [1, 0, 0, 0], AngVel: [0, 0, 0],"
        " LocalVel: [0, 0, 0]}})"
    )
    state = paused(page)
    body = state["bodies"][0]
    distant_view(page)  # the view the pixels below were chosen in
    drawn = page.evaluate("__sixdof.water(0, 0)")
    assert drawn["visible"] and drawn["size"] >= 20
    box = page.evaluate("__sixdof.bodyBox()")
    # a point of the water beside the barge (south-west of it, nothing else there) and a point
    # on the barge's south side under the waterline (the camera looks from the south-west)
    cg = body["CGPos"]
    water_at = page.evaluate("(p) => __sixdof.nedScreenPosition(p)", [cg[0] - 1.0, cg[1] - 2.6, 0])
    keel = box["max"][2]
    hull_point = [box["min"][0], 0.3, keel - 0.12]  # body frame: 0.12 m above the keel
    hull_at = page.evaluate("(p) => __sixdof.bodyScreenPosition(undefined, p)", hull_point)
    shown = {"water": pixels(page, water_at), "hull": pixels(page, hull_at)}
    page.evaluate("__sixdof.showWater(false)")
    wait_drawn(page)
    hidden = {"water": pixels(page, water_at), "hull": pixels(page, hull_at)}
    page.evaluate("__sixdof.showWater(true)")
    wait_drawn(page)
    print({k: v.round() for k, v in shown.items()}, {k: v.round() for k, v in hidden.items()})
    # the water is drawn: blue where the background was
    assert np.abs(shown["water"] - hidden["water"]).sum() > 60
    assert shown["water"][2] > shown["water"][0] + 40
    # the hull is seen through it: tinted, but still the hull's warm colour, not the water's
    assert hidden["hull"][0] > hidden["hull"][2] + 60  # orange without the water
    assert np.abs(shown["hull"] - hidden["hull"]).sum() > 30  # under the water: tinted
    # ... and stands out from the water beside it, warmer (redder, less blue) than the water
    assert np.abs(shown["hull"] - shown["water"]).sum() > 120, "the hull does not show through"
    assert shown["hull"][0] - shown["hull"][2] > shown["water"][0] - shown["water"][2] + 100
    # the free-body diagram: the buoyancy at the centre of buoyancy, half the draft deep
    fbd = "__sixdof.teach.fbd.elementGlyphs.filter((g) => g.label.visible).map((g) => g.label.text)"
    page.wait_for_function(f"{fbd}.some((s) => /^buoyancy [0-9.]+ N$/.test(s))")
    b = page.evaluate("__sixdof.teach.fbd.buoyancyAt")
    draft = body["Draft"]
    assert [b["x"], b["y"], b["z"]] == pytest.approx([cg[0], cg[1], draft / 2], abs=1e-3)
    line = state["elements"][0]
    assert line["point"][:2] == pytest.approx([cg[0], cg[1]], abs=1e-6)  # the same vertical
    # the card: the waterline of the frame and the hello's hydrostatics
    hydro = page.evaluate("__sixdof.hello.hydrostatics")[0]
    card = page.evaluate("__sixdof.water(0, 0).card")
    assert f"Draft {draft:.3f} m" in card
    assert f"GM roll {hydro['GM_T']:.3f} m" in card
    assert f"roll {hydro['periods']['roll']:.2f} s" in card
    assert f"at rest: draft {hydro['draft']:.3f} m" in card and "Natural periods: " in card
    print(f"centre of buoyancy drawn at z = {b['z']:.4f} m, draft/2 = {draft / 2:.4f} m")
    # the picture for docs/frontend.md: the barge in a 2 s wave (6.2 m long) from the south-west
    wave = {"amplitude": 0.15, "period": 2.0, "direction": 40.0}
    page.evaluate(
        "(w) => __sixdof.send({type: 'set_water', water: {...__sixdof.hello.scenario.water,"
        " waves: [w]}})",
        wave,
    )
    page.wait_for_function("__sixdof.hello.scenario.water.waves.length === 1")
    page.evaluate("__sixdof.send({type: 'resume'})")
    page.wait_for_function("(t) => __sixdof.lastState.t > t + 2.3", arg=state["t"])
    paused(page)
    page.screenshot(path=str(SHOTS / "water_1280x720.png"))
    if os.environ.get("SIXDOF_DOC_SHOTS"):  # SIXDOF_DOC_SHOTS=1: renew the documentation's
        page.screenshot(path=str(SCREENSHOT), type="jpeg", quality=88)
    assert not run.errors, run.errors


def test_a_heel_that_rounds_to_zero_has_no_minus_sign(run: PageRun) -> None:
    """The card rounds the heel to 0.1°: −0.02° reads "heel 0.0°" (not "-0.0°", a sign error
    on the projector), −0.06° still reads "heel -0.1°"."""
    page = run.page
    load_preset(page, "floating_box")
    paused(page)  # before the reset: the heel stays what was set, however late the frames
    for degrees, shown in ((-0.02, "heel 0.0°"), (-0.06, "heel -0.1°")):
        half = math.radians(degrees) / 2
        seq = page.evaluate("__sixdof.lastState.seq")
        page.evaluate(
            "(q) => __sixdof.send({type: 'reset', state: {Quater: q, AngVel: [0, 0, 0],"
            " LocalVel: [0, 0, 0]}})",
            [math.cos(half), math.sin(half), 0.0, 0.0],
        )
        page.wait_for_function(
            "([s, h]) => __sixdof.lastState.seq > s"
            " && Math.abs(__sixdof.lastState.bodies[0].Heel - h) < 1e-9",
            arg=[seq, math.radians(degrees)],
        )
        wait_drawn(page)
        wait_frames(page, 8)  # the card is written 5 times a second: one write after it
        heel = math.degrees(page.evaluate("__sixdof.lastState.bodies[0].Heel"))
        assert heel == pytest.approx(degrees, abs=1e-6)  # paused: exactly what was set
        card = page.evaluate("__sixdof.water(0, 0).card")
        assert shown in card, card
    assert not run.errors, run.errors


def test_the_phone_card_shows_gm_and_the_periods(browser: Browser, server: Served) -> None:
    """On a phone (390 × 844) the card under the HUD keeps the hello's hydrostatics, in short:
    GM in roll and pitch and the three natural periods (no still-water draft: the frame's is
    on the line above), each number whole on its line, inside the screen."""
    run = open_in(browser, server.url, "en", "phone")
    page = run.page
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("__sixdof.send({type: 'load_scenario', preset: 'floating_box'})")
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.name === 'floating_box'",
        arg=before,
    )
    page.wait_for_function("__sixdof.water(0, 0).card")
    hydro = page.evaluate("__sixdof.hello.hydrostatics")[0]
    card = page.evaluate("__sixdof.water(0, 0).card")
    print(repr(card))
    lines = card.split("\n")
    assert lines[2] == f"GM roll {hydro['GM_T']:.3f} m · GM pitch {hydro['GM_L']:.2f} m", card
    periods = hydro["periods"]
    assert lines[3] == (
        f"Periods: heave {periods['heave']:.2f} s · roll {periods['roll']:.2f} s"
        f" · pitch {periods['pitch']:.2f} s"
    ), card
    assert "at rest" not in card and "Natural periods" not in card  # the desktop's long form
    box = page.locator("#water-card").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["y"] + box["height"] <= 844 / 2, box  # the upper half: the body stays in view
    hud = page.locator("#hud").bounding_box()
    assert hud and hud["y"] + hud["height"] <= box["y"], (hud, box)  # under the HUD
    # no number split from its unit over two lines: each part of a row is kept whole
    lines_of = page.evaluate(
        "[...document.querySelectorAll('#water-card .part')]"
        ".map((el) => [el.textContent, el.getClientRects().length]).filter(([, n]) => n > 0)"
    )
    assert len(lines_of) == 5 and all(n == 1 for _, n in lines_of), lines_of
    page.screenshot(path=str(SHOTS / "water_phone_390x844.png"))
    assert run.errors == []
    run.close()


def changed(page: Page, before: int, test: str) -> None:
    page.wait_for_function(
        f"(k) => __sixdof.helloCount > k && (() => {{ const w = __sixdof.hello.scenario.water;"
        f" return {test}; }})()",
        arg=before,
    )


def test_the_panel_tunes_the_water(run: PageRun) -> None:
    page = run.page
    load_preset(page, "floating_box")
    open_water(page)
    scope = ".sixdof-water"
    # density: sent with set_water, the hello comes back with it
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, scope, "Density (kg/m³)", "1000")
    changed(page, before, "w && w.density === 1000")
    # a current: the streaks and the arrow appear
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, scope, "Current (N, E, D) m/s", "0.5, 0.2, 0")
    changed(page, before, "w && w.current[0] === 0.5 && w.current[1] === 0.2")
    page.wait_for_function("__sixdof.water(0, 0).streaks && __sixdof.water(0, 0).current")
    assert page.evaluate("__sixdof.water(0, 0).current") == "current 0.54 m/s"  # √(0.5² + 0.2²)
    # finite depth; hello.limits sends depth as [0, 1e5] with its low end open (exclusive), so
    # the page refuses 0 itself, as the server would: the message names the field and the
    # range, shows under Depth, which goes back to 20, and nothing is sent
    before = page.evaluate("__sixdof.helloCount")
    page.locator(scope).get_by_label("Deep water", exact=True).uncheck()
    changed(page, before, "w && w.depth === 20")
    assert page.evaluate("__sixdof.hello.limits.exclusive['water.depth']") == [True, False]
    depth = page.locator(scope).get_by_label("Depth below the still level (m)", exact=True)
    refused = page.locator(".sixdof-water .sixdof-error[data-field='depth']")
    for typed in ["0", "-3", "200000"]:
        sent, before = page.evaluate("[__sixdof.sent.length, __sixdof.helloCount]")
        type_into(page, scope, "Depth below the still level (m)", typed)
        page.wait_for_function(
            "(x) => document.querySelector(\".sixdof-water .sixdof-error[data-field='depth']\")"
            "?.textContent.endsWith(`got ${x}`)",
            arg=typed,
        )
        text = refused.inner_text()
        print(f"refused on the page: {text!r}")
        assert text == f"depth: must be in (0, 100000], got {typed}", text
        page.wait_for_timeout(300)  # time for a message to go out and a hello to come back
        assert page.evaluate("[__sixdof.sent.length, __sixdof.helloCount]") == [sent, before]
        assert float(depth.input_value()) == 20
        assert page.evaluate("__sixdof.hello.scenario.water.depth") == 20
    # the server refuses it too: a hello that does not say the end is open (as from an older
    # server) lets 0 through; the server's refusal names the field and shows under Depth
    page.evaluate("delete __sixdof.hello.limits.exclusive['water.depth']")
    sent = page.evaluate("__sixdof.sent.length")
    type_into(page, scope, "Depth below the still level (m)", "0")
    page.wait_for_function("(n) => __sixdof.sent.length > n", arg=sent)
    page.wait_for_function(
        "document.querySelector(\".sixdof-water .sixdof-error[data-field='depth']\")"
        "?.textContent.includes('(0, 100000] m')"
    )
    print(f"refused by the server: {refused.inner_text()!r}")
    assert float(depth.input_value()) == 20
    assert page.evaluate("__sixdof.hello.scenario.water.depth") == 20
    # a wave added, then tuned
    before = page.evaluate("__sixdof.helloCount")
    page.locator(scope).get_by_role("button", name="Add a wave", exact=True).click()
    changed(page, before, "w && w.waves.length === 1")
    page.wait_for_selector(".sixdof-wave-0")
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, ".sixdof-wave-0", "Period (s)", "4")
    changed(page, before, "w && w.waves[0].period === 4")
    # a refused value names its field, shows under its control and changes nothing
    type_into(page, ".sixdof-wave-0", "Amplitude (m)", "-1")
    error = page.locator(".sixdof-wave-0 .sixdof-error")
    error.wait_for()
    assert "amplitude" in error.inner_text()
    print(f"refused on the page: {error.inner_text()!r}")
    assert page.evaluate("__sixdof.hello.scenario.water.waves[0].amplitude") == 0.2
    value = page.locator(".sixdof-wave-0").get_by_label("Amplitude (m)", exact=True).input_value()
    assert float(value) == 0.2
    # the page draws what the hello says: the surface at the new wave (finite depth 20 m)
    state = paused(page)
    hello = page.evaluate("__sixdof.hello")
    water = water_of(hello)
    drawn = page.evaluate("__sixdof.water(1.7, -2.2)")
    vx, vy, vz = drawn["vertex"]
    gravity = hello["scenario"]["bodies"][0]["Gravity"]
    assert vz == pytest.approx(-float(elevation(water, gravity, drawn["t"], vx, vy)), abs=1e-3)
    assert drawn["t"] == pytest.approx(state["t"], abs=1e-9)
    # no water entry: the barge's buoyancy floats it in the default still sea, drawn as such
    before = page.evaluate("__sixdof.helloCount")
    page.locator(scope).get_by_label("Water in the scenario", exact=True).uncheck()
    changed(page, before, "w == null")
    page.wait_for_function("__sixdof.water(0, 0).implicit && !__sixdof.water(0, 0).streaks")
    wait_frames(page, 8)  # the card is written 5 times a second: one write after it
    assert page.evaluate("__sixdof.water(0, 0).card").startswith("Still sea water (the default)")
    assert page.evaluate("__sixdof.water(0, 0).level") == 0
    # no water and nothing that floats: nothing drawn, no card, the ground grid back
    load_preset(page, "hover")
    page.wait_for_function("!__sixdof.water(0, 0).visible && __sixdof.water(0, 0).card === null")
    assert page.evaluate("__sixdof.stage.grid.visible")
    assert math.isfinite(page.evaluate("__sixdof.lastState.t"))
    assert not run.errors, run.errors


@pytest.mark.parametrize(
    ("lang", "layout", "word"),
    [("en", "phone", "Draft"), ("de", "desktop", "Tiefgang"), ("nb", "projector", "Dypgang")],
)
def test_the_water_card_and_folder_are_accessible(
    browser: Browser, server: Served, lang: str, layout: str, word: str
) -> None:
    """With water on screen (the card, the panel's Water folder open, a wave's folder), axe
    finds no serious or critical violation and every text keeps its contrast, in each
    language; the card speaks the page's language."""
    run = open_in(browser, server.url, lang, layout)
    page = run.page
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("__sixdof.send({type: 'load_scenario', preset: 'buoy_in_waves'})")
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.water", arg=before
    )
    page.wait_for_function("__sixdof.water(0, 0).card")
    if layout == "phone":  # the bottom sheet: open it to reach the folder
        page.click("#sheet-handle")
    if layout == "projector":  # the projector puts the panel away: Controls brings it back
        page.click("#btn-panel")
    open_water(page)
    page.wait_for_selector(".sixdof-wave-0")
    page.locator(".sixdof-water").scroll_into_view_if_needed()
    card = page.evaluate("__sixdof.water(0, 0).card")
    if layout == "phone":
        page.click("#sheet-handle")  # closed again: the card is on the view
    assert word in card, card
    assert serious(page) == []
    assert low_contrast(page) == []
    assert run.errors == []
    run.close()
