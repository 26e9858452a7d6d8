"""The Hydrodynamics card (issue 43): opened from the Water folder's Hydrodynamics (BEM) part
for a body with a radiation element (the OES sphere), it draws the BEM file's A(ω), B(ω) and
the fitted model's, and K(t), from GET /api/rooms/{room}/hydrodynamics. What the charts hold
is read back from uPlot's data and held against the server's answer and the physics: the
file's values are the server's, the fit's within its reported error, and the fit's K(0) is
(2/π)∫B dω of the file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from a11ykit import open_in
from playwright.sync_api import Browser
from support.pagekit import SHOTS, PageRun, Served, load_preset, open_folder

from sixdof.dynamics.radiation_fit import TAIL

CHARTS = """() => {
  const h = __sixdof.hydro;
  return {pair: h.data.pairs[h.pair], A: h.charts.A.data, B: h.charts.B.data, K: h.charts.K.data};
}"""


@pytest.fixture
def run(browser: Browser, server: Served) -> Iterator[PageRun]:
    page_run = open_in(browser, server.url, "en")  # waits out a cold compile (180 s)
    yield page_run
    page_run.close()


def test_the_card_draws_the_files_and_the_fits_hydrodynamics(run: PageRun, server: Served) -> None:
    page = run.page
    load_preset(page, "floating_box")  # no radiation element: no card to open
    open_folder(page, ".sixdof-water")
    open_folder(page, ".sixdof-bem")
    assert not page.locator(".sixdof-hydro-open").is_visible()
    load_preset(page, "oes_sphere_1m")
    page.locator(".sixdof-hydro-open").get_by_role("button", name="Hydrodynamics…").click()
    page.wait_for_function("__sixdof.hydro.data !== null && __sixdof.hydro.charts.K !== null")
    room = page.evaluate("__sixdof.hello.room")
    server_says: dict[str, Any] = server.get_json(f"/api/rooms/{room}/hydrodynamics?body=Sphere")
    shown = page.evaluate(CHARTS)
    assert shown["pair"] == [2, 2]  # heave first
    p = server_says["pairs"].index([2, 2])
    omega = np.array(server_says["omega"])
    bound = server_says["error"] * server_says["scale"]  # the fit's reported error, absolute
    assert 0 < server_says["error"] < 0.05
    for k in (0, 17, 30, 60, len(omega) - 1):  # a few frequencies, through the resonance
        assert shown["A"][0][k] == pytest.approx(omega[k], rel=1e-12)
        assert shown["A"][1][k] == pytest.approx(server_says["added_mass"][p][k], rel=1e-9)
        assert shown["B"][1][k] == pytest.approx(server_says["damping"][p][k], rel=1e-9, abs=1e-9)
        assert abs(shown["B"][2][k] - shown["B"][1][k]) <= bound
        assert abs(omega[k] * (shown["A"][2][k] - shown["A"][1][k])) <= bound
    # K(0) = (2/π)∫B dω of the file (carried past its last ω as ω⁻², as the fit carries it)
    w, b = np.array([0.0, *omega]), np.array([0.0, *server_says["damping"][p]])
    k0 = 2 / np.pi * (np.trapezoid(b, w) + b[-1] * w[-1] * (1 - 1 / TAIL))
    assert shown["K"][0][0] == 0.0
    assert shown["K"][1][0] == pytest.approx(k0, rel=1e-3)
    assert abs(shown["K"][2][0] - k0) <= server_says["error"] * k0
    summary = page.locator("#hydro-card .hydro-summary").inner_text()
    assert f"{100 * server_says['error']:.2f} %" in summary, summary
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "hydro_card_1280x720.png"))
    # the selector: surge draws surge's
    page.locator("#hydro-card select").select_option(label="surge")
    page.wait_for_function("__sixdof.hydro.data.pairs[__sixdof.hydro.pair][0] === 0")
    shown = page.evaluate(CHARTS)
    s = server_says["pairs"].index([0, 0])
    assert shown["A"][1] == pytest.approx(server_says["added_mass"][s], rel=1e-9)
    assert shown["K"][2] == pytest.approx(server_says["fit_kernel"][s], rel=1e-9)
    # in projector mode the class reads it off the wall: as large as the caption's text, the
    # card wider and its charts as wide as it
    width = page.evaluate("__sixdof.hydro.charts.A.width")
    page.locator("#scene").focus()
    page.keyboard.press("p")
    page.wait_for_function("document.body.classList.contains('projector')")
    sizes = page.evaluate(
        "() => ['.hydro-summary', '.hydro-legend', 'h2'].map((s) =>"
        " parseFloat(getComputedStyle(document.querySelector(`#hydro-card ${s}`)).fontSize))"
    )
    assert min(sizes) >= 18, sizes
    page.wait_for_function(
        "(w) => ['A', 'B', 'K'].every((k) => {"
        " const cell = document.querySelector(`#hydro-card [data-chart=${k}]`);"
        " return cell.clientWidth > w && __sixdof.hydro.charts[k].width === cell.clientWidth; })",
        arg=width,
    )
    server.check_log()
