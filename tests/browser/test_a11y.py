"""Accessibility (issue 29): axe-core's WCAG 2.0/2.1/2.2 A and AA rules on the desktop, phone
and projector layouts in each language: no violation of serious or critical impact; every
visible text at 4.5:1 (3:1 when large) also over the 3-D view, which axe cannot judge; and
the same with the help and the described summary open, and in the high-contrast theme."""

from __future__ import annotations

import pytest
from a11ykit import LANGS, LAYOUTS, low_contrast, open_in, serious
from playwright.sync_api import Browser
from support.pagekit import Served


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("lang", LANGS)
def test_no_serious_violations(browser: Browser, server: Served, lang: str, layout: str) -> None:
    run = open_in(browser, server.url, lang, layout)
    page = run.page
    assert page.evaluate("document.documentElement.lang") == lang
    assert serious(page) == []
    assert low_contrast(page) == []
    assert run.errors == []
    run.close()


@pytest.mark.parametrize("theme", ["", "high"])
@pytest.mark.parametrize("lang", LANGS)
def test_dialogs_and_high_contrast(browser: Browser, server: Served, lang: str, theme: str) -> None:
    run = open_in(browser, server.url, lang, query=f"&contrast={theme}")
    page = run.page
    assert page.evaluate("document.body.classList.contains('high-contrast')") == (theme == "high")
    page.focus("#scene")
    page.keyboard.press("h")
    page.wait_for_selector("#help:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "help"  # a screen reader reads it
    assert serious(page) == [] and low_contrast(page) == []
    page.keyboard.press("Escape")
    page.keyboard.press("x")
    page.wait_for_selector("#summary:not([hidden])")
    assert page.locator("#summary p").count() >= 4  # scenario, body, forces, state, …
    assert serious(page) == [] and low_contrast(page) == []
    assert run.errors == []
    run.close()
