"""A preset's caption on the page is its catalogue message formatted with the numbers the
server computed from the preset's file: in English exactly the server's own text (the page's
intl-messageformat and sixdof.scenario.presets.icu read every message alike), in German and
Bokmål the same numbers with a decimal comma. The English of every preset is read on the laptop
sweep's one visit of each (presetsweep.py); German and Bokmål load the presets whose numbers
they quote."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from a11ykit import LANGS, open_in
from playwright.sync_api import Browser, Page
from presetsweep import LOADED, Sweep, in_sweep, probe
from support.pagekit import WAIT_MS, Served

from sixdof.scenario.presets import ORDER
from sixdof.scenario.presets.icu import number

LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"
CATALOGUES = {x: json.loads((LOCALES / f"{x}.json").read_text()) for x in LANGS}
ARGUMENT = re.compile(r"\{\s*(\w+)\s*(?:,\s*number\s*(?:,\s*::([\w.\- ]+))?)?\s*\}")
#: presets whose numbers a translation once typed by hand (digits, a "dreimal", a "tre"), and
#: the line presets (issue 44), whose captions quote many
LOCAL = ["compound_pendulum", "two_masses_spring", "heeled_ship", "moored_buoy", "crane_lowering"]


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


@probe("caption", ("laptop",), LOADED)
def caption(page: Page, name: str) -> dict:
    """The caption shown, and the server's English for it in the hello."""
    return {
        "shown": page.evaluate("document.querySelector('#caption .caption-text').textContent"),
        "server": page.evaluate(
            "(n) => __sixdof.hello.presets.find((p) => p.name === n).caption", name
        ),
        "presets": page.evaluate("__sixdof.hello.presets.map((p) => p.name)"),
    }


@in_sweep("laptop")
def test_english_captions_are_the_servers_own(preset_sweep: Callable[[str], Sweep]) -> None:
    """Every preset's, read on the laptop sweep (its page asks for English, `&lang=en`)."""
    sweep = preset_sweep("laptop")
    assert sorted(sweep.get(ORDER[0], "caption")["presets"]) == sorted(ORDER)  # every one offered
    for name in ORDER:
        got = sweep.get(name, "caption")
        assert got["shown"] == got["server"], name
    assert sweep.errors == {}


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_preset_captions_quote_the_servers_numbers(
    browser: Browser, server: Served, lang: str
) -> None:
    run = open_in(browser, server.url, lang)
    page = run.page
    presets = {p["name"]: p for p in page.evaluate("__sixdof.hello.presets")}
    for name in LOCAL:
        shown = caption_of(page, name)
        message = CATALOGUES[lang][f"preset.{name}.caption"]
        assert shown == in_language(message, presets[name]["values"]), name
    assert run.errors == []
    run.close()
