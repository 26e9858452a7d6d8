"""A joint tuned live in the page's Elements panel (issue 41): a bar swinging on a hinge keeps
its swing undamped; its hinge's damping raised in the panel, as a user would, makes the
swing's amplitude in the frames the page receives decay at c / (2 I_o) in simulated time; a
refused value shows under its control and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from panelkit import open_elements, opened, record, type_into
from playwright.sync_api import Browser
from support.pagekit import PageRun, Served, wait_sim

MASS, RX, D = 2.0, 0.25, 0.5  # a bar hinged 0.5 m above its CG, about body x
I_O = MASS * (RX * RX + D * D)  # about the hinge's axis, 0.625 kg·m²
DAMPING = 0.5  # N·m·s/rad: the swing decays at c / (2 I_o) = 0.4 /s
HINGED = {
    "name": "hinged",
    "bodies": [{"Name": "P", "Mass": MASS, "InertiaRadi": [RX, 0.2, 0.3], "Mesh": "box",
                "Size": [0.2, 0.2, 1.0], "Material": "Simple/Orange",
                "AngVel": [6.0, 0.0, 0.0]}],  # held, a 0.3 rad swing
    "elements": [{"kind": "joint", "type": "hinge", "body": "P", "point": [0.0, 0.0, -D],
                  "axis": [1.0, 0.0, 0.0]}],
}  # fmt: skip
LABEL = "Damping (N·m·s/rad; slider N·s/m)"


@pytest.fixture
def hinged(browser: Browser, server: Served) -> Iterator[PageRun]:
    run = opened(browser, server, HINGED)
    yield run
    run.close()


def decay_rate(rows: list[tuple[float, float, float]]) -> tuple[float, np.ndarray]:
    """The rate (1/s) at which the swing's amplitude falls, from a straight line through
    log amplitude at its turning points (the roll rate's sign changes), and those amplitudes.

    A turning point falls between two frames, and a loaded page receives fewer of them (a
    slow client gets the newest): the angle of the frame nearest it fell 4 % short in a
    loaded run. The amplitude is the angle at which the frame's energy would all be
    potential, m g d (1 - cos A) = I_o w^2 / 2 + m g d (1 - cos angle), exact at any frame
    of an undamped swing and within a frame's loss of a damped one."""
    t = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    angle = np.array([r[2] for r in rows])
    s = np.flatnonzero(np.diff(np.sign(w)) != 0)
    assert len(s) >= 4, f"too few swings: {t[s]}"
    near = np.where(np.abs(w[s]) <= np.abs(w[s + 1]), s, s + 1)  # the frame nearer the turn
    weight = MASS * 9.81 * D
    energy = 0.5 * I_O * w[near] ** 2 + weight * (1 - np.cos(angle[near]))
    peaks = np.arccos(1 - energy / weight)
    slope = np.polyfit(t[near], np.log(peaks), 1)[0]
    return float(-slope), peaks


def test_a_hinge_s_damping_raised_in_the_panel_makes_the_swing_decay(hinged: PageRun) -> None:
    page = hinged.page
    free, peaks = decay_rate(record(page, 4.0))
    assert abs(free) < 0.01, (free, peaks)  # undamped: the swing keeps its amplitude

    open_elements(page)
    item = ".sixdof-element-0"
    page.wait_for_selector(item)
    type_into(page, item, LABEL, "-1")  # refused: shown under the control, nothing changes
    error = page.locator(f"{item} .sixdof-error")
    error.wait_for()
    assert "damping" in error.inner_text()
    assert page.evaluate("__sixdof.hello.scenario.elements[0].damping") == 0.0

    before = page.evaluate("__sixdof.helloCount")
    type_into(page, item, LABEL, str(DAMPING))
    page.wait_for_function(
        "([k, c]) => __sixdof.helloCount > k && __sixdof.hello.scenario.elements[0].damping === c",
        arg=[before, DAMPING],
    )
    joint = page.evaluate("__sixdof.hello.scenario.elements[0]")
    assert joint["point"] == [0.0, 0.0, -D] and joint["axis"] == [1.0, 0.0, 0.0]
    wait_sim(page, 0.2)
    damped, peaks = decay_rate(record(page, 4.0))
    exact = DAMPING / (2 * I_O)
    print(f"swing's decay in the page's frames: {free:+.4f} /s undamped, {damped:.4f} /s at "
          f"c = {DAMPING} (c / 2 I_o = {exact:.4f}); amplitudes {peaks.round(4)}")  # fmt: skip
    assert damped == pytest.approx(exact, rel=0.03)
    assert peaks[-1] < 0.4 * peaks[0]
    assert not hinged.errors, hinged.errors
