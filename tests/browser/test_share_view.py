"""The view travels (issue 45): a Share link carries the camera, the overlays and the plots, so
a student who opens it sees what the lecturer saw, not a bare body with the preset's defaults."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page
from support.pagekit import TEST_FPS, WAIT_MS, Served, open_page, wait_connected, wait_frames

VIEW = "__sixdof.view.current()"


def settled(page: Page) -> dict:
    page.wait_for_function("__sixdof.pendingView === null", timeout=WAIT_MS)
    wait_frames(page, 2)
    view: dict = page.evaluate(VIEW)
    return view


def test_a_share_link_opens_on_the_same_view(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.evaluate("__sixdof.send({type: 'load_scenario', preset: 'tennis_racket'})")
    page.wait_for_function(
        "__sixdof.hello.scenario.name === 'tennis_racket'"
        " && __sixdof.lastState.gen === __sixdof.helloCount",
        timeout=WAIT_MS,
    )
    preset = settled(page)
    assert preset["plots"] == ["AngVel"] and preset["follow"] is True
    # the lecturer's own view: follow off, Forces and Energy on, Euler plotted too, the camera
    # moved round to another side and closer
    page.locator("#scene").focus()
    page.keyboard.press("c")
    for label in ("Forces", "Energy"):
        page.locator("#panel").get_by_label(label, exact=True).set_checked(True)
    page.evaluate("__sixdof.plotsChoose('Euler', true)")
    page.evaluate(
        """() => { const s = __sixdof.stage;
        s.camera.position.set(s.controls.target.x + 1.1, s.controls.target.y + 0.7,
          s.controls.target.z - 1.3); s.controls.update(); }"""
    )
    mine = settled(page)
    assert mine["follow"] is False
    assert {"forces", "energy"} <= set(mine["overlays"])
    assert mine["plots"] == ["Euler", "AngVel"]
    page.click("#btn-share")
    page.click("#share button[type=submit]")
    page.wait_for_function("__sixdof.share.url !== null", timeout=WAIT_MS)
    url = page.evaluate("__sixdof.share.url")
    run.close()

    student = open_page(browser, server.url, width=1366, height=800)
    student.page.goto(f"{url}&fps={TEST_FPS}")
    wait_connected(student.page)
    seen = settled(student.page)
    assert seen["follow"] == mine["follow"]
    assert seen["overlays"] == mine["overlays"]
    assert seen["plots"] == mine["plots"]
    for part in ("position", "target"):
        assert seen["camera"][part] == pytest.approx(mine["camera"][part], abs=2e-3), part
    assert student.errors == []
    student.close()


#: the drawn QR code read back module by module: each module's centre pixel, dark or not,
#: beside the library's own encoding of the link the page made
QR_READ = """() => {
  const c = document.querySelector('#share canvas.share-qr');
  const url = __sixdof.share.url;
  const want = __sixdof.qrEncode(url);
  const side = want.size + 2 * want.margin;
  if (c.width !== side || c.height !== side) return {side: c.width, want: side};
  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let wrong = 0, dark = 0;
  for (let r = 0; r < want.size; r++) for (let k = 0; k < want.size; k++) {
    const i = 4 * ((r + want.margin) * side + k + want.margin);
    const d = px[i] < 128;
    dark += d;
    if (d !== want.dark[r * want.size + k]) wrong += 1;
  }
  let quiet = 0; // the margin is all light
  for (let i = 0; i < side * side; i++) {
    const x = i % side, y = Math.floor(i / side), m = want.margin;
    const inside = x >= m && x < side - m && y >= m && y < side - m;
    if (!inside && px[4 * i] < 128) quiet += 1;
  }
  const box = c.getBoundingClientRect();
  return {side, wrong, dark, quiet, modules: want.size, shown: !c.hidden, width: box.width,
          height: box.height, link: url};
}"""


@pytest.mark.parametrize("projector", [False, True], ids=["laptop", "projector"])
def test_the_share_dialog_shows_the_link_as_a_qr_code(
    browser: Browser, server: Served, projector: bool
) -> None:
    """Make link draws a QR code beside the link; its modules are the library's encoding of that
    very link (compared module by module, and a different link's code would not match); in
    projector mode it takes most of the view's height, for the back row's phones."""
    width, height = (1920, 1080) if projector else (1366, 800)
    run = open_page(browser, server.url, width=width, height=height)
    page = run.page
    if projector:
        page.locator("#scene").focus()
        page.keyboard.press("p")
        page.wait_for_function("document.body.classList.contains('projector')")
    assert page.locator("#share canvas.share-qr").is_hidden()
    page.click("#btn-share")
    page.click("#share button[type=submit]")
    page.wait_for_function(
        "__sixdof.share.url !== null && !document.querySelector('#share canvas.share-qr').hidden",
        timeout=WAIT_MS,
    )
    seen = page.evaluate(QR_READ)
    assert seen["shown"] and seen["link"].startswith(server.url)
    assert seen["wrong"] == 0, seen
    assert seen["quiet"] == 0
    assert 0.3 < seen["dark"] / seen["modules"] ** 2 < 0.7  # a code, not a blank or a block
    # another link's code differs: the comparison can fail
    other = page.evaluate("(u) => __sixdof.qrEncode(u + 'x').dark", seen["link"])
    mine = page.evaluate("(u) => __sixdof.qrEncode(u).dark", seen["link"])
    assert other != mine
    least = 0.45 * height if projector else 150
    assert seen["width"] == seen["height"] >= least, seen
    assert run.errors == []
    run.close()
