"""Pushing everywhere: touch (long-press drag, push pad, two-finger orbit), the held push on
top of a constant input, and watch mode where nothing may be sent."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Browser, CDPSession, Page
from playwright.sync_api import Error as PlaywrightError
from support.adversary import own_budget_whole
from support.pagekit import (
    SHOTS,
    PageRun,
    Served,
    body,
    load_preset,
    open_page,
    page_server,
    steady_point,
    steady_screen,
    wait_drawn,
    wait_frames,
    wait_shown,
    wait_sim,
)

from sixdof.dynamics.quaternion import to_rotmat

G = 9.81


def screen(page: Page) -> tuple[float, float]:
    p = page.evaluate("__sixdof.bodyScreenPosition()")
    return p["x"], p["y"]


def touch(cdp: CDPSession, kind: str, *points: tuple[float, float]) -> None:
    """A touch event through Chromium's input pipeline (pointer events with pointerType touch)."""
    cdp.send(
        "Input.dispatchTouchEvent",
        {
            "type": kind,
            "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)],
        },
    )


def still_hover(page: Page) -> None:
    """The hover box, weight cancelled, not turning, the camera not following."""
    load_preset(page, "hover")
    page.evaluate("__sixdof.setFollow(false)")
    page.evaluate("__sixdof.send({type: 'reset', state: {AngVel: [0, 0, 0]}})")
    page.wait_for_function("__sixdof.lastState.bodies[0].AngVel[2] === 0")
    wait_drawn(page)
    # read and closed, as a student does: on a phone the caption opens over the body
    close = page.get_by_role("button", name="Close caption")
    if close.is_visible():
        close.click()
        page.wait_for_function("document.getElementById('caption').hidden")


@pytest.fixture
def phone(browser: Browser, server: Served) -> Iterator[tuple[PageRun, CDPSession]]:
    run = open_page(browser, server.url, width=360, height=640, touch=True)
    run.taint()  # a CDP session of its own: the page is closed, not pooled, at the end
    yield run, run.page.context.new_cdp_session(run.page)
    run.close()


def test_a_long_press_on_the_body_drags_it_toward_the_finger(phone, server: Served) -> None:  # type: ignore[no-untyped-def]
    run, cdp = phone
    page = run.page
    still_hover(page)
    # the worker's tests share this server's one address and its work budget, which a test
    # before may have overdrawn: a drag refused then is not sent again until the finger moves
    own_budget_whole(server)
    weight = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass") * G
    # hover asks a question: the answer box is on the page, and must not take the touch
    assert page.locator("#answer").is_visible()
    x, y, hit = steady_screen(page)
    assert hit == "scene", hit
    touch(cdp, "touchStart", (x, y))
    # held still: the long press grabbed it, and sent its spring
    page.wait_for_function("__sixdof.drag !== null && __sixdof.drag.spring !== null")
    # the first pull the server applies after the move, the body still at rest (no damping
    # yet). The spring sent at the grab pulls toward the grabbed point as drawn, which the
    # drawn pose can put a little away from the server's (a 0.53 N pull, 2.7 % of the
    # weight, was seen on a loaded machine): a frame counts once the move's spring has been
    # sent and the pull is at least half of what it asks at rest, k times the distance moved
    page.evaluate(
        """(w) => { window.__first = null; const grab = __sixdof.drag.spring.target;
           window.__timer = setInterval(() => {
             const d = __sixdof.drag;
             if (window.__first || !d || !d.spring) return;
             const moved = Math.hypot(...d.spring.target.map((v, i) => v - grab[i]));
             const b = __sixdof.lastState.bodies[0];
             const p = [b.Force[0], b.Force[1], b.Force[2] + w];
             if (moved > 1e-6 && Math.hypot(...p) > 0.5 * d.spring.stiffness * moved)
               window.__first = [d, b];
           }, 2); }""",
        weight,
    )
    touch(cdp, "touchMove", (x + 70, y - 20))
    try:
        page.wait_for_function("window.__first !== null")
    except PlaywrightError:  # say what the page had: a refusal's banner, the pull, the spring
        seen = page.evaluate(
            "({drag: __sixdof.drag, force: __sixdof.lastState.bodies[0].Force, banners:"
            " [...document.querySelectorAll('[data-banner]')].map((e) => e.textContent)})"
        )
        raise AssertionError(f"the move's pull never came: {seen}") from None
    drag, state = page.evaluate("clearInterval(window.__timer), window.__first")
    grabbed = np.array(state["Pos"]) + to_rotmat(np.array(state["Quater"])) @ np.array(
        drag["point"]
    )
    # the spring law the server applies, with the damping of the point's velocity (under
    # load the first strong pull can come a few frames later, the body already moving)
    spring = drag["spring"]
    lever = to_rotmat(np.array(state["Quater"])) @ np.array(drag["point"])
    v_point = np.array(state["Vel"]) + np.cross(np.array(state["AngVelGlobal"]), lever)
    want = spring["stiffness"] * (np.array(spring["target"]) - grabbed)
    want -= spring["damping"] * v_point
    pull = np.array(state["Force"]) - np.array([0.0, 0.0, -weight])
    cosine = pull @ want / np.linalg.norm(pull) / np.linalg.norm(want)
    angle = math.degrees(math.acos(min(1.0, max(-1.0, cosine))))
    assert angle < 2.0, (pull, want)  # the same law: only rounding and the cap
    touch(cdp, "touchEnd")
    page.wait_for_function("__sixdof.drag === null")
    assert run.errors == []


def test_the_push_pad_pushes_in_the_view_plane_and_twists(phone) -> None:  # type: ignore[no-untyped-def]
    run, cdp = phone
    page = run.page
    still_hover(page)
    assert page.locator("#pad").is_visible()  # on a touch screen by itself
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    touch(cdp, "touchStart", steady_point(page, "#pad .pad-stick", fx=0.9))  # the stick right
    page.wait_for_function("Math.abs(__sixdof.lastState.bodies[0].Force[1]) > 1")
    force = np.array(body(page)["Force"]) - np.array([0.0, 0.0, -mass * G])
    assert force[1] > 0.8 * np.linalg.norm(force)  # screen right is east in the default view
    # |stick| 0.9 of the panel's Key push, 1 m/s² by default
    assert np.linalg.norm(force) == pytest.approx(mass * 1.0 * 0.9, rel=0.05)
    touch(cdp, "touchEnd")
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] === 0")
    touch(cdp, "touchStart", steady_point(page, "#pad [data-twist='1']"))
    page.wait_for_function("__sixdof.lastState.bodies[0].Moment[2] > 0")
    touch(cdp, "touchEnd")
    page.wait_for_function("__sixdof.lastState.bodies[0].Moment[2] === 0")
    assert run.errors == []


def test_two_fingers_orbit_and_never_push(phone) -> None:  # type: ignore[no-untyped-def]
    run, cdp = phone
    page = run.page
    still_hover(page)
    sent = len(page.evaluate("__sixdof.sent"))
    cam = page.evaluate("__sixdof.stage.camera.position.toArray()")
    x, y, _ = steady_screen(page)
    touch(cdp, "touchStart", (x - 30, y), (x + 30, y))  # both fingers, one on the body
    for k in range(1, 8):
        touch(cdp, "touchMove", (x - 30 - 10 * k, y + 6 * k), (x + 30 + 10 * k, y + 6 * k))
    touch(cdp, "touchEnd")
    wait_frames(page, 3)
    moved = page.evaluate("__sixdof.stage.camera.position.toArray()")
    assert np.linalg.norm(np.array(moved) - np.array(cam)) > 1e-3  # the camera moved
    assert "set_input" not in page.evaluate("__sixdof.sent")[sent:]
    assert page.evaluate("__sixdof.drag") is None
    assert run.errors == []


def test_push_while_held_adds_to_the_constant_input_exactly(page_run: PageRun) -> None:
    page = page_run.page
    still_hover(page)
    mass = page.evaluate("__sixdof.hello.scenario.bodies[0].Mass")
    page.get_by_role("button", name="Force and Moment").click()
    box = page.get_by_label("Force N (N)", exact=True)
    box.fill("4")
    box.press("Enter")
    page.get_by_role("button", name="Set as constant input").click()
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[0] === 4")
    held = page.get_by_label("Push E (N)", exact=True)  # its own fields, zero until set
    held.fill("2")
    held.press("Enter")
    button = page.locator(".lil-controller.lil-function", has_text="Push while held")
    button.hover()
    page.mouse.down()
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] === 2")
    assert body(page)["Force"] == [4.0, 2.0, -mass * G]  # exactly the sum, not twice anything
    wait_shown(page)
    assert "constant + held" in page.inner_text("[data-hud=inputs]")
    page.mouse.up()
    page.wait_for_function("__sixdof.lastState.bodies[0].Force[1] === 0")
    assert body(page)["Force"] == [4.0, 0.0, -mass * G]  # the constant input, unchanged
    assert page_run.errors == []


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    srv = page_server(log=tmp_path_factory.mktemp("locked") / "serve.log", token="lecture")
    yield srv
    srv.stop()


def test_watching_sends_nothing_and_says_why(browser: Browser, locked: Served) -> None:
    run = open_page(browser, locked.url)
    page = run.page
    assert page.locator("#watch").is_visible()
    assert "Watching: the lecturer controls this room" in page.inner_text("#watch")
    for button in ("#btn-pause", "#btn-step", "#btn-reset"):
        assert page.locator(button).is_disabled()
    enabled = page.evaluate(
        "[...document.querySelectorAll('#panel input, #panel select, #panel button')]"
        ".filter((e) => !e.disabled && e.closest('.lil-controller') && "
        "!e.closest('.lil-controller').classList.contains('lil-disabled'))"
        ".map((e) => e.closest('.lil-controller').textContent.trim())"
    )
    display_only = ("Body", "Forces", "ω and L", "Poinsot", "Energy", "Ground and height",
                    "Velocity", "Trail", "World axes", "Top", "Side", "Front", "Follow",
                    "Camera follows", "Projector", "Inertia ellipsoid",
                    # Access: this page's own contrast, sound, language and descriptions
                    "Language", "High contrast", "Sound of ω", "Describe")  # fmt: skip
    assert all(any(t.startswith(d) for d in display_only) for t in enabled), [
        t for t in enabled if not any(t.startswith(d) for d in display_only)
    ]
    page.locator("#scene").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    x, y = screen(page)
    page.keyboard.down("Shift")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y)
    assert page.evaluate("__sixdof.drag") is None  # no local pull arrow
    page.mouse.up()
    page.keyboard.up("Shift")
    wait_sim(page, 0.2)
    assert page.evaluate("__sixdof.sent") == []  # not one message that needs the token
    page.fill("#watch-token", "lecture")
    page.click("#watch button[type=submit]")
    # a new page loads (with the token): until its script has run there is no __sixdof
    page.wait_for_function(
        "window.__sixdof && __sixdof.hello && __sixdof.hello.can_control === true"
    )
    assert page.locator("#watch").is_hidden() and page.locator("#btn-pause").is_enabled()
    assert run.errors == []
    run.close()


@pytest.mark.parametrize(("width", "height"), [(360, 640), (768, 1024)])
def test_phone_and_tablet_screenshots(
    browser: Browser, server: Served, width: int, height: int
) -> None:
    run = open_page(browser, server.url, width=width, height=height, touch=True)
    page = run.page
    load_preset(page, "tennis_racket")
    wait_sim(page, 0.5)
    wait_drawn(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"touch_{width}x{height}.png"))
    x, y = screen(page)
    canvas = page.locator("#scene").bounding_box()
    assert canvas["x"] < x < canvas["x"] + canvas["width"]
    assert canvas["y"] < y < canvas["y"] + canvas["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # text stays readable: nothing in the HUD, toolbar or sheet below 11 px
    smallest = page.evaluate(
        "Math.min(...[...document.querySelectorAll('#hud *, #toolbar > *, #sheet-handle')]"
        ".filter((e) => e.offsetParent && e.textContent.trim())"
        ".map((e) => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert smallest >= 11, smallest
    assert run.errors == []
    run.close()
