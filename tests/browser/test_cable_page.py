"""A cable in the page (issue 44): drawn as a polyline through the nodes the state frames
carry, so a slack line hanging between a pinned body and a world point sags in the view by
what the frames say (read through the page's test hook, __sixdof.elements())."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Browser
from support.pagekit import SHOTS, PageRun, Served, open_page, wait_drawn

N = 10
HANGING = {
    "name": "hanging_cable",
    "bodies": [{"Name": "A", "Mass": 50.0, "InertiaRadi": [0.3, 0.3, 0.3], "Pos": [0.0, 0.0, 1.0],
                "Material": "Simple/Red"}],
    "elements": [
        {"kind": "pivot", "body": "A"},
        # 8 m of line between points 6 m apart, in the water (z > 0): it sags and settles
        {"kind": "cable", "body": "A", "to": [6.0, 0.0, 1.0], "length": 8.0, "segments": N,
         "mass_per_length": 2.0, "axial_stiffness": 1e5, "diameter": 0.02},
    ],
}  # fmt: skip


@pytest.fixture
def hanging(browser: Browser, server: Served) -> Iterator[PageRun]:
    room = f"cb{uuid.uuid4().hex[:10]}"
    server.put_scenario(room, HANGING)
    run = open_page(browser, server.url, room=room)
    run.page.wait_for_function("__sixdof.lastState.elements && __sixdof.elements().length")
    yield run
    run.close()


def test_a_hanging_cable_is_drawn_through_its_nodes_sagging_as_the_frames_say(
    hanging: PageRun,
) -> None:
    page = hanging.page
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")
    page.evaluate("__sixdof.send({type: 'reset'})")
    page.wait_for_function("__sixdof.lastState.t === 0")
    page.evaluate("__sixdof.send({type: 'step', n: 2000})")  # 2 s of 1 ms steps: swinging
    page.wait_for_function("Math.abs(__sixdof.lastState.t - 2) < 1e-9")
    wait_drawn(page)
    drawn = page.evaluate("__sixdof.elements()")[1]
    frame = page.evaluate("__sixdof.lastState.elements[1]")
    assert drawn["kind"] == "cable" and drawn["visible"]
    assert "radius" not in drawn  # a line, not a spring's coil
    got, want = np.array(drawn["nodes"]), np.array(frame["nodes"])
    assert got.shape == want.shape == (N + 1, 3)
    # the ends on the drawn body point and the world point, the inner nodes the frame's
    # (float32 vertices)
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(got[-1], [6.0, 0.0, 1.0], atol=1e-6)

    def sag(nodes: np.ndarray) -> float:  # the midpoint below its ends (NED: z down)
        return float(nodes[N // 2, 2] - 0.5 * (nodes[0, 2] + nodes[-1, 2]))

    assert sag(want) > 1.0, sag(want)  # 8 m over 6 m: a slack line hangs ~2 m
    assert sag(got) == pytest.approx(sag(want), abs=1e-5)
    page.screenshot(path=str(SHOTS / "cable_1280x720.png"))
    # the next frames move it: the drawing follows them
    page.evaluate("__sixdof.send({type: 'step', n: 500})")
    page.wait_for_function("Math.abs(__sixdof.lastState.t - 2.5) < 1e-9")
    wait_drawn(page)
    later = np.array(page.evaluate("__sixdof.elements()")[1]["nodes"])
    moved = np.array(page.evaluate("__sixdof.lastState.elements[1]")["nodes"])
    assert np.abs(moved - want).max() > 1e-3  # still swinging
    np.testing.assert_allclose(later, moved, atol=1e-5)
    assert not hanging.errors, hanging.errors
