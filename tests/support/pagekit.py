"""Helpers of the browser tests: Debian's headless Chromium, page helpers and a small PNG
reader (the server is support/serving.py's `Served`).

Chromium comes from the system (/usr/bin/chromium, `make browser`); Playwright never downloads
a browser here. The page must have been built (`make setup` runs `npm ci && npm run build` in
frontend/). Each test uses its own room, so tests do not see each other's bodies, and a page
from the worker's pool (support/pagepool.py): a fresh document in an open page.
"""

from __future__ import annotations

import os
import struct
import time
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from support import pagepool
from support.paths import REPO
from support.serving import Served, free_port

__all__ = ["REPO", "Served", "free_port", "page_server"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    *os.environ.get("SIXDOF_CHROMIUM_EXTRA", "").split(),
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Playwright's waits, ms: a bound on failure, not a figure (how long things take is the timing
#: tier's); generous, so that a machine loaded by other work is slower but not red.
WAIT_MS = 60_000
#: The pages of the tests draw at most 5 frames a second (`?fps=`): software-rendered WebGL at
#: 60 took 1.3 cores a page, and two pages at once starved everything else on two cores; a
#: running page costs 0.25 of a core at 5 (with its room's server), 0.38 at 10, and the
#: browser tier alone took 336 s against 374 s at 10 (docs/testing.md).
TEST_FPS = int(os.environ.get("SIXDOF_TEST_FPS", "5"))
SHOTS = Path(os.environ.get("SIXDOF_SHOTS", "/tmp/shots"))
#: The browser tests' servers give their one address (every test of a worker comes from
#: 127.0.0.1, all sharing one budget) a larger work budget than a classroom's client gets. It
#: came when a budget was charged a handling's wall time, which a loaded machine stretched (a
#: run beside two busy loops: the lesson editor's refused upload took the address's whole
#: burst, its next upload got 429); budgets are charged CPU since (server/pools.py's Meter).
#: The budgets themselves are tested on default limits by the live tier (tests/live/adversarial).
PAGE_SERVER_LIMITS = ("--limit", "work_rate=2", "--limit", "work_burst=10")


def page_server(*args: str, **kwargs: Any) -> Served:
    """`Served` with the browser tests' work budget (PAGE_SERVER_LIMITS)."""
    return Served(*PAGE_SERVER_LIMITS, *args, **kwargs)


@contextmanager
def launch_chromium() -> Iterator[Browser]:
    """Debian's headless Chromium (the `browser` fixture of tests/conftest.py)."""
    require_page()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        pagepool.close_pool(b)
        b.close()


def require_page() -> None:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("frontend/dist is missing: run `make setup` (npm ci && npm run build)")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: run `make browser`")


@dataclass
class PageRun:
    """A page with its console errors collected."""

    page: Page
    errors: list[str]
    room: str
    pool: pagepool.PagePool
    #: the worker's failed tests when the page was handed out
    failures: int = 0
    #: changed beyond what a new document undoes (an init script): never pooled again
    tainted: bool = False

    def close(self) -> None:
        """Done with the page: back to the worker's pool if no test failed while it was out
        (a failed test may have left keys held, a dialog open, a half-done drag) and it is not
        tainted, else its context closed. A test that changes the page beyond what a new
        document undoes (routes, a CDP session, dialogs, permissions, listeners of its own)
        closes its context itself, or calls `taint()` first."""
        if self.tainted or self.page.is_closed() or pagepool.failures() != self.failures:
            self.pool.discard(self.page)
        else:
            self.pool.give_back(self.page)

    def taint(self) -> None:
        self.tainted = True


def open_page(browser: Browser, base: str, *, width: int = 1280, height: int = 720,
              room: str | None = None, touch: bool = False, locale: str | None = None,
              query: str = "", init_script: str | None = None) -> PageRun:  # fmt: skip
    """Open the page on a new room, in an open page of the worker's pool (a new context if
    none is idle), and wait for its first state frame. `PageRun.close()` gives it back.

    touch: a phone or tablet (touch events, a coarse pointer, mobile viewport); locale: the
    browser's language; query: more of the URL's query (`&lang=de`); init_script: run before
    the page's own scripts (the page is closed, not pooled, when the test is done)."""
    room = room or f"t{uuid.uuid4().hex[:10]}"
    pool = page_pool(browser)
    page, errors = pool.take(pagepool.Kind(touch, locale), width, height)
    run = PageRun(page, errors, room, pool, pagepool.failures())
    if init_script is not None:
        run.taint()
        page.add_init_script(init_script)
    page.goto(f"{base}/?room={room}&fps={TEST_FPS}{query}")
    wait_connected(page)
    return run


def page_pool(browser: Browser) -> pagepool.PagePool:
    """The worker's open pages of `browser` (closed with it, by `launch_chromium`)."""
    return pagepool.pool_of(browser, WAIT_MS)


def wait_connected(page: Page, timeout: float = WAIT_MS) -> None:
    """Wait until the page has its room's hello, a state frame, its body's mesh and its view
    placed: a camera moved before the view is placed (a frame after the hello drawn) is put
    back by it, late on a loaded machine."""
    page.wait_for_function(
        "() => window.__sixdof && __sixdof.connected && __sixdof.hello && __sixdof.lastState"
        " && __sixdof.bodyBox() && __sixdof.bodyBox().loaded && __sixdof.pendingView === null",
        timeout=timeout,
    )


def body(page: Page) -> dict:
    """The first body of the newest state frame."""
    return page.evaluate("__sixdof.lastState.bodies[0]")


def wait_sim(page: Page, seconds: float, timeout: float = WAIT_MS) -> dict:
    """Wait until the simulation has run `seconds` of simulated time; the newest state."""
    t0 = page.evaluate("__sixdof.lastState.t")
    page.wait_for_function("(t) => __sixdof.lastState.t >= t", arg=t0 + seconds, timeout=timeout)
    return page.evaluate("__sixdof.lastState")


def wait_drawn(page: Page, timeout: float = WAIT_MS) -> None:
    """Wait until the view shows the newest state: a pose at least that recent is drawn, and
    another frame after it (interpolation lags a frame or two behind the newest state)."""
    t = page.evaluate("__sixdof.lastState.t")
    page.wait_for_function("(t) => __sixdof.drawnT >= t - 1e-9", arg=t, timeout=timeout)
    wait_frames(page, 2)


def steady_point(page: Page, selector: str, fx: float = 0.0, fy: float = 0.0,
                 timeout: float = WAIT_MS) -> tuple[float, float]:  # fmt: skip
    """A point on `selector` for a touch or a click at coordinates, once the element stands
    still: its box the same at two animation frames in a row, and the element (or one of its
    children) the one hit there. fx, fy: from its centre, in halves of its width and height
    (+1 the right or bottom edge). A banner or caption that comes or goes moves what is placed
    around it (the push pad sits above the cards): a box read before such a change sends the
    finger to whatever is there after it, as Playwright's own click would not (it waits for a
    stable box and checks what receives it)."""
    point = page.wait_for_function(
        """([sel, fx, fy]) => {
          const el = document.querySelector(sel);
          if (!el) return null;
          const r = el.getBoundingClientRect();
          const key = `${r.x},${r.y},${r.width},${r.height}`;
          const seen = (window.__steadyBoxes ??= {});
          const same = seen[sel] === key;
          seen[sel] = key;
          if (!same || r.width === 0 || r.height === 0) return null;
          const x = r.left + (r.width * (1 + fx)) / 2, y = r.top + (r.height * (1 + fy)) / 2;
          const hit = document.elementFromPoint(x, y);
          return hit && el.contains(hit) ? [x, y] : null;
        }""",
        arg=[selector, fx, fy],
        polling="raf",
        timeout=timeout,
    ).json_value()
    return float(point[0]), float(point[1])


def steady_screen(page: Page, where: str = "__sixdof.bodyScreenPosition()",
                  timeout: float = WAIT_MS) -> tuple[float, float, str]:  # fmt: skip
    """The screen point `where` (a page expression answering {x, y} or null) once it is the same
    at two animation frames in a row (to half a pixel), with the id (or tag) of what is hit
    there: a card that comes or goes moves the picture's centre with it (panel/insets.js), so a
    point read before it lands the pointer beside the body."""
    got = page.wait_for_function(
        """(where) => {
          const p = (0, eval)(where);
          if (!p) return null;
          const key = `${Math.round(p.x * 2)},${Math.round(p.y * 2)}`;
          const seen = (window.__steadyPoints ??= {});
          const same = seen[where] === key;
          seen[where] = key;
          if (!same) return null;
          const hit = document.elementFromPoint(p.x, p.y);
          return [p.x, p.y, hit ? hit.id || hit.tagName : ''];
        }""",
        arg=where,
        polling="raf",
        timeout=timeout,
    ).json_value()
    return float(got[0]), float(got[1]), str(got[2])


def wait_frames(page: Page, n: int, timeout: float = WAIT_MS) -> None:
    """Wait until the page's render loop has run `n` more times (layout and drawing settled):
    each run draws the view if anything changed since the frame drawn last, and only then
    (`__sixdof.rendered` counts those), so a paused page still answers."""
    k = page.evaluate("__sixdof.ticks")
    page.wait_for_function("(k) => __sixdof.ticks >= k", arg=k + n, timeout=timeout)


def wait_shown(page: Page, timeout: float = WAIT_MS) -> None:
    """Wait until the page's texts (HUD, timeline, pause button) show the newest state frame:
    the page writes them once per run of its render loop, with the newest, not for every
    frame received (issue 38), so a run after now has shown it."""
    wait_frames(page, 1, timeout)


def wait_still(page: Page, ned: list[float], timeout: float = WAIT_MS) -> dict:
    """Wait until the NED point `ned` stays on the same pixel over a rendered frame (the camera
    has stopped easing: at the tests' frame rate that takes longer than a frame or two);
    its screen position."""
    deadline = time.monotonic() + timeout / 1000
    at = page.evaluate("(p) => __sixdof.nedScreenPosition(p)", ned)
    while True:
        wait_frames(page, 1)
        now = page.evaluate("(p) => __sixdof.nedScreenPosition(p)", ned)
        if abs(now["x"] - at["x"]) < 0.5 and abs(now["y"] - at["y"]) < 0.5:
            return now
        assert time.monotonic() < deadline, f"the view never settled: {at} -> {now}"
        at = now


def wait_plot_redraw(page: Page, timeout: float = WAIT_MS) -> None:
    """Wait until the plots have redrawn after now."""
    k = page.evaluate("__sixdof.plotDraws")
    page.wait_for_function("(k) => __sixdof.plotDraws > k", arg=k, timeout=timeout)


def load_preset(page: Page, name: str) -> None:
    """Choose a preset in the panel, as a user would, and wait for its scenario to arrive and
    its view to be applied (camera, follow, plots: a test that turns follow off before then
    has it turned on again by the preset's view, late on a loaded machine)."""
    select = page.get_by_label("Preset", exact=True)
    opened = not select.is_visible()
    if opened:  # a phone: the panel is a collapsed bottom sheet
        page.click("#sheet-handle")
        select.wait_for(state="visible")
    title = page.evaluate(
        "(n) => __sixdof.hello.presets.find((p) => p.name === n).title || n", name
    )
    before = page.evaluate("__sixdof.helloCount")
    select.select_option(index=0)  # choosing the preset shown already would change nothing
    select.select_option(label=title)
    page.wait_for_function(
        "([n, before]) => __sixdof.hello.scenario.name === n && __sixdof.helloCount > before"
        " && __sixdof.lastState.gen === __sixdof.helloCount && __sixdof.bodyBox().loaded"
        " && __sixdof.pendingView === null",
        arg=[name, before],
        timeout=WAIT_MS,
    )
    if opened:  # as the user left it
        page.click("#sheet-handle")
    show_me(page)


def distant_view(page: Page) -> None:
    """The camera as it was before presets were framed (issue 45): from the default direction,
    six sizes of the selected body away from its CG. Tests that compare pixels near the body
    were made for it (framed, the body fills their regions, hiding what is drawn inside)."""
    page.evaluate(
        """() => { const s = __sixdof.stage; const b = __sixdof.hello.scenario.bodies[0];
        const p = __sixdof.lastState.bodies[0].CGPos;
        const size = (b.MeshScale ?? [1, 1, 1])
          .map((m, i) => Math.abs(m * (b.Size ?? [1, 1, 1])[i]));
        s.resetView(s.camera.position.clone().set(p[0], p[1], p[2]), Math.max(0.05, ...size)); }"""
    )
    wait_drawn(page)


def show_me(page: Page) -> None:
    """A preset that asks a question loads paused: press "Show me", as the lecturer would
    after the class has answered, and wait until it runs."""
    if page.locator("#btn-showme").is_visible():
        page.click("#btn-showme")
        page.wait_for_function("__sixdof.lastState && __sixdof.lastState.status.running")


def decode_png(data: bytes) -> np.ndarray:
    """8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) as an (H, W, C) uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunk = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and interlace == 0 and ctype in (2, 6)
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), np.int32)
    prev = np.zeros(width * channels, np.int32)
    c = channels
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:  # 1 (sub), 3 (average), 4 (Paeth) depend on the pixel to the left: go serially
            cur = np.zeros_like(line)
            for i in range(len(line)):
                a = cur[i - c] if i >= c else 0
                b = prev[i]
                if f == 1:
                    pred = a
                elif f == 3:
                    pred = (a + b) // 2
                else:
                    cc = prev[i - c] if i >= c else 0
                    p = a + b - cc
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                cur[i] = (line[i] + pred) & 255
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)


def grab(page: Page, x: float, y: float, half: int = 12) -> np.ndarray:
    """The screen pixels (RGB) in a square of side 2·half around page point (x, y)."""
    png = page.screenshot(
        clip={"x": max(0, x - half), "y": max(0, y - half), "width": 2 * half, "height": 2 * half}
    )
    return decode_png(png)


def open_folder(page: Page, selector: str) -> None:
    """Open the panel's lil-gui folder `selector` (as a click on its title), if it is closed."""
    folder = page.locator(selector)
    if folder.evaluate("(el) => el.classList.contains('lil-closed')"):
        folder.locator(":scope > .lil-title").click()
