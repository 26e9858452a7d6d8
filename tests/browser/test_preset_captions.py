"""A preset's caption on the page is its catalogue message formatted with the numbers the
server computed from the preset's file: in English exactly the server's own text (the page's
intl-messageformat and sixdof.scenario.presets.icu read every message alike), in German and
Bokmål the same numbers with a decimal comma."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from a11ykit import LANGS, open_in
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served

from sixdof.scenario.presets.icu import number

LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"
CATALOGUES = {x: json.loads((LOCALES / f"{x}.json").read_text()) for x in LANGS}
ARGUMENT = re.compile(r"\{\s*(\w+)\s*(?:,\s*number\s*(?:,\s*::([\w.\- ]+))?)?\s*\}")
#: presets whose numbers a translation once typed by hand (digits, a "dreimal", a "tre")
LOCAL = ["compound_pendulum", "two_masses_spring", "heeled_ship"]


def in_language(message: str, values: dict[str, float | str]) -> str:
    """`message` as German or Bokmål write it for these values (decimal comma; none of them
    is negative or grouped)."""

    def fill(m: re.Match[str]) -> str:
        value = values[m.group(1)]
        if isinstance(value, str):
            return value
        return number(value, m.group(2) or "").replace(".", ",")

    return ARGUMENT.sub(fill, message)


def caption_of(page: Page, name: str) -> str:
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("(n) => __sixdof.send({type: 'load_scenario', preset: n})", name)
    page.wait_for_function(
        "([n, before]) => __sixdof.hello.scenario.name === n && __sixdof.helloCount > before",
        arg=[name, before],
        timeout=WAIT_MS,
    )
    return page.evaluate("document.querySelector('#caption .caption-text').textContent")


@pytest.mark.parametrize("lang", LANGS)
def test_preset_captions_quote_the_servers_numbers(
    browser: Browser, server: Served, lang: str
) -> None:
    run = open_in(browser, server.url, lang)
    page = run.page
    presets = {p["name"]: p for p in page.evaluate("__sixdof.hello.presets")}
    for name in presets if lang == "en" else LOCAL:
        shown = caption_of(page, name)
        if lang == "en":
            assert shown == presets[name]["caption"], name
        else:
            message = CATALOGUES[lang][f"preset.{name}.caption"]
            assert shown == in_language(message, presets[name]["values"]), name
    assert run.errors == []
    run.close()
