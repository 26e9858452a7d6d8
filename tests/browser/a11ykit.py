"""Helpers of the accessibility and language tests (issue 29): the page opened in a language
and a layout, and axe-core (frontend/node_modules, from the lockfile) run on it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page
from support.pagekit import REPO, PageRun, open_page

AXE = REPO / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text()
LANGS = ("en", "de", "nb")
#: width, height, touch, projector mode
LAYOUTS: dict[str, tuple[int, int, bool, bool]] = {
    "desktop": (1280, 720, False, False),
    "phone": (390, 844, True, False),
    "projector": (1280, 720, False, True),
}
#: the rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@dataclass
class Violation:
    rule: str
    impact: str
    help: str
    targets: list[str]


def open_in(browser: Browser, base: str, lang: str, layout: str = "desktop", query: str = "",
            locale: str | None = None) -> PageRun:  # fmt: skip
    """The page on a new room in `lang` (None: no ?lang=, the browser's `locale` decides)."""
    width, height, touch, projector = LAYOUTS[layout]
    lang_q = f"&lang={lang}" if lang else ""
    run = open_page(browser, base, width=width, height=height, touch=touch, locale=locale,
                    room=f"a{uuid.uuid4().hex[:10]}", query=f"{lang_q}{query}")  # fmt: skip
    page = run.page
    if projector:
        page.keyboard.press("p")
        page.wait_for_function("document.body.classList.contains('projector')")
    return run


def axe(page: Page) -> list[Violation]:
    """axe-core's WCAG 2.x A and AA violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    script = "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
    result = page.evaluate(script, WCAG_TAGS)
    return [
        Violation(
            v["id"], v["impact"] or "", v["help"], [", ".join(n["target"]) for n in v["nodes"]]
        )
        for v in result["violations"]
    ]


def serious(page: Page) -> list[str]:
    return [f"{v.rule} ({v.impact}): {v.help} at {v.targets[:4]}" for v in axe(page)
            if v.impact in ("serious", "critical")]  # fmt: skip


def low_contrast(page: Page) -> list[dict]:
    """Texts below 4.5:1, or below 3:1 when large (24 px, or 18.66 px bold)."""
    texts = page.evaluate(CONTRAST_JS)
    large = lambda r: r["size"] >= 24 or (r["bold"] and r["size"] >= 18.66)  # noqa: E731
    return [r for r in texts if r["ratio"] < (3.0 if large(r) else 4.5)]
