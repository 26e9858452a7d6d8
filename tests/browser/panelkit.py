"""Helpers of the panel's tests (the Elements and Water folders): a page on a room whose
scenario was PUT first, the state frames its websocket receives recorded as they arrive, and
a field of a folder typed into as a user does (fill, then Enter)."""

from __future__ import annotations

import uuid

from playwright.sync_api import Browser, Page
from support.pagekit import PageRun, Served, open_folder, open_page

# The page's websocket, watched: (t, AngVel x, roll angle) of every state frame it receives,
# as it arrives (a timer reading `lastState` misses frames while the page is busy drawing).
RECORDER = """
window.__frames = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (ev) => {
      const s = typeof ev.data === 'string' ? JSON.parse(ev.data) : null;
      if (!s || s.type !== 'state') return;
      const b = s.bodies[0];
      window.__frames.push([s.t, b.AngVel[0], 2 * Math.atan2(b.Quater[1], b.Quater[0])]);
    });
  }
};
"""


def opened(browser: Browser, server: Served, scenario: dict, **size: int) -> PageRun:
    """A page on a new room that has `scenario` (PUT first: the answer waits until the room's
    physics is ready, which a cold server takes a while for)."""
    room = f"el{uuid.uuid4().hex[:10]}"
    server.put_scenario(room, scenario)
    run = open_page(browser, server.url, room=room, init_script=RECORDER, **size)
    run.page.wait_for_function("__sixdof.lastState.elements && __sixdof.elements().length")
    return run


def record(page: Page, seconds: float) -> list[tuple[float, float, float]]:
    """(t, AngVel x, roll angle) of every state frame the page receives for the next
    `seconds` of simulated time (RECORDER keeps them as they arrive)."""
    t0 = page.evaluate("__sixdof.lastState.t")
    page.wait_for_function(
        "(t) => window.__frames.length && window.__frames[window.__frames.length - 1][0] >= t",
        arg=t0 + seconds,
        timeout=(seconds + 20) * 1000,
    )
    rows = page.evaluate("(t) => window.__frames.filter((r) => r[0] > t)", t0)
    return [(float(t), float(w), float(a)) for t, w, a in rows]


def open_elements(page: Page) -> None:
    open_folder(page, ".sixdof-elements")


def open_water(page: Page) -> None:
    open_folder(page, ".sixdof-water")


def type_into(page: Page, scope: str, label: str, text: str) -> None:
    field = page.locator(scope).get_by_label(label, exact=True)
    field.fill(text)
    field.press("Enter")
