"""Joints in the page (issue 41): two bodies joined from the panel's Elements folder move
together in the frames the page receives; each mechanism preset loads and draws its joints
where the server's frames put them (a screenshot of each in SIXDOF_SHOTS); Shift+drag on a
link that is not the selected body grabs it and moves the mechanism; the double pendulum's
Divergence plot starts at its ghost's 1e-6 rad."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from panelkit import open_elements, type_into
from playwright.sync_api import Browser, Page
from support.pagekit import SHOTS, PageRun, Served, open_page, wait_drawn, wait_sim

from sixdof.scenario.presets import ORDER, preset_file

#: every preset with joints: its joints (read from the files, so a new one is tested too)
MECHANISMS = {
    name: joints
    for name in ORDER
    if (joints := sum(e["kind"] == "joint" for e in preset_file(name).get("elements", [])))
}
# two boxes side by side, weightless, the right one sliding away east; welded from the panel
PAIR = {
    "name": "pair",
    "bodies": [
        {"Name": "A", "Mass": 1.0, "InertiaRadi": [0.2, 0.2, 0.2], "Mesh": "box",
         "Size": [0.5, 0.5, 0.5], "Material": "Simple/Orange", "Gravity": 0.0},
        {"Name": "B", "Mass": 1.0, "InertiaRadi": [0.2, 0.2, 0.2], "Mesh": "box",
         "Size": [0.5, 0.5, 0.5], "Material": "Simple/Blue", "Gravity": 0.0,
         "Pos": [0.0, 0.5, 0.0], "LocalVel": [0.0, 0.4, 0.0]},
    ],
}  # fmt: skip


@pytest.fixture
def pair(browser: Browser, server: Served) -> Iterator[PageRun]:
    room = f"jp{uuid.uuid4().hex[:10]}"
    server.put_scenario(room, PAIR)
    run = open_page(browser, server.url, room=room)
    yield run
    run.close()


def paused_at_start(page: Page) -> None:
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.send({type: 'reset'})")
    page.wait_for_function("__sixdof.lastState.t === 0")


def test_two_bodies_welded_in_the_panel_move_together(pair: PageRun) -> None:
    page = pair.page
    paused_at_start(page)
    open_elements(page)
    add = ".sixdof-element-add"
    page.locator(add).get_by_label("Kind", exact=True).select_option(label="joint")
    page.locator(add).get_by_label("Joint type", exact=True).select_option(label="fixed (weld)")
    page.locator(add).get_by_label("Joined to", exact=True).select_option(
        label="B, where the point is"
    )
    type_into(page, add, "Point on the body (x, y, z)", "0, 0.25, 0")  # the faces touch there
    before = page.evaluate("__sixdof.helloCount")
    page.locator(add).get_by_role("button", name="Add", exact=True).click()
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements.length === 1",
        arg=before,
    )
    joint = page.evaluate("__sixdof.hello.scenario.elements[0]")
    assert joint["kind"] == "joint" and joint["type"] == "fixed" and joint["body"] == "A"
    # met where it is: B's point under A's (the server may write the left-out end out)
    assert joint["to"]["body"] == "B" and joint["to"].get("point") in (None, [0.0, -0.25, 0.0])
    page.evaluate("__sixdof.send({type: 'resume'})")
    state = wait_sim(page, 1.0)
    a, b = (np.array(x["Pos"]) for x in state["bodies"])
    va, vb = (np.array(x["Vel"]) for x in state["bodies"])
    # welded: one body, the momentum of B shared (equal masses: half its speed each)
    np.testing.assert_allclose(b - a, [0.0, 0.5, 0.0], atol=1e-8)
    np.testing.assert_allclose(va, [0.0, 0.2, 0.0], atol=1e-8)
    np.testing.assert_allclose(vb, va, atol=1e-8)
    assert a[1] > 0.15  # A moved with it
    wait_drawn(page)
    (drawn,) = page.evaluate("__sixdof.elements()")
    assert drawn["type"] == "fixed" and drawn["visible"]
    item = page.locator(".sixdof-element-0").get_by_label("Joint type", exact=True)
    assert item.input_value() == "fixed (weld)"  # its summary line, in words
    assert not pair.errors, pair.errors


def load(page: Page, name: str) -> None:
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("(n) => __sixdof.send({type: 'load_scenario', preset: n})", name)
    page.wait_for_function(
        "([k, n]) => __sixdof.helloCount > k && __sixdof.hello.scenario.name === n"
        " && __sixdof.lastState.elements",
        arg=[before, name],
    )


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_a_mechanism_preset_loads_and_draws_its_joints(page_run: PageRun, name: str) -> None:
    page = page_run.page
    load(page, name)
    wait_sim(page, 1.5)
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.setFollow(false)")
    page.evaluate("__sixdof.resetView()")
    wait_drawn(page)
    specs = page.evaluate("__sixdof.hello.scenario.elements")
    frames = page.evaluate("__sixdof.lastState.elements")
    drawn = page.evaluate("__sixdof.elements()")
    joints = [k for k, e in enumerate(specs) if e["kind"] == "joint"]
    assert len(joints) == MECHANISMS[name]
    for k in joints:
        assert drawn[k]["visible"] and drawn[k]["type"] == specs[k]["type"], (name, k)
        # drawn at the point the server's frame puts the joint (the pose drawn is the newest)
        np.testing.assert_allclose(drawn[k]["at"], frames[k]["point"], atol=1e-6)
        if specs[k]["type"] == "hinge":  # the pin along the axis, turned with its body
            assert drawn[k]["length"] > 0
    page.screenshot(path=str(SHOTS / f"preset_{name}_1280x720.png"))
    assert not page_run.errors, page_run.errors


def test_the_double_pendulum_diverges_from_its_ghost_on_the_divergence_plot(
    page_run: PageRun,
) -> None:
    page = page_run.page
    load(page, "double_pendulum")
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.send({type: 'reset'})")
    page.wait_for_function("__sixdof.lastState.t === 0")
    page.get_by_label("Body", exact=True).select_option("Lower")
    page.evaluate("__sixdof.send({type: 'step', n: 1})")
    page.wait_for_function(
        "__sixdof.lastState.t > 0 && (__sixdof.plotLast('Divergence') || [0])[0] > 0"
    )
    t, log_gap = page.evaluate("__sixdof.plotLast('Divergence')")
    # the lower bar's CG, 0.5 m from its hinge, starts 0.5 µm from the ghost's
    assert log_gap == pytest.approx(math.log10(0.5e-6), abs=0.05), (t, log_gap)
    assert not page_run.errors, page_run.errors


def test_dragging_a_link_that_is_not_selected_moves_the_mechanism(page_run: PageRun) -> None:
    page = page_run.page
    load(page, "four_bar")
    paused_at_start(page)
    # without its motor and damper, at rest on its table: only the drag can move it
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate(
        "__sixdof.send({type: 'set_elements', elements: "
        "__sixdof.hello.scenario.elements.filter((e) => e.kind === 'joint')})"
    )
    page.wait_for_function(
        "(k) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements.length === 4",
        arg=before,
    )
    page.evaluate("__sixdof.setFollow(false)")
    page.evaluate("__sixdof.resetView()")
    wait_drawn(page)
    body = page.get_by_label("Body", exact=True)
    assert body.input_value() == "Crank"
    start = page.evaluate("__sixdof.lastState.bodies")
    page.evaluate("__sixdof.send({type: 'resume'})")
    at = page.evaluate("__sixdof.bodyScreenPosition('Coupler', [0, 0, 0])")
    x, y = at["x"], at["y"]
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 30, steps=4)
    page.mouse.move(x + 120, y + 60, steps=4)
    page.wait_for_function("__sixdof.drag !== null")
    assert body.input_value() == "Coupler"  # grabbed: now selected
    state = wait_sim(page, 1.0)
    page.mouse.up()
    page.keyboard.up("Shift")
    pairs = zip(state["bodies"], start, strict=True)
    moved = [np.linalg.norm(np.subtract(b["Pos"], s["Pos"])) for b, s in pairs]
    assert min(moved) > 1e-3, moved  # every link moved: the pull went through the joints
    assert not page_run.errors, page_run.errors


def test_the_drift_readout_and_the_joints_reaction_moments_are_shown(page_run: PageRun) -> None:
    """Show -> Energy: a line with the joints' largest gap now (the server's JointGap and
    JointGapAngle over the bodies); Forces: a hinge's reaction moment as an arc at its point."""
    page = page_run.page
    load(page, "four_bar")  # lying flat: its hinges hold the links up, a moment across each
    for label in ("Energy", "Forces"):
        page.locator("#panel").get_by_label(label, exact=True).set_checked(True)
    wait_sim(page, 0.5)
    line = page.locator("#energy .energy-joints")
    line.wait_for(state="visible")
    page.wait_for_function("__sixdof.teach.energy.gap && __sixdof.teach.energy.gap.worst >= 0")
    # read together: both follow the same received frame
    gap, gaps = page.evaluate(
        "[__sixdof.teach.energy.gap, __sixdof.lastState.bodies.map((b) => b.JointGap)]"
    )
    assert gap["m"] < 1e-8 and gap["rad"] < 1e-8, gap  # projected out every step
    assert gap["m"] == max(gaps)
    assert "largest gap" in line.inner_text()
    page.wait_for_function(
        "__sixdof.teach.fbd.elementArcs.some((a) => a.arc.visible && a.label.text.includes('N·m'))"
    )
    labels = page.evaluate(
        "__sixdof.teach.fbd.elementArcs.filter((a) => a.arc.visible).map((a) => a.label.text)"
    )
    assert all(text.startswith("joint M ") for text in labels), labels
    assert not page_run.errors, page_run.errors
