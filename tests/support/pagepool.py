"""Open pages kept between the browser tests of one worker (issue 38).

A new browser context, page and first load cost ~1.8 core-seconds; loading a new room in a
page that is already open costs ~0.65 (its renderer, V8's code cache of the bundle and the
GPU process's SwiftShader context are reused). The page keeps nothing across loads (no
cookies, localStorage, sessionStorage or IndexedDB), so a fresh document on a new room is a
fresh page to a test. What Playwright itself keeps per page is reset when a page comes back:
keys and mouse buttons held down are released and the mouse goes back to (0, 0).

A page comes back only from a test that passed; a test that changed its page beyond what a
new document undoes (init scripts, routes, CDP sessions, dialogs, permissions, listeners of
its own) closes the page's context itself, and a closed page is never handed out again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Error, Page

#: what Playwright remembers as held down until released: the modifiers change every later
#: mouse event and keyboard shortcut, a held key makes its next press a repeat
HELD_KEYS = ("Shift", "Control", "Alt", "Meta", "ArrowUp", "ArrowDown", "ArrowLeft",
             "ArrowRight", "Space")  # fmt: skip


@dataclass(frozen=True)
class Kind:
    """What only a context of its own can change: a touch screen (touch events, a mobile
    viewport, two device pixels per CSS pixel) and the browser's language."""

    touch: bool = False
    locale: str | None = None

    def context_options(self) -> dict:
        extra: dict = {"locale": self.locale} if self.locale else {}
        if self.touch:
            extra |= {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}
        return extra


@dataclass
class Slot:
    """One pooled page: its console errors go to the list of the run that holds it."""

    kind: Kind
    page: Page
    errors: list[str] | None = None

    def listen(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", self._pageerror)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and self.errors is not None:
            self.errors.append(message.text)

    def _pageerror(self, error: Error) -> None:
        if self.errors is not None:
            self.errors.append(str(error))


@dataclass
class PagePool:
    """The idle pages of one browser, by kind."""

    browser: Browser
    timeout_ms: float
    idle: dict[Kind, list[Slot]] = field(default_factory=dict)
    busy: dict[Page, Slot] = field(default_factory=dict)
    #: pages handed out, and pages made (a new context each): test_pagepool.py reads them
    taken: int = 0
    made: int = 0

    def take(self, kind: Kind, width: int, height: int) -> tuple[Page, list[str]]:
        """An open page of `kind` at about:blank with a viewport of width × height, and the
        list its console errors go to from now on."""
        slots = self.idle.setdefault(kind, [])
        while slots and slots[-1].page.is_closed():
            slots.pop()
        if slots:
            slot = slots.pop()
        else:
            context: BrowserContext = self.browser.new_context(**kind.context_options())
            context.set_default_timeout(self.timeout_ms)
            slot = Slot(kind, context.new_page())
            slot.listen()
            self.made += 1
        slot.page.set_viewport_size({"width": width, "height": height})
        slot.errors = []
        self.busy[slot.page] = slot
        self.taken += 1
        return slot.page, slot.errors

    def give_back(self, page: Page) -> None:
        """The page's test is done with it: unload its document (its websocket closes, so
        its room can expire), release what Playwright holds down, and keep it for the next."""
        slot = self.busy.pop(page)
        if page.is_closed():
            return
        page.goto("about:blank")
        slot.errors = None
        for key in HELD_KEYS:
            page.keyboard.up(key)
        for button in ("left", "middle", "right"):
            page.mouse.up(button=button)  # type: ignore[arg-type]
        page.mouse.move(0, 0)
        self.idle.setdefault(slot.kind, []).append(slot)

    def discard(self, page: Page) -> None:
        """Close the page's context: its test failed, or left it in a state a new document
        does not undo."""
        self.busy.pop(page, None)
        if not page.is_closed():
            page.context.close()

    def close(self) -> None:
        for page in list(self.busy):
            self.discard(page)
        for slots in self.idle.values():
            for slot in slots:
                if not slot.page.is_closed():
                    slot.page.context.close()
        self.idle.clear()


_POOLS: dict[Browser, PagePool] = {}
#: tests that failed in this worker so far: a page open while one failed is not pooled
_FAILED = [0]


def pool_of(browser: Browser, timeout_ms: float) -> PagePool:
    if browser not in _POOLS:
        _POOLS[browser] = PagePool(browser, timeout_ms)
    return _POOLS[browser]


def close_pool(browser: Browser) -> PagePool | None:
    pool = _POOLS.pop(browser, None)
    if pool is not None:
        pool.close()
    return pool


def note_failure() -> None:
    _FAILED[0] += 1


def failures() -> int:
    return _FAILED[0]


def busy_pages() -> set[Page]:
    """Every page handed out and not yet given back, in every pool of this worker."""
    return {page for pool in _POOLS.values() for page in pool.busy}


def discard(page: Page) -> None:
    for pool in _POOLS.values():
        if page in pool.busy:
            pool.discard(page)
