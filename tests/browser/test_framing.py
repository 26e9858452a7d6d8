"""Every preset is framed when it loads (issue 45): its bodies' projected bounding boxes cover at
least 15 % of the view's height on a laptop (1366×800), a projector (1920×1080, projector mode)
and a phone (390×844), and the preset's view sets the follow camera (off for pinned and floating
bodies) and the plots. The share is measured here from the camera and each mesh's own bounding
box, corner by corner, not by the page's framing code, on the sweep's one visit of each preset
at each size (presetsweep.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page
from presetsweep import LOADED, SIZES, Sweep, by_size, load_paused, probe
from support.pagekit import Served, open_page, wait_frames

from sixdof.scenario.presets import ORDER, preset_file

#: the share of the view's height the bodies must cover (the issue's figure)
LEAST = 0.15

#: the union of the meshes' projected vertical extents, clipped to the view, over its height
COVERED = """() => {
  const cam = __sixdof.stage.camera;
  cam.updateMatrixWorld();
  const spans = [];
  for (const mesh of Object.values(__sixdof.meshes)) {
    mesh.updateWorldMatrix(true, false);
    const g = mesh.geometry;
    g.computeBoundingBox();
    const b = g.boundingBox;
    let lo = Infinity, hi = -Infinity, left = Infinity, right = -Infinity;
    for (let k = 0; k < 8; k++) {
      const p = b.min.clone().set(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y,
        k & 4 ? b.max.z : b.min.z).applyMatrix4(mesh.matrixWorld).project(cam);
      lo = Math.min(lo, p.y); hi = Math.max(hi, p.y);
      left = Math.min(left, p.x); right = Math.max(right, p.x);
    }
    if (right < -1 || left > 1) continue;
    lo = Math.max(-1, lo); hi = Math.min(1, hi);
    if (hi > lo) spans.push([lo, hi]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let covered = 0, end = -1;
  for (const [lo, hi] of spans) {
    if (hi <= end) continue;
    covered += hi - Math.max(lo, end);
    end = hi;
  }
  return covered / 2;
}"""


@probe("framing", tuple(SIZES), LOADED)
def framing(page: Page, name: str) -> dict:
    """The share of the height the bodies cover, and the follow and plots the view set."""
    return {
        "share": page.evaluate(COVERED),
        "follow": page.evaluate("__sixdof.stage.follow"),
        "plots": sorted(page.evaluate("__sixdof.plotsChosen")),
    }


@pytest.mark.parametrize("size", by_size())
def test_every_preset_is_framed(preset_sweep: Callable[[str], Sweep], size: str) -> None:
    sweep = preset_sweep(size)
    shares = {}
    for name in ORDER:
        seen = sweep.get(name, "framing")
        shares[name] = seen["share"]
        view = preset_file(name)["view"]
        assert seen["follow"] == view["follow"], (size, name)
        assert seen["plots"] == sorted(view["plots"]), (size, name)
    small = {k: round(v, 3) for k, v in shares.items() if v < LEAST}
    print(size, {k: round(v, 3) for k, v in shares.items()})
    assert small == {}, f"{size}: bodies cover less than {LEAST:.0%} of the height: {small}"
    assert sweep.errors == {}, size


def test_the_frame_key_frames_again(browser: Browser, server: Served) -> None:
    """Zoomed far out with the wheel's worth of distance, Z frames the bodies again; the toolbar's
    Frame does the same."""
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    load_paused(page, "gyroscope")
    framed = page.evaluate(COVERED)
    assert framed >= LEAST
    away = """() => { const s = __sixdof.stage;
      const d = s.camera.position.clone().sub(s.controls.target);
      s.camera.position.copy(s.controls.target).addScaledVector(d, 8); s.controls.update(); }"""
    page.evaluate(away)
    wait_frames(page, 2)
    assert page.evaluate(COVERED) < LEAST
    page.locator("#scene").focus()
    page.keyboard.press("z")
    wait_frames(page, 2)
    assert page.evaluate(COVERED) == pytest.approx(framed, rel=0.05)
    page.evaluate(away)
    page.click("#btn-frame")
    wait_frames(page, 2)
    assert page.evaluate(COVERED) == pytest.approx(framed, rel=0.05)
    assert run.errors == []
    run.close()
