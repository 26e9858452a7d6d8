"""The page's stability view and flip period (frontend/src/teach/stability.js) show the Python
side's numbers: sixdof.stability's eigenvalues at the body's current rate, updated when the
inertia is tuned, and the exact flip interval 2K/λ (dynamics/exact.py) beside the measured
one."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from playwright.sync_api import Page
from support.pagekit import WAIT_MS, PageRun, load_preset

import sixdof
from sixdof.dynamics.exact import flip_interval


def _rows(page: Page) -> list[tuple[str, str]]:
    return page.evaluate(
        "[...document.querySelectorAll('#stability li')]"
        ".map((li) => [li.dataset.kind, li.textContent])"
    )


def _fresh_rows(page: Page) -> list[tuple[str, str]]:
    """The rows once rewritten after now (they are rewritten twice a second)."""
    page.evaluate(
        "document.querySelectorAll('#stability li').forEach((li) => li.dataset.seen = '1')"
    )
    page.wait_for_function(
        "[...document.querySelectorAll('#stability li')].some((li) => !li.dataset.seen)"
    )
    return _rows(page)


def test_eigenvalues_of_the_axes_follow_the_body_and_its_tuning(page_run: PageRun) -> None:
    page = page_run.page
    load_preset(page, "tennis_racket")
    page.click("#stability summary")
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    rows = _fresh_rows(page)
    w = page.evaluate("__sixdof.lastState.bodies[0].AngVel")
    expected = sixdof.stability("tennis_racket", rate=float(np.linalg.norm(w)))["T"]
    assert (
        [k for k, _ in rows]
        == [a.kind for a in expected]
        == ["oscillating", "unstable", "oscillating"]
    )
    middle = rows[1][1]
    assert middle.startswith("x ")  # the racket's intermediate axis
    shown = float(re.search(r"±([0-9.]+) 1/s", middle).group(1))  # type: ignore[union-attr]
    assert shown == pytest.approx(expected[1].growth, abs=1e-4)
    doubling = float(re.search(r"every ([0-9.]+) s", middle).group(1))  # type: ignore[union-attr]
    assert doubling == pytest.approx(math.log(2) / expected[1].growth, abs=1e-3)
    # tuned: y's moment raised above z's makes z the intermediate axis
    page.evaluate("__sixdof.send({type: 'set_params', InertiaRadi: [0.2556, 0.30, 0.2932]})")
    page.wait_for_function("__sixdof.hello.scenario.bodies[0].InertiaRadi[1] === 0.3")
    page.evaluate("__sixdof.send({type: 'step', n: 1})")
    rows = _fresh_rows(page)
    assert [k for k, _ in rows] == ["oscillating", "unstable", "oscillating"]
    assert rows[1][1].startswith("z ")
    scenario = page.evaluate("__sixdof.hello.scenario")
    w = page.evaluate("__sixdof.lastState.bodies[0].AngVel")
    tuned = sixdof.stability(scenario, rate=float(np.linalg.norm(w)))["T"][1]
    shown = float(re.search(r"±([0-9.]+) 1/s", rows[1][1]).group(1))  # type: ignore[union-attr]
    assert shown == pytest.approx(tuned.growth, abs=1e-4)


def test_flip_period_measured_beside_the_exact_one(page_run: PageRun) -> None:
    page = page_run.page
    load_preset(page, "tennis_racket")
    page.evaluate("__sixdof.send({type: 'set_time_scale', time_scale: 2})")
    assert page.locator("#flip-period").is_visible()
    # three flips (2.3, 7.0, 11.6 s): two intervals measured
    page.wait_for_function(
        "document.querySelector('#flip-period').dataset.measured !== ''"
        " && __sixdof.lastState.t > 12.5",
        timeout=60_000,
    )
    data = page.evaluate("({...document.querySelector('#flip-period').dataset})")
    w = page.evaluate("__sixdof.lastState.bodies[0].AngVel")
    radii = np.array([0.2556, 0.1491, 0.2932])
    exact = flip_interval(np.diag(radii**2), np.array(w))
    assert float(data["exact"]) == pytest.approx(exact, rel=1e-9)
    assert exact == pytest.approx(4.655426, abs=1e-4)
    # flip times interpolated between frames (0.4 s of simulated time apart at 5 frames a
    # second and time scale 2; a page that drops frames sees them further apart still)
    print("measured flip period", data["measured"], "exact", exact)
    assert float(data["measured"]) == pytest.approx(exact, abs=0.01)  # 1e-4 seen
    assert "exact" in page.locator("#flip-period").inner_text()


def test_an_exact_ghost_from_the_panel_shows_the_live_integrators_error(
    page_run: PageRun,
) -> None:
    """Ghost integrator "exact", model "same": the ghost is the closed form, so its angle
    from the live RK4 body (1 ms) is RK4's own error: above rounding, far below a degree."""
    page = page_run.page
    load_preset(page, "tennis_racket")
    page.get_by_text("Ghost run").click()
    page.get_by_label("Ghost model", exact=True).select_option(index=0)  # same as the room
    page.get_by_label("Ghost integrator", exact=True).select_option("exact")
    page.get_by_text("Start ghost").click()
    page.wait_for_function("__sixdof.lastState.ghost", timeout=WAIT_MS)
    assert page.evaluate("__sixdof.lastState.ghost.changes") == {"integrator": "exact"}
    page.wait_for_function("__sixdof.lastState.t > 3", timeout=WAIT_MS)
    angle = page.evaluate("__sixdof.lastState.ghost.diff[0].angle")
    assert 1e-14 < angle < 1e-6
