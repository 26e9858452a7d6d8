"""Helpers of the lecturer's view's tests (frontend/src/class/): a student's page as the server
sees it (a watcher reading every hello), the class view opened, and a wait for hellos."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served
from websockets.sync.client import connect


class Viewer:
    """A student's page, as far as the server sees it: a watcher reading every message."""

    def __init__(self, stack: ExitStack, server: Served, room: str) -> None:
        self.ws = stack.enter_context(connect(f"{server.ws_url}?room={room}", max_size=None))
        self.hellos: list[dict[str, Any]] = []
        self.ended: Exception | None = None  # why reading stopped
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                msg = json.loads(text)
                if msg["type"] == "hello":
                    self.hellos.append(msg)
        except Exception as exc:  # closed at the end of the test
            self.ended = exc


@contextmanager
def class_page(browser: Browser, server: Served, query: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.url}/class/?{query}")
    try:
        yield page
        assert not errors, errors
    finally:
        context.close()


def hellos(page: Page, viewers: list[Viewer], wanted: Any) -> None:
    """Wait until every viewer got a hello that is `wanted` (read by their own threads; the
    page is waited on meanwhile, so its polling goes on)."""
    for viewer in viewers:
        for _ in range(WAIT_MS // 50):
            if any(wanted(h) for h in viewer.hellos):
                break
            page.wait_for_timeout(50)
        assert any(wanted(h) for h in viewer.hellos), (viewer.hellos[-1:], viewer.ended)
