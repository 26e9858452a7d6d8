"""The page against a real server: it loads, draws, moves, sends what is set, shows errors."""

from __future__ import annotations

import struct
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from presetsweep import load_paused
from support.pagekit import (
    SHOTS,
    WAIT_MS,
    PageRun,
    Served,
    body,
    grab,
    load_preset,
    open_page,
    wait_drawn,
    wait_frames,
    wait_plot_redraw,
    wait_sim,
)

from sixdof.dynamics.quaternion import to_rotmat

G = 9.81


def follow_off(page: Page) -> None:
    page.click("#btn-follow")
    assert page.get_attribute("#btn-follow", "aria-pressed") == "false"


#: What the page holds when a body's screen position stays null (a run beside two busy loops
#: read null for 60 s after a reset, twice in this file's history): its views, the camera,
#: the newest frame.
SEEN = """() => ({views: Object.keys(__sixdof.meshes), t: __sixdof.lastState.t,
    gen: __sixdof.lastState.gen, hellos: __sixdof.helloCount,
    camera: __sixdof.stage.camera.position.toArray(), pos: __sixdof.lastState.bodies[0].Pos,
    pendingView: __sixdof.pendingView})"""


def screen(page: Page) -> tuple[float, float]:
    """Where the body's CG is drawn, once its view exists (a reset's hello rebuilds the views;
    a loaded run read null in between)."""
    try:
        p = page.wait_for_function("__sixdof.bodyScreenPosition()", timeout=WAIT_MS).json_value()
    except PlaywrightTimeoutError:
        raise AssertionError(f"no screen position for the body: {page.evaluate(SEEN)}") from None
    return p["x"], p["y"]


def field(page: Page, name: str) -> Locator:
    """The input of the panel control labelled exactly `name`."""
    return page.get_by_label(name, exact=True)


def wait_scenario(server: Served, room: str, pred, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        sc = server.get_json(f"/api/rooms/{room}/scenario")
        if pred(sc) or time.monotonic() > deadline:
            return sc
        time.sleep(0.1)


def test_page_loads_without_console_errors_and_draws_the_body(page_run: PageRun) -> None:
    page = page_run.page
    load_preset(page, "hover")  # an orange box (Simple/Orange) held still by a constant Force
    hello = page.evaluate("__sixdof.hello")
    assert hello["scenario"]["bodies"][0]["Material"] == "Simple/Orange"
    wait_drawn(page)
    x, y = screen(page)
    px = grab(page, x, y, 5).reshape(-1, 3).astype(int).mean(0)
    r, g, b = px
    # the background is a pale grey-blue (#e8edf2, b > r); an orange body: r well above b
    assert r - b > 90 and r > g > b, f"no orange body at its CG on screen: mean RGB {px}"
    far = grab(page, 30, 700, 5).reshape(-1, 3).astype(int).mean(0)  # a corner of the view
    assert far[2] >= far[0], f"the corner should show the background, got {far}"
    # the clock runs and the HUD says so
    t0 = page.evaluate("__sixdof.lastState.t")
    page.wait_for_function("(t) => __sixdof.lastState.t > t", arg=t0 + 0.2)
    assert "connected" in page.inner_text("#hud")
    assert page_run.errors == []


def test_free_fall_moves_down_on_screen(page_run: PageRun) -> None:
    page = page_run.page
    # loaded paused at t = 0, its view placed, and only then follow off: a running load on a
    # slow page fell for a second or more with the camera following, and after a reset the
    # body was behind the camera, which stayed below (no screen position)
    load_paused(page, "free_fall")
    follow_off(page)
    wait_drawn(page)
    x0, y0 = screen(page)
    page.click("#btn-pause")  # resume
    page.wait_for_function("__sixdof.lastState.status.running")
    wait_sim(page, 0.6)
    state = page.evaluate("__sixdof.lastState")
    wait_drawn(page)  # drawn at least as far as `state`: the drawn pose lags the newest frame
    x1, y1 = screen(page)
    t, z = state["t"], state["bodies"][0]["Pos"][2]
    assert z == pytest.approx(0.5 * G * t * t, rel=0.02, abs=0.01)  # NED z grows: it falls
    assert y1 - y0 > 40, f"the body should move down the screen, went {y0:.0f} -> {y1:.0f} px"
    assert abs(x1 - x0) < 0.2 * (y1 - y0), "straight down, not sideways"
    assert page_run.errors == []


def test_keys_and_panel_apply_force_the_right_way(page_run: PageRun, server: Served) -> None:
    page = page_run.page
    load_preset(page, "hover")  # weight cancelled: only what we apply moves it
    follow_off(page)
    page.click("#btn-reset")
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    x0, _ = screen(page)
    page.locator("#scene").focus()
    page.keyboard.down("ArrowRight")  # push east (global frame)
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] > 0")
    on = page.evaluate("__sixdof.lastState")
    assert on["bodies"][0]["Force"][1] == pytest.approx(mass * 1.0, rel=1e-6)  # Mass × 1 m/s²
    wait_sim(page, 1.0)
    page.keyboard.up("ArrowRight")
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] === 0")
    off = page.evaluate("__sixdof.lastState")
    after = off["bodies"][0]
    # pushed at 1 m/s² while the key was held, at least the 1 s of simulated time waited
    # (less what the key-down took to arrive); `off` is seen some frames after the release
    held = off["t"] - on["t"]
    gained = after["Vel"][1] - on["bodies"][0]["Vel"][1]
    assert 1.0 * 0.95 < gained <= 1.0 * held + 1e-6, (gained, held)
    assert abs(after["Vel"][0]) < 0.05 and abs(after["Vel"][2]) < 0.05
    assert after["Force"] == pytest.approx([0, 0, -mass * G], abs=1e-6)  # back to the constant
    wait_drawn(page)
    x1, _ = screen(page)
    assert x1 - x0 > 40, "east is to the right in the default view"

    # the panel: a constant Force north of 4 N, kept in the scenario
    page.get_by_role("button", name="Force and Moment").click()
    box = field(page, "Force N (N)")
    box.fill("4")
    box.press("Enter")
    page.get_by_role("button", name="Set as constant input").click()
    sc = wait_scenario(server, page_run.room, lambda s: s["bodies"][0]["Force"][0] == 4.0)
    assert sc["bodies"][0]["Force"] == pytest.approx([4.0, 0.0, -mass * G])
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[0] === 4")
    s0 = page.evaluate("__sixdof.lastState")
    s1 = wait_sim(page, 0.5)
    # Newton in the inertial frame: dVel/dt = F/m exactly, while the box turns
    dv = s1["bodies"][0]["Vel"][0] - s0["bodies"][0]["Vel"][0]
    assert dv == pytest.approx(4.0 / mass * (s1["t"] - s0["t"]), rel=1e-3)
    assert s1["t"] - s0["t"] > 0.2
    assert page_run.errors == []


def test_follow_mode_keeps_a_fast_body_in_view(page_run: PageRun) -> None:
    """Pushed east to 10 m/s, the body stays near the middle of the view while Follow is on."""
    page = page_run.page
    load_preset(page, "hover")
    page.click("#btn-reset")
    assert page.get_attribute("#btn-follow", "aria-pressed") == "true"
    canvas = page.locator("#scene").bounding_box()
    assert canvas is not None
    page.locator("#scene").focus()
    page.keyboard.down("ArrowRight")
    page.wait_for_function("__sixdof.lastState.bodies[0].Vel[1] > 10")
    page.keyboard.up("ArrowRight")
    wait_sim(page, 1.0)  # coasting at > 10 m/s: a lagging camera would lose it
    wait_drawn(page)
    state = page.evaluate("__sixdof.lastState")
    assert state["bodies"][0]["Vel"][1] > 10.0 and state["bodies"][0]["Pos"][1] > 10.0
    x, y = screen(page)
    cx = canvas["x"] + canvas["width"] / 2
    cy = canvas["y"] + canvas["height"] / 2
    assert abs(x - cx) < 0.2 * canvas["width"] and abs(y - cy) < 0.25 * canvas["height"]
    assert page_run.errors == []


def first_pull(server: Served, room: str, name: str, weight: float, since: float) -> np.ndarray:
    """The first applied Force after `since` that is not the weight alone by more than 5 % of
    it, minus the weight: read from the room's history, one row per frame the server made
    (a page-side timer sampling frames missed it under CI load)."""
    with urllib.request.urlopen(f"{server.url}/api/rooms/{room}/history.csv", timeout=10) as r:
        header, *rows = r.read().decode().splitlines()
    columns = header.split(",")
    t = columns.index("Time")
    force = [columns.index(f"{name}.Force[{k}]") for k in range(3)]
    for row in rows:
        cells = row.split(",")
        pull = np.array([float(cells[k]) for k in force]) - [0.0, 0.0, weight]
        if float(cells[t]) > since and np.linalg.norm(pull) > 0.05 * abs(weight):
            return pull
    raise AssertionError("the history shows no pull")


def test_shift_drag_pulls_the_body_toward_the_mouse(page_run: PageRun, server: Served) -> None:
    page = page_run.page
    load_preset(page, "hover")
    follow_off(page)
    # not turning: the grab takes the point as drawn, and the drawn pose of a turning body lags
    # the room's by as much as the machine is loaded (a first pull 70° off east, once)
    page.evaluate("__sixdof.send({type: 'reset', state: {AngVel: [0, 0, 0]}})")
    page.wait_for_function("__sixdof.lastState.bodies[0].AngVel[2] === 0")
    wait_drawn(page)
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    name = page.evaluate("__sixdof.hello.scenario.bodies[0].Name")
    # the first real pull the server applied (applied Force minus the weight), with the body
    # still at rest, points from the grabbed point to the mouse. The spring sent at the grab
    # itself pulls toward the grabbed point as drawn, a rounding away: pulls under 5 % of the
    # weight are not the one to check
    since = page.evaluate("__sixdof.lastState.t")
    x, y = screen(page)
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    # far enough that its image moves well past 20 px: the target at least 0.6 m east of the
    # start, however large the preset's framing draws the body (120 px were 0.8 m before
    # presets framed their bodies, 0.17 m after, and the body crept past 0.3 m in 45 s)
    dx = 0
    while dx < 1200 and page.evaluate("(__sixdof.drag?.target[1] ?? 0) < 0.6"):
        dx += 60
        page.mouse.move(x + dx, y, steps=3)
        page.wait_for_function("__sixdof.drag !== null")
    page.wait_for_function("__sixdof.lastState.bodies[0].Pos[1] > 0.3", timeout=WAIT_MS)
    page.mouse.up()
    page.keyboard.up("Shift")
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] === 0")
    pull = first_pull(server, page_run.room, name, -mass * G, since)
    after = body(page)
    x1, _ = screen(page)
    # the spring first pulled east (to the right on screen; within 45°, as the default view
    # looks from a little west of south and down), and the body went that way
    east = pull[1] / np.linalg.norm(pull)
    assert east > np.cos(np.radians(45)), f"first pull should point east: {pull}"
    assert after["Force"] == pytest.approx([0, 0, -mass * G], abs=1e-9)  # released: push cleared
    # released beyond 0.3 m; the spring's small overshoot may carry it back a little since
    assert after["Pos"][1] > 0.25 and x1 - x > 20, "pulled to the right, it went right"
    assert page_run.errors == []


def test_shift_drag_with_follow_does_not_tow_the_body(page_run: PageRun) -> None:
    """The drag target is fixed in the world: held still, the grabbed point settles on it
    while the camera follows (a target that moved with the camera towed the body along)."""
    page = page_run.page
    load_preset(page, "hover")
    assert page.get_attribute("#btn-follow", "aria-pressed") == "true"
    page.evaluate("__sixdof.send({type: 'reset', state: {AngVel: [0, 0, 0]}})")
    page.wait_for_function("__sixdof.lastState.bodies[0].AngVel[2] === 0")
    wait_drawn(page)
    x, y = screen(page)
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y - 20, steps=4)
    page.wait_for_function("__sixdof.drag !== null")
    wait_frames(page, 3)
    first = page.evaluate("__sixdof.drag")  # the pointer stops here
    wait_sim(page, 2.5)  # held still while the camera follows the body
    drag = page.evaluate("__sixdof.drag")
    assert drag["target"] == pytest.approx(first["target"], abs=1e-9)  # fixed in the world
    state = body(page)
    page.mouse.up()
    page.keyboard.up("Shift")
    r = to_rotmat(np.array(state["Quater"]))
    grabbed = np.array(state["Pos"]) + r @ np.array(drag["point"])
    assert np.linalg.norm(np.array(drag["target"]) - np.array(state["Pos"])) > 0.1  # it moved
    assert np.linalg.norm(grabbed - np.array(drag["target"])) < 0.05, (grabbed, drag)
    assert page_run.errors == []


def test_mass_set_in_the_panel_reaches_the_server(page_run: PageRun, server: Served) -> None:
    page = page_run.page
    box = field(page, "Mass (kg)")
    box.fill("3.5")
    box.press("Enter")
    sc = wait_scenario(server, page_run.room, lambda s: s["bodies"][0]["Mass"] == 3.5)
    assert sc["bodies"][0]["Mass"] == 3.5
    page.wait_for_function("__sixdof.hello.scenario.bodies[0].Mass === 3.5")
    assert page_run.errors == []


def test_invalid_values_show_the_servers_error_next_to_the_control(
    page_run: PageRun, server: Served
) -> None:
    page = page_run.page
    before = server.get_json(f"/api/rooms/{page_run.room}/scenario")["bodies"][0]
    box = field(page, "Mass (kg)")
    box.fill("-1")
    box.press("Enter")
    error = page.locator(".sixdof-error[data-field='Mass']")
    error.wait_for(timeout=WAIT_MS)
    text = error.inner_text()
    assert "Mass" in text and "-1" in text, text  # the server's words: field, value, range
    # it sits right under the Mass row
    assert page.evaluate(
        "() => document.querySelector(\".sixdof-error[data-field='Mass']\")"
        ".previousElementSibling.textContent.includes('Mass (kg)')"
    )
    assert (
        server.get_json(f"/api/rooms/{page_run.room}/scenario")["bodies"][0]["Mass"]
        == before["Mass"]
    )

    radii = field(page, "InertiaRadi (m)")
    radii.fill("0.1, 0.1, 5000")
    radii.press("Enter")
    rerr = page.locator(".sixdof-error[data-field='InertiaRadi']")
    rerr.wait_for(timeout=WAIT_MS)
    assert "InertiaRadi" in rerr.inner_text()

    box.fill("2.5")
    box.press("Enter")
    error.wait_for(state="detached", timeout=WAIT_MS)
    sc = wait_scenario(server, page_run.room, lambda s: s["bodies"][0]["Mass"] == 2.5)
    assert sc["bodies"][0]["Mass"] == 2.5
    assert page_run.errors == []


def test_screenshots_of_default_view_plots_and_phone(browser: Browser, server: Served) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    run = open_page(browser, server.url)
    page = run.page
    wait_sim(page, 0.3)
    wait_drawn(page)
    page.screenshot(path=str(SHOTS / "default.png"))
    side = page.locator("#side").bounding_box()
    canvas = page.locator("#scene").bounding_box()
    assert side["width"] >= 300 and canvas["width"] + side["width"] == pytest.approx(1280, abs=2)

    load_preset(page, "tennis_racket")
    page.click("#btn-plots")
    page.uncheck("#plot-chooser input[data-channel='Pos']")
    page.uncheck("#plot-chooser input[data-channel='Energy']")
    page.check("#plot-chooser input[data-channel='AngVel']")
    wait_sim(page, 1.5)
    wait_plot_redraw(page)
    assert page.locator(".plot-cell").count() == 1  # only the ticked AngVel
    assert page.locator("#caption").is_visible()
    assert "Dzhanibekov" in page.inner_text("#caption")
    page.screenshot(path=str(SHOTS / "preset_plots.png"))
    # the Screenshot button saves a PNG of the view; CSV links to the room's history
    with page.expect_download() as shot:
        page.click("#btn-shot")
    png = Path(shot.value.path()).read_bytes()
    canvas = page.locator("#scene").bounding_box()
    width, height = struct.unpack(">II", png[16:24])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and shot.value.suggested_filename.endswith(".png")
    assert width == pytest.approx(canvas["width"], abs=2) and height == pytest.approx(
        canvas["height"], abs=2
    )
    csv = page.evaluate("fetch(document.getElementById('btn-csv').href).then((r) => r.text())")
    assert csv.count("\n") > 10 and "Pos" in csv.splitlines()[0]
    assert run.errors == []
    run.close()

    phone = open_page(browser, server.url, width=390, height=844)
    page = phone.page
    wait_sim(page, 0.3)
    wait_drawn(page)
    page.screenshot(path=str(SHOTS / "phone.png"))
    canvas = page.locator("#scene").bounding_box()
    assert canvas["width"] == pytest.approx(390, abs=1)  # the view takes the whole width
    side = page.locator("#side").bounding_box()
    assert side["y"] >= canvas["y"] + canvas["height"] - 1  # the sheet is below the view
    assert side["height"] < 60  # collapsed to its one row
    page.click("#btn-panel")
    page.wait_for_function("document.body.classList.contains('panel-open')")
    wait_frames(page, 2)
    side = page.locator("#side").bounding_box()
    canvas = page.locator("#scene").bounding_box()
    assert side["height"] > 200 and side["y"] + side["height"] <= 845  # open, on screen
    assert canvas["y"] + canvas["height"] <= side["y"] + 1  # the view above it, not under it
    wait_drawn(page)
    x, y = screen(page)
    assert 0 < x < 390 and canvas["y"] < y < canvas["y"] + canvas["height"]  # body in view
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / "phone_panel.png"))
    assert phone.errors == []
    phone.close()
