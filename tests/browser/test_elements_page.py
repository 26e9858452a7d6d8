"""The scenario's elements in the page (issue 27): a pivot, a spring and the ground PUT as JSON
are drawn (the coil and the floor found in the screen's pixels), their forces labelled in the
free-body diagram; a spring added and tuned in the panel's Elements folder, as a user would,
changes a pendulum's period in the frames the page receives; a refused value shows under its
control; Shift+drag on a pivoted body swings it about the pivot."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from panelkit import open_elements, opened, record, type_into
from playwright.sync_api import Browser, Page
from scipy.special import ellipk
from support.pagekit import (
    SHOTS,
    PageRun,
    Served,
    decode_png,
    wait_drawn,
    wait_sim,
    wait_still,
)

MASS, RX, D = 2.0, 0.25, 0.5  # the pendulum: a bar held at its top end, d = 0.5 m above the CG
I_O = MASS * (RX * RX + D * D)  # about the pivot
PENDULUM = {
    "name": "pendulum",
    "bodies": [{"Name": "P", "Mass": MASS, "InertiaRadi": [RX, 0.2, 0.3], "Mesh": "box",
                "Size": [0.2, 0.2, 1.0], "Material": "Simple/Orange", "AngVel": [1.5, 0, 0]}],
    "elements": [{"kind": "pivot", "body": "P", "point": [0.0, 0.0, -D]}],
}  # fmt: skip
TH = 0.8
WORLD = {
    "name": "elements",
    "bodies": [
        {"Name": "B", "Mass": MASS, "InertiaRadi": [RX, 0.2, 0.3], "Mesh": "box",
         "Size": [0.2, 0.2, 1.0], "Material": "Simple/Orange",
         "Quater": [math.cos(TH / 2), math.sin(TH / 2), 0.0, 0.0]},
        {"Name": "S", "Mass": 1.0, "InertiaRadi": [0.2, 0.2, 0.2], "Size": [0.5, 0.5, 0.5],
         "Material": "Simple/Red", "Pos": [0.0, 1.8, -0.6]},
        {"Name": "C", "Mass": 1.0, "InertiaRadi": [0.2, 0.2, 0.2], "Mesh": "box",
         "Size": [0.5, 0.5, 0.5], "Material": "Simple/Green", "Pos": [0.0, -1.6, 0.7]},
    ],
    "elements": [
        {"kind": "pivot", "body": "B", "point": [0.0, 0.0, -D]},
        {"kind": "spring", "body": "S", "point": [0.0, 0.0, -0.25], "to": [0.0, 1.8, -2.2],
         "stiffness": 40.0, "rest_length": 1.0},
        {"kind": "ground", "body": "C", "height": 1.0, "restitution": 0.3, "friction": 0.5},
    ],
}  # fmt: skip


@pytest.fixture
def world(browser: Browser, server: Served) -> Iterator[PageRun]:
    run = opened(browser, server, WORLD)
    yield run
    run.close()


@pytest.fixture
def pendulum(browser: Browser, server: Served) -> Iterator[PageRun]:
    run = opened(browser, server, PENDULUM)
    yield run
    run.close()


def pixels(page: Page, ned: list[float], half: int = 14) -> np.ndarray:
    """The screen's pixels (RGB, float) round the NED point `ned`, once the view is still."""
    at = wait_still(page, ned)
    x, y = at["x"], at["y"]
    clip = {"x": x - half, "y": y - half, "width": 2 * half, "height": 2 * half}
    png = page.screenshot(clip=clip)
    return decode_png(png).reshape(-1, 3).astype(float)


def test_a_pivot_a_spring_and_the_ground_are_drawn(world: PageRun) -> None:
    page = world.page
    # paused at t = 0.5 s exactly, with the camera still (it follows the swinging bar
    # otherwise): pixels stay put, and the bodies are where they are at that time (paused
    # once 0.5 s had gone by, a loaded run stopped at 6.2 s, the bar's velocity arrow over
    # the floor's sample)
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.send({type: 'reset'})")
    page.wait_for_function("__sixdof.lastState.t === 0")
    page.evaluate("__sixdof.send({type: 'step', n: 500})")  # 1 ms steps
    page.wait_for_function("Math.abs(__sixdof.lastState.t - 0.5) < 1e-9")
    page.evaluate("__sixdof.setFollow(false)")
    page.evaluate("__sixdof.resetView()")
    wait_drawn(page)
    drawn = page.evaluate("__sixdof.elements()")
    assert [e["kind"] for e in drawn] == ["pivot", "spring", "ground"]
    assert all(e["visible"] for e in drawn)
    state = page.evaluate("__sixdof.lastState")
    pivot, spring, ground = state["elements"]
    assert ground["force"][2] < 0  # the box rests on it: pushed up (−z)
    # the pivot is held where its point started: R(θ about x) (0, 0, −d)
    held = [0.0, D * math.sin(TH), -D * math.cos(TH)]
    assert np.allclose(pivot["point"], held, atol=1e-6)
    assert np.allclose(drawn[0]["at"], held, atol=1e-3)
    assert spring["other"] == [0.0, 1.8, -2.2]
    assert np.allclose(drawn[1]["to"], [0.0, 1.8, -2.2], atol=1e-6)
    assert drawn[2]["height"] == 1.0
    # the free-body diagram of the selected body (the pendulum, B) labels the pivot's reaction
    fbd = "__sixdof.teach.fbd.elementGlyphs.filter((g) => g.label.visible).map((g) => g.label.text)"
    page.wait_for_function(f"{fbd}.some((s) => /^pivot [0-9.]+ N$/.test(s))")
    page.screenshot(path=str(SHOTS / "elements_1280x720.png"))
    # the coil: its middle is the spring's blue (#1c7ed6), not the background or a body
    a, b = np.array(drawn[1]["from"]), np.array(drawn[1]["to"])
    coil = pixels(page, list((a + b) / 2), half=10)
    blue = (coil[:, 2] > coil[:, 0] + 80) & (coil[:, 2] > 150)
    assert blue.mean() > 0.05, f"no coil at the spring's middle: {coil.mean(axis=0)}"
    # the floor: a point on it away from the bodies is the floor's sand, not the background
    floor = pixels(page, [1.5, 0.0, 1.0]).mean(axis=0)
    background = np.array([0xE8, 0xED, 0xF2], float)
    assert np.abs(floor - background).sum() > 60, floor
    assert floor[0] > floor[2] + 20, f"not the floor's colour: {floor}"
    # the box C resting on the ground: choose it in the panel and its diagram shows the
    # ground's push, its weight (m g = 9.81 N) at the centre of pressure
    page.get_by_label("Body", exact=True).select_option("C")
    page.wait_for_function(f"{fbd}.some((s) => /^ground 9[.]8[0-9]? N$/.test(s))")
    assert not world.errors, world.errors


def closed_form(rows: list[tuple[float, float, float]], stiffness: float) -> float:
    """The period of the bar swinging as far as it did in `rows`: the spring (zero rest
    length, from the bar's end 2d below the pivot to the point straight below it) pulls with
    a moment k (2d)² sin θ, so the pendulum's 4 K(sin²(θ₀/2)) √(I_o / (m g d + k (2d)²))."""
    amplitude = max(abs(r[2]) for r in rows)
    restoring = MASS * 9.81 * D + stiffness * (2 * D) ** 2
    return float(4 * ellipk(math.sin(amplitude / 2) ** 2) * math.sqrt(I_O / restoring))


def period(rows: list[tuple[float, float, float]]) -> float:
    """Twice the mean interval between the roll rate's sign changes (interpolated)."""
    t = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    s = np.flatnonzero(np.diff(np.sign(w)) != 0)
    zero = t[s] - w[s] * (t[s + 1] - t[s]) / (w[s + 1] - w[s])
    assert len(zero) >= 3, f"too few swings: {zero}"
    return float(2 * np.mean(np.diff(zero)))


def test_a_spring_added_in_the_panel_changes_the_period(pendulum: PageRun) -> None:
    page = pendulum.page
    rows = record(page, 4.0)
    free, exact = period(rows), closed_form(rows, 0.0)
    assert free == pytest.approx(exact, rel=5e-3)

    # Elements → Add: a spring from the bar's bottom end to the world point below the pivot
    open_elements(page)
    add = ".sixdof-element-add"
    page.locator(add).get_by_label("Kind", exact=True).select_option(label="spring")
    type_into(page, add, "Point on the body (x, y, z)", "0, 0, 0.5")
    type_into(page, add, "Other end's point", "0, 0, 0.5")
    before = page.evaluate("__sixdof.helloCount")
    page.locator(add).get_by_role("button", name="Add", exact=True).click()
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements.length === 2"
        " && __sixdof.lastState.elements && __sixdof.lastState.elements.length === 2",
        arg=before,
    )
    spring = page.evaluate("__sixdof.hello.scenario.elements[1]")
    assert spring["kind"] == "spring" and spring["stiffness"] == 100.0  # the server's default
    page.wait_for_selector(".sixdof-element-1")
    wait_sim(page, 0.3)
    rows = record(page, 3.0)
    stiff, k100 = period(rows), closed_form(rows, 100.0)
    assert stiff == pytest.approx(k100, rel=5e-3)
    assert stiff < 0.5 * free

    # tune it: a refused stiffness shows under the control and changes nothing ...
    item = ".sixdof-element-1"
    type_into(page, item, "Stiffness (N/m)", "-5")
    error = page.locator(f"{item} .sixdof-error")
    error.wait_for()
    assert "stiffness" in error.inner_text()
    assert page.evaluate("__sixdof.hello.scenario.elements[1].stiffness") == 100.0
    # ... an accepted one takes effect
    before = page.evaluate("__sixdof.helloCount")
    type_into(page, item, "Stiffness (N/m)", "20")
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements[1].stiffness === 20",
        arg=before,
    )
    wait_sim(page, 0.3)
    rows = record(page, 3.0)
    soft, k20 = period(rows), closed_form(rows, 20.0)
    assert soft == pytest.approx(k20, rel=5e-3)
    print(f"periods in the page's frames: free {free:.4f} s (closed form {exact:.4f}), "
          f"k = 100: {stiff:.4f} s ({k100:.4f}), k = 20: {soft:.4f} s ({k20:.4f})")  # fmt: skip
    page.screenshot(path=str(SHOTS / "elements_panel_1280x720.png"))

    # Remove: the pendulum swings free again
    before = page.evaluate("__sixdof.helloCount")
    page.locator(item).get_by_role("button", name="Remove", exact=True).click()
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements.length === 1",
        arg=before,
    )
    assert not pendulum.errors, pendulum.errors


def test_dragging_a_pivoted_body_swings_it_about_the_pivot(pendulum: PageRun) -> None:
    page = pendulum.page
    # hanging still: the state reset with no spin, paused there (a running reset left a
    # window of 1 s of simulated time to see it in, which a loaded page missed), then resumed
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.send({type: 'reset', state: {AngVel: [0, 0, 0]}})")
    page.wait_for_function(
        "__sixdof.lastState.t === 0 && Math.abs(__sixdof.lastState.bodies[0].AngVel[0]) < 1e-9"
    )
    wait_drawn(page)
    page.evaluate("__sixdof.send({type: 'resume'})")
    page.wait_for_function("__sixdof.lastState.status.running")
    held = page.evaluate("__sixdof.lastState.elements[0].point")
    # Shift+drag the bar's bottom end sideways (east on screen)
    at = page.evaluate("__sixdof.bodyScreenPosition('P', [0, 0, 0.4])")
    x, y = at["x"], at["y"]
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y, steps=4)
    page.mouse.move(x + 120, y, steps=4)
    page.wait_for_function("__sixdof.drag !== null")
    wait_sim(page, 1.0)
    frame = page.evaluate("__sixdof.lastState")
    drag = page.evaluate("__sixdof.drag")
    page.mouse.up()
    page.keyboard.up("Shift")
    # the pivot has not moved; the bar turned about it toward the pull
    assert np.allclose(frame["elements"][0]["point"], held, atol=1e-6)
    q = frame["bodies"][0]["Quater"]
    angle = 2 * math.acos(min(1.0, abs(q[0])))
    assert angle > 0.1, f"the bar did not swing: {angle} rad"
    cg = np.array(frame["bodies"][0]["CGPos"])
    assert abs(np.linalg.norm(cg - np.array(held)) - D) < 1e-6  # the CG stays d from the pivot
    assert drag is not None and drag["point"][2] > 0.2  # the grab stayed at the bar's lower part
    assert not pendulum.errors, pendulum.errors
