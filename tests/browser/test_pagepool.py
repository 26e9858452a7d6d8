"""The worker's pool of open pages (support/pagepool.py, issue 38): a page given back is handed
out again, and the next test sees nothing of the one before: a fresh document, its own error
list and viewport, no key or mouse button still held in Playwright; a page that may carry
something (an init script, a test that failed while it was out) is closed, not pooled."""

from __future__ import annotations

from playwright.sync_api import Browser
from support import pagepool
from support.pagekit import Served, open_page, page_pool

SEEN = """() => {
  window.__seen = [];
  const note = (e) => __seen.push([e.type, e.shiftKey, e.buttons ?? null, e.repeat ?? null]);
  for (const type of ['mousemove', 'mousedown', 'keydown']) addEventListener(type, note, true);
}"""


def test_a_page_given_back_is_reused_and_fresh(browser: Browser, server: Served) -> None:
    first = open_page(browser, server.url, width=800, height=600)
    page = first.page
    page.evaluate("window.__left = 1; console.error('left behind')")
    page.locator("#scene").focus()
    page.keyboard.down("Shift")
    page.keyboard.down("ArrowUp")
    page.mouse.move(300, 300)
    page.mouse.down()
    first.close()
    assert first.errors == ["left behind"]

    made = page_pool(browser).made
    second = open_page(browser, server.url)
    assert second.page is page  # the same open page, not a new context
    assert page_pool(browser).made == made
    assert second.room != first.room and f"room={second.room}" in page.url
    assert second.errors == []
    assert page.evaluate("typeof window.__left") == "undefined"  # a new document
    assert page.evaluate("[innerWidth, innerHeight]") == [1280, 720]
    page.evaluate(SEEN)
    page.mouse.move(310, 310)
    page.locator("#scene").focus()
    page.keyboard.down("ArrowUp")  # a repeat if the first test's ArrowUp were still down
    page.keyboard.up("ArrowUp")
    page.mouse.down()
    page.mouse.up()
    assert page.evaluate("__seen") == [
        ["mousemove", False, 0, None],  # no Shift, no button held
        ["keydown", False, None, False],
        ["mousedown", False, 1, None],
    ]
    assert second.errors == []
    second.close()


def test_a_page_that_may_carry_something_is_closed(browser: Browser, server: Served) -> None:
    scripted = open_page(browser, server.url, init_script="window.__mine = 1")
    assert scripted.page.evaluate("window.__mine") == 1
    scripted.close()
    assert scripted.page.is_closed()  # its init script would run in every later document

    failed = open_page(browser, server.url)
    pagepool.note_failure()  # as the hook of conftest.py counts a test that failed
    failed.close()
    assert failed.page.is_closed()  # a failed test may have left a drag or a key held

    clean = open_page(browser, server.url)
    assert clean.page not in (scripted.page, failed.page)
    clean.close()
    assert not clean.page.is_closed()
