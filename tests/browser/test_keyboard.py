"""Keyboard alone (issue 29): from page load, Tab reaches every control and each shows a focus
ring (WCAG 2.4.7, 2.4.11); then, with no mouse or touch event at all, pick a preset, pause,
push, grab a marked point and pull it, scrub the timeline back and resume from there."""

from __future__ import annotations

from a11ykit import open_in
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served

FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  const name = el.closest('.lil-controller')?.querySelector('.lil-name')?.textContent;
  return {
    id: el.id, tag: el.tagName, name: name || null, visible: r.width > 0 && r.height > 0,
    text: (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30),
    ring: (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2)
      || cs.boxShadow !== 'none',
  };
}"""

NO_POINTER = """() => {
  window.__pointer = 0;
  for (const t of ['mousedown', 'pointerdown', 'touchstart', 'click'])
    window.addEventListener(t, (ev) => {
      if (ev.isTrusted && ev.detail !== 0) __pointer += 1; // a keyboard's click has detail 0
    }, true);
}"""


def tab_to(page: Page, test: str, limit: int = 250) -> None:
    """Press Tab until the focused element passes `test` (a JS predicate of it)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"(() => {{ const el = document.activeElement; return {test}; }})()"):
            return
    raise AssertionError(f"Tab never reached {test}")


def test_tab_reaches_every_control_with_a_focus_ring(browser: Browser, server: Served) -> None:
    run = open_in(browser, server.url, "en")
    page = run.page
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip"  # the skip link comes first
    seen: list[dict] = []
    for _ in range(300):
        f = page.evaluate(FOCUSED)
        if f is None or (seen and f["id"] == "skip"):
            break
        seen.append(f)
        page.keyboard.press("Tab")
    ids = {f["id"] for f in seen}
    for control in ("skip", "scene", "btn-pause", "btn-describe", "lang-picker", "btn-panel"):
        assert control in ids, f"Tab never reaches #{control}"
    assert any(f["name"] == "Preset" for f in seen)
    assert any(
        f["tag"] == "INPUT" and f["id"] == "" and f["name"] is None for f in seen
    )  # timeline
    without = [f for f in seen if not (f["ring"] and f["visible"])]
    assert without == [], f"{len(without)} of {len(seen)} focused controls show no ring: {without}"
    print(f"{len(seen)} controls reached by Tab, each with a focus ring")
    run.close()


def test_keyboard_only_session(browser: Browser, server: Served) -> None:
    run = open_in(browser, server.url, "en")
    page = run.page
    page.evaluate(NO_POINTER)
    state = "__sixdof.lastState"
    # pick a preset: Tab to the panel's Preset menu, type its first letter and Enter
    tab_to(
        page,
        "el.tagName === 'SELECT' && el.closest('.lil-controller')?.textContent.includes('Preset')",
    )
    page.keyboard.press("T")  # Tennis racket (Dzhanibekov) effect, chosen: loaded on Enter
    page.keyboard.press("Enter")
    page.wait_for_function("__sixdof.hello.scenario.name === 'tennis_racket'")
    # the preset asks its question paused; Space on the view resumes it, and pauses it again
    tab_to(page, "el.id === 'scene'")
    page.wait_for_function(f"{state}.status.running === false")
    page.keyboard.press("Space")
    page.wait_for_function(f"{state}.status.running === true")
    page.keyboard.press("Space")
    page.wait_for_function(f"{state}.status.running === false")
    page.keyboard.press("Space")
    page.wait_for_function(f"{state}.status.running === true")
    # push north with the arrow key: the CG starts moving north
    page.keyboard.down("ArrowUp")
    page.wait_for_function(f"{state}.bodies[0].CGVel[0] > 0.5", timeout=WAIT_MS)
    page.keyboard.up("ArrowUp")
    # grab the next marked point (G) and pull its target east with the arrow key; Esc lets go
    page.keyboard.press("g")
    page.wait_for_function("__sixdof.drag !== null")
    east0 = page.evaluate("__sixdof.drag.target[1]")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("__sixdof.drag.target[1]") > east0
    assert page.evaluate("__sixdof.drag.spring !== null")
    page.wait_for_function(f"{state}.bodies[0].CGVel[1] > 0.05", timeout=WAIT_MS)  # pulled east
    page.keyboard.press("Escape")
    page.wait_for_function("__sixdof.drag === null")
    # scrub the timeline back to its start (Home on the slider), then resume from there
    tab_to(page, "el.type === 'range' && !!el.closest('#timeline')")
    page.keyboard.press("Home")
    page.wait_for_function("__sixdof.timeline.past")
    shown = page.evaluate("__sixdof.timeline.frame.t")
    tab_to(page, "el.dataset.act === 'resume'")
    page.keyboard.press("Enter")
    page.wait_for_function("!__sixdof.timeline.past && __sixdof.sent.includes('go_back')")
    page.wait_for_function(f"{state}.t < {shown} + 2")  # the room went back there
    assert page.evaluate("window.__pointer") == 0
    assert run.errors == []
    run.close()
