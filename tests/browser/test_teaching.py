"""The page teaches: each overlay of the Show folder, toggled by its label in real Chromium,
changes the rendered pixels where it should, and draws the numbers it claims (the L arrow
along the frame's angular momentum, the weight arrow m·g over the legend's scale, the flip
counter as the headless run counts, the Poinsot contact point on the ellipsoid and on the
invariable plane)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Browser, Page
from support.pagekit import (
    WAIT_MS,
    PageRun,
    Served,
    body,
    decode_png,
    distant_view,
    load_preset,
    open_page,
    wait_drawn,
    wait_frames,
    wait_plot_redraw,
    wait_sim,
)

import sixdof
from sixdof.teaching import count_flips

OVERLAYS = [
    "Forces",
    "ω and L",
    "Poinsot",
    "Energy",
    "Ground and height",
    "Body axes",
    "World axes",
]


@pytest.fixture(scope="module")
def shared(browser: Browser, server: Served) -> Iterator[PageRun]:
    """One page for the overlay tests: each loads its own preset (a fresh scenario), so
    they do not depend on each other, and the page is opened once."""
    run = open_page(browser, server.url)
    yield run
    run.close()


def fresh(run: PageRun, preset: str, *overlays_on: str) -> Page:
    """The shared page with only `overlays_on` shown and `preset` loaded (running)."""
    page = run.page
    for label in OVERLAYS:
        page.locator("#panel").get_by_label(label, exact=True).set_checked(label in overlays_on)
    load_preset(page, preset)
    distant_view(page)  # the regions around the CG below were sized for it
    return page


def show(page: Page, label: str, on: bool) -> None:
    """Tick or untick an overlay in the panel's Show folder, by its label."""
    page.locator("#panel").get_by_label(label, exact=True).set_checked(on)
    wait_frames(page, 3)


def paused(page: Page) -> None:
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    wait_drawn(page)


def region(page: Page, x: float, y: float, half: int) -> np.ndarray:
    shot = decode_png(
        page.screenshot(clip={"x": x - half, "y": y - half, "width": 2 * half, "height": 2 * half})
    )
    return shot.astype(float)


def changed_share(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels that changed visibly between two shots of one region."""
    return float((np.abs(a - b).sum(axis=2) > 40).mean())


def toggled_pixels(page: Page, label: str, x: float, y: float, half: int = 120) -> float:
    show(page, label, False)
    off = region(page, x, y, half)
    show(page, label, True)
    on = region(page, x, y, half)
    return changed_share(off, on)


def cg_on_screen(page: Page) -> tuple[float, float]:
    p = page.evaluate("__sixdof.bodyScreenPosition()")
    return p["x"], p["y"]


def angle_deg(a: list[float], b: list[float]) -> float:
    a_, b_ = np.asarray(a, float), np.asarray(b, float)
    c = a_ @ b_ / (np.linalg.norm(a_) * np.linalg.norm(b_))
    return math.degrees(math.acos(min(1.0, max(-1.0, c))))


def test_forces_draw_the_weight_at_m_g_over_the_legends_scale(shared: PageRun) -> None:
    run = shared
    page = fresh(run, "hover", "Forces")
    paused(page)
    x, y = cg_on_screen(page)
    assert toggled_pixels(page, "Forces", x, y) > 0.01
    spec = page.evaluate("__sixdof.hello.scenario.bodies[0]")
    weight = spec["Mass"] * spec["Gravity"]
    page.wait_for_function("!document.getElementById('fbd-legend').hidden")
    legend = page.inner_text("#fbd-legend")
    scale = float(re.search(r"1 m = ([\d.]+) N", legend).group(1))
    drawn = page.evaluate("__sixdof.teach.fbd.weight.length")
    assert drawn == pytest.approx(weight / scale, rel=1e-9)
    # hover: a constant lift cancels the weight: the constant input is drawn at the CG
    # pointing up with the weight's magnitude, and the net force is zero (no net arrow)
    lift = page.evaluate("__sixdof.teach.fbd.loads[0].length")
    assert lift == pytest.approx(weight / scale, rel=1e-6)
    assert page.evaluate("__sixdof.teach.fbd.net.arrow.visible") is False
    assert "W " in page.evaluate("__sixdof.teach.fbd.weight.label.text")
    assert run.errors == []


def test_omega_and_l_the_l_arrow_is_the_frames_angular_momentum(shared: PageRun) -> None:
    run = shared
    page = fresh(run, "symmetric_top")
    show(page, "ω and L", True)
    # torque-free: L keeps its direction while ω sweeps round it (samples over one period
    # of the precession, 1.62 s)
    ls, ws = [], []
    for _ in range(7):
        wait_sim(page, 0.27)
        wait_drawn(page)
        ls.append(page.evaluate("[...__sixdof.teach.omegaL.drawn.L.toArray()]"))
        ws.append(page.evaluate("[...__sixdof.teach.omegaL.drawn.omega.toArray()]"))
    assert max(angle_deg(ls[0], x) for x in ls) < 0.5
    assert max(angle_deg(ws[0], x) for x in ws) > 5.0
    paused(page)
    drawn = page.evaluate("[...__sixdof.teach.omegaL.drawn.L.toArray()]")
    assert angle_deg(drawn, body(page)["AngularMomentum"]) < 1.0
    x, y = cg_on_screen(page)
    assert toggled_pixels(page, "ω and L", x, y) > 0.01
    assert run.errors == []


def test_poinsot_contact_lies_on_the_ellipsoid_and_the_plane_and_follows_inertia(
    shared: PageRun,
) -> None:
    run = shared
    page = fresh(run, "tennis_racket")
    show(page, "Poinsot", True)
    wait_sim(page, 0.5)
    paused(page)
    x, y = cg_on_screen(page)
    assert toggled_pixels(page, "Poinsot", x, y) > 0.005
    geo = page.evaluate(
        """(() => { const p = __sixdof.teach.poinsot;
        return {s: p.s, contact: p.contact.position.toArray(), plane: p.plane.position.toArray(),
                semi: p.axes.scale.toArray(), values: p.principal.values}; })()"""
    )
    b = body(page)
    s = geo["s"]
    omega_world = np.asarray(b["AngVelGlobal"]) * s
    contact = np.asarray(geo["contact"])
    # the contact point is s·ω (drawn pose: within the interpolation's rounding)
    assert np.linalg.norm(contact - omega_world) < 1e-3 * np.linalg.norm(omega_world)
    n = np.asarray(b["AngularMomentum"]) / np.linalg.norm(b["AngularMomentum"])
    plane_d = float(np.asarray(geo["plane"]) @ n)
    assert contact @ n == pytest.approx(plane_d, rel=1e-6)  # on the invariable plane
    assert plane_d == pytest.approx(
        s * 2 * b["RotationalEnergy"] / np.linalg.norm(b["AngularMomentum"]), rel=1e-3
    )
    # on the energy ellipsoid: semi-axes s √(2T / I_k)
    semi = np.asarray(geo["semi"])
    assert semi == pytest.approx(
        s * np.sqrt(2 * b["RotationalEnergy"] / np.asarray(geo["values"])), rel=1e-3
    )
    # a live InertiaRadi change gives a new ellipsoid: semi-axes ∝ 1/r_k
    before = semi / semi.max()
    page.evaluate("__sixdof.send({type: 'set_params', InertiaRadi: [0.2556, 0.1491, 0.45]})")
    page.wait_for_function("__sixdof.hello.scenario.bodies[0].InertiaRadi[2] === 0.45")
    wait_frames(page, 3)
    after = np.asarray(page.evaluate("__sixdof.teach.poinsot.axes.scale.toArray()"))
    assert not np.allclose(before, after / after.max(), rtol=0.05)
    radii = np.array([0.2556, 0.1491, 0.45])
    assert sorted(after / after.max()) == pytest.approx(
        sorted((1 / radii) / (1 / radii).max()), rel=1e-3
    )
    assert run.errors == []


def test_energy_drift_shows_the_integrator(shared: PageRun) -> None:
    run = shared
    page = fresh(run, "symmetric_top")
    show(page, "Energy", False)
    off = region(page, 160, 630, 100)
    show(page, "Energy", True)
    page.wait_for_function("Number.isFinite(__sixdof.teach.energy.lastDrift)")
    assert changed_share(off, region(page, 160, 630, 100)) > 0.05
    wait_sim(page, 1.0)
    rk4 = abs(page.evaluate("__sixdof.teach.energy.lastDrift"))
    page.locator("#panel").get_by_label("Integrator", exact=True).select_option("euler")
    page.wait_for_function("__sixdof.lastState.status.integrator === 'euler'")
    wait_sim(page, 1.0)
    # the card rewrites its numbers a few times a second, from the frame its render loop
    # drew last: on a starved page the drift read now may be from a frame long before; the
    # next rewrite is from a frame received after the second of Euler (its drift only grows)
    stale = page.evaluate("__sixdof.teach.energy.lastDrift")
    page.wait_for_function("(d) => __sixdof.teach.energy.lastDrift !== d", arg=stale)
    euler = abs(page.evaluate("__sixdof.teach.energy.lastDrift"))
    total = body(page)["TotalEnergy"]
    assert rk4 < 1e-9 * total
    # the precessing top: Euler gains 2.5e-4 of the energy per second at h = 1 ms (a
    # headless run says so), RK4 1e-16
    assert euler > 5e-5 * total and euler > 1e4 * rk4
    assert "drift since reset" in page.inner_text("#energy")
    assert run.errors == []


def test_energy_bars_show_what_a_spring_stores(shared: PageRun) -> None:
    """Two masses on a spring: the stored row appears (hidden for a free body) with the
    frame's StoredEnergy, and the total, which includes it, does not drift while the spring's
    energy comes and goes."""
    run = shared
    page = fresh(run, "symmetric_top")
    show(page, "Energy", True)
    page.wait_for_function("Number.isFinite(__sixdof.teach.energy.lastDrift)")
    assert page.locator("#energy .energy-row.stored").is_hidden()
    page = fresh(run, "two_masses_spring", "Energy")
    page.wait_for_function(
        "!document.querySelector('#energy .energy-row.stored').hidden"
        " && Number.isFinite(__sixdof.teach.energy.lastDrift)"
    )
    seen = set()
    for _ in range(3):
        wait_sim(page, 0.4)
        seen.add(round(body(page)["StoredEnergy"], 6))
    assert len(seen) == 3 and max(seen) > 0.0  # the spring's share changes as it swings
    # the drift is of both bodies' summed total: energy moves between them through the spring
    drift = abs(page.evaluate("__sixdof.teach.energy.lastDrift"))
    total = page.evaluate("__sixdof.lastState.bodies.reduce((s, b) => s + b.TotalEnergy, 0)")
    assert drift < 1e-9 * abs(total)
    assert "J" in page.inner_text("#energy .energy-row.stored .energy-value")
    assert "all bodies" in page.inner_text("#energy")
    assert run.errors == []


def test_energy_bars_show_what_a_hull_radiates(shared: PageRun) -> None:
    """The OES sphere released 1 m above the water with its radiation memory: the radiated
    row appears (hidden without radiation) with the frame's RadiatedEnergy, growing as the
    sphere bobs (issue 43)."""
    run = shared
    page = fresh(run, "floating_box", "Energy")
    page.wait_for_function("Number.isFinite(__sixdof.teach.energy.lastDrift)")
    assert page.locator("#energy .energy-row.radiated").is_hidden()
    page = fresh(run, "oes_sphere_1m", "Energy")
    page.wait_for_function("!document.querySelector('#energy .energy-row.radiated').hidden")
    seen = []
    for _ in range(3):
        wait_sim(page, 0.4)
        seen.append(body(page)["RadiatedEnergy"])
    assert seen == sorted(seen) and seen[0] > 0.0 and seen[-1] > seen[0], seen
    assert "J" in page.inner_text("#energy .energy-row.radiated .energy-value")
    assert "radiated" in page.inner_text("#energy .energy-row.radiated .energy-name")
    assert run.errors == []


def test_ground_and_height_follow_a_falling_body(shared: PageRun) -> None:
    run = shared
    page = fresh(run, "free_fall")
    show(page, "Ground and height", True)
    wait_sim(page, 1.0)
    paused(page)
    x, y = cg_on_screen(page)
    assert toggled_pixels(page, "Ground and height", x, y, half=160) > 0.005
    b = body(page)
    assert page.evaluate("__sixdof.teach.height.height") == pytest.approx(-b["CGPos"][2], abs=1e-9)
    assert page.evaluate("__sixdof.teach.height.heightLabel.text").startswith("height −D = -")
    # the plots offer height as well as D
    assert page.locator("#plot-chooser input[data-channel='Height']").count() == 1
    assert "−D" in page.inner_text("#help")
    assert run.errors == []


@pytest.mark.parametrize("label", ["Body axes", "World axes"])
def test_axes_overlays_change_their_own_pixels(shared: PageRun, label: str) -> None:
    run = shared
    page = fresh(run, "spin_up", "Body axes", "World axes")
    paused(page)
    if label == "Body axes":
        x, y = cg_on_screen(page)
    else:  # where the world's N axis ends
        cell = page.evaluate("__sixdof.stage.scale")
        p = page.evaluate("(n) => __sixdof.nedScreenPosition(n)", [2 * cell, 0, 0])
        x, y = p["x"], p["y"]
    assert toggled_pixels(page, label, x, y, half=60) > 0.01
    assert run.errors == []


def test_the_flip_counter_counts_the_flips_of_the_headless_run(
    browser: Browser, server: Served
) -> None:
    headless = sixdof.run("tennis_racket", t_end=14.0).arrays()
    times, wx = headless["Time"], headless["T.AngVel"][:, 0]
    assert count_flips(wx[times <= 10.0], 4.0) == 2
    run = open_page(browser, server.url)
    page = run.page
    page.locator("#panel").get_by_label("Time scale", exact=True).select_option(label="5 ×")
    load_preset(page, "tennis_racket")
    assert page.locator("#flips").is_visible()
    page.wait_for_function("__sixdof.lastState.t >= 10", timeout=WAIT_MS)
    # the page's count and its time read together: the run goes on meanwhile
    t, count, text = page.evaluate(
        "[__sixdof.lastState.t, __sixdof.teach.flips.count,"
        " document.getElementById('flips').textContent]"
    )
    assert count == count_flips(wx[times <= t + 1e-9], 4.0) >= 2
    assert text == f"Flips: {count}"
    assert run.errors == []
    run.close()


def test_a_preset_asks_first_and_show_me_runs_it(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url)
    page = run.page
    select = page.get_by_label("Preset", exact=True)
    select.select_option(label="Tennis racket (Dzhanibekov) effect")
    page.wait_for_function("__sixdof.hello.scenario.name === 'tennis_racket'")
    page.wait_for_selector("#btn-showme", state="visible")
    assert "What will the handle do after half a turn?" in page.inner_text("#caption")
    assert page.locator("#caption .caption-text").is_hidden()
    assert page.evaluate("__sixdof.lastState.status.running") is False
    assert page.evaluate("__sixdof.lastState.t") == 0
    page.click("#btn-showme")
    page.wait_for_function("__sixdof.lastState.status.running && __sixdof.lastState.t > 0.2")
    assert page.locator("#caption .caption-text").is_visible()
    assert run.errors == []
    run.close()


def test_camera_presets_keys_and_projector(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url)
    page = run.page
    page.locator("#panel").get_by_text("Top (T)", exact=True).click()
    wait_frames(page, 2)
    cam = page.evaluate(
        "[...__sixdof.stage.camera.position.toArray(), ...__sixdof.stage.controls.target.toArray()]"
    )
    offset = np.asarray(cam[:3]) - np.asarray(cam[3:])
    assert offset[1] > 0.99 * np.linalg.norm(offset)  # three's y is up: looking straight down
    page.locator("#panel").get_by_text("Side (Y)", exact=True).click()
    wait_frames(page, 2)
    cam = page.evaluate(
        "[...__sixdof.stage.camera.position.toArray(), ...__sixdof.stage.controls.target.toArray()]"
    )
    offset = np.asarray(cam[:3]) - np.asarray(cam[3:])
    assert offset[2] > 0.95 * np.linalg.norm(offset)  # three's z is east: from the east
    # the keys toggle the overlays as the checkboxes do
    forces = page.locator("#panel").get_by_label("Forces", exact=True)
    before = forces.is_checked()
    page.locator("#scene").focus()
    page.keyboard.press("1")
    assert forces.is_checked() is (not before)
    assert "Poinsot" in page.inner_text("#help")
    hud_font = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#hud .big')).fontSize)"
    )
    page.locator("#panel").get_by_label("Projector (P)", exact=True).check()
    page.wait_for_function("document.body.classList.contains('projector')")
    big = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#hud .big')).fontSize)"
    )
    assert big >= 1.4 * hud_font
    assert page.locator("#side").is_hidden()  # the panel collapsed
    assert page.evaluate("__sixdof.teach.thick") > 1
    assert run.errors == []
    run.close()


def test_a_plot_enlarges_changes_quantity_and_window(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url)
    page = run.page
    page.click("#btn-plots")
    cell = page.locator(".plot-cell[data-channel='Pos']")
    cell.wait_for(state="visible")
    cell.get_by_role("button", name="Enlarge").click()
    box = cell.bounding_box()
    assert box["width"] * box["height"] > 0.6 * 1280 * 720
    cell.get_by_role("button", name="Back").click()
    assert cell.bounding_box()["height"] < 300
    cell.get_by_label("Quantity").select_option("OmegaGlobal")
    page.locator(".plot-cell[data-channel='OmegaGlobal']").wait_for(state="visible")
    assert page.locator(".plot-cell[data-channel='Pos']").count() == 0
    # more than 10 s of data (at 10 × speed), then the window decides what is drawn
    page.locator("#panel").get_by_label("Time scale", exact=True).select_option(label="10 ×")
    page.wait_for_function("__sixdof.lastState.t >= 14", timeout=WAIT_MS)
    for window, shown in (("10", lambda span: span <= 10.2), ("30", lambda span: span > 13.0)):
        page.select_option("#plot-window", window)
        wait_plot_redraw(page)
        first, last = page.evaluate("__sixdof.plotSpan('OmegaGlobal')")
        assert shown(last - first), (window, first, last)
    assert run.errors == []
    run.close()
