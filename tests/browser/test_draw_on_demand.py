"""The page draws on demand (issue 38, frontend/src/view/watch.js): a paused room's picture is
drawn once and not again while nothing in it changes, and whatever changes it is drawn: the
room running on, an overlay toggled by its key, the camera zoomed, a lost WebGL context given
back; a paused sea with waves and a current is still. Counts of the render loop's callbacks
(`ticks`) and of the frames it drew (`rendered`), never a clock."""

from __future__ import annotations

from labelkit import overlays_on
from playwright.sync_api import Page
from support.pagekit import PageRun, distant_view, grab, load_preset, wait_frames

#: callbacks of the render loop that draw nothing before the picture counts as still (the
#: camera's easing and the last interpolated frames end well before)
STILL_TICKS = 10


def counts(page: Page) -> tuple[int, int]:
    """(frames drawn, callbacks of the render loop) so far."""
    drawn, ticks = page.evaluate("[__sixdof.rendered, __sixdof.ticks]")
    return drawn, ticks


def wait_still(page: Page) -> int:
    """Wait until the render loop has run STILL_TICKS times without drawing; frames drawn."""
    page.evaluate("window.__still = null")
    page.wait_for_function(
        """(n) => {
          const now = {drawn: __sixdof.rendered, at: __sixdof.ticks};
          const s = (window.__still ??= now);
          if (now.drawn !== s.drawn) window.__still = now;
          return now.at - window.__still.at >= n;
        }""",
        arg=STILL_TICKS,
    )
    return counts(page)[0]


def pause(page: Page) -> None:
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.wait_for_function("!__sixdof.lastState.status.running")


def test_a_paused_picture_is_drawn_once_and_changes_are_drawn(page_run: PageRun) -> None:
    page = page_run.page
    drawn = counts(page)[0]  # the default scenario spins: running, it is drawn as it moves
    page.wait_for_function("(n) => __sixdof.rendered >= n", arg=drawn + 5)
    pause(page)
    distant_view(page)  # the body's axes stick out of it there: their pixels below change
    drawn = wait_still(page)
    wait_frames(page, 20)
    assert counts(page)[0] == drawn  # still: twenty more callbacks, nothing drawn
    centre = page.evaluate("__sixdof.bodyScreenPosition()")
    before = grab(page, centre["x"], centre["y"], 60)

    page.focus("#scene")
    page.keyboard.press("6")  # the body's axes off
    wait_frames(page, 2)
    assert counts(page)[0] > drawn
    assert (grab(page, centre["x"], centre["y"], 60) != before).any()  # and they are gone
    drawn = wait_still(page)

    page.mouse.move(centre["x"], centre["y"])
    page.mouse.wheel(0, -300)  # the camera closer (OrbitControls' zoom, damped)
    wait_frames(page, 2)
    assert counts(page)[0] > drawn
    drawn = wait_still(page)
    before = grab(page, centre["x"], centre["y"], 60)

    # a context lost and given back has lost the picture though the scene is the same
    page.evaluate(
        """() => new Promise((done) => {
          const canvas = __sixdof.stage.canvas;
          const lose = __sixdof.stage.renderer.getContext().getExtension('WEBGL_lose_context');
          const once = {once: true};
          const restore = () => setTimeout(() => lose.restoreContext(), 50);
          canvas.addEventListener('webglcontextlost', restore, once);
          canvas.addEventListener('webglcontextrestored', () => done(null), once);
          lose.loseContext();
        })"""
    )
    wait_frames(page, 2)
    assert counts(page)[0] > drawn
    # the same picture again
    assert abs(grab(page, centre["x"], centre["y"], 60).astype(int) - before).max() <= 2

    page.evaluate("__sixdof.send({type: 'resume'})")
    page.wait_for_function("__sixdof.lastState.status.running")
    # running again: drawn as it moves (a wait, not a share of the render loop's callbacks: on
    # a loaded machine frames come late and a callback with no newer pose draws nothing)
    drawn = counts(page)[0]
    page.wait_for_function("(n) => __sixdof.rendered >= n", arg=drawn + 3)
    assert page_run.errors == []
    page_run.taint()  # its context was lost once: not handed to another test


def test_a_paused_sea_is_still(page_run: PageRun) -> None:
    """buoy_in_waves and a current: waves, the streaks drifting with the current, a two-sided
    transparent surface (which three.js draws in two passes, counting each as a change of its
    material). Running, it is drawn as it moves; paused, it is drawn once."""
    page = page_run.page
    load_preset(page, "buoy_in_waves")
    assert page.evaluate("__sixdof.hello.scenario.water.waves")
    page.evaluate(
        "__sixdof.send({type: 'set_water', water: {...__sixdof.hello.scenario.water,"
        " current: [0.5, 0.2, 0]}})"
    )
    page.wait_for_function("__sixdof.water(0, 0).streaks")
    drawn = counts(page)[0]
    page.wait_for_function("(n) => __sixdof.rendered >= n", arg=drawn + 5)
    pause(page)
    drawn = wait_still(page)
    wait_frames(page, 20)
    assert counts(page)[0] == drawn
    assert page_run.errors == []


def test_a_paused_picture_with_leader_lines_is_still(page_run: PageRun) -> None:
    """Labels moved off their arrows' tips hang on leader lines (view/declutter.js), placed
    again every frame: a paused gyroscope whose six labels all sit on its CG (so each gets a
    leader) is drawn once. The lines were sent to the GPU every frame, which redrew a paused
    page for ever whenever a label needed one (found in CI on the buoy in waves)."""
    page = page_run.page
    load_preset(page, "gyroscope")
    pause(page)
    overlays_on(page)
    page.evaluate(
        """() => { const t = __sixdof.teach; const pose = t.drawOverlays.bind(t);
        t.drawOverlays = (v, b, now) => {
          pose(v, b, now); for (const l of t.labels()) l.position.copy(v.cg); }; }"""
    )
    page.wait_for_function("__sixdof.teach.declutter.leaders.visible")
    drawn = wait_still(page)
    wait_frames(page, 20)
    assert counts(page)[0] == drawn
    page_run.taint()  # its overlays' posing replaced
