"""Languages (issue 29): one message catalogue per language (frontend/src/locales), every key
in every language with the same placeholders; every key the page's code and HTML name exists;
?lang=de and ?lang=nb set <html lang> and leave no English word in the page's own texts
(visible text, titles and labels); the browser's language chooses when ?lang= does not; the
server's refusals appear in the page's language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from a11ykit import LANGS, open_in
from playwright.sync_api import Browser, Page
from support.pagekit import Served

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
CATALOGUES = {x: json.loads((FRONTEND / f"src/locales/{x}.json").read_text()) for x in LANGS}
#: a word of letters alone: not the letters inside a token such as a room's random name
#: ("ab882add6f8" held "add", an English word of the catalogue)
WORD = re.compile(r"(?<![0-9A-Za-zÀ-ÿ])[A-Za-zÀ-ÿ]{3,}(?![0-9A-Za-zÀ-ÿ])")
#: words that are the same in every language: names, symbols, FhSim's field names, units
NEUTRAL = {
    "sixdof", "FhSim", "NED", "Pos", "Vel", "AngVel", "CGOffset", "InertiaRadi", "Quater",
    "Mass", "Gravity", "Inertia", "MeshScale", "Size", "MeshOrigin", "Mesh", "Material",
    "CSV", "PNG", "WebM", "RTF", "fps", "full", "fhsim", "euler", "rk4", "Poinsot", "Newton",
    "Euler", "Coriolis", "Dzhanibekov", "Simple", "Black", "rad", "Pad", "Live", "live",
    "Scenario", "Modell", "Model", "Integrator", "geometric", "exact", "Moment", "Simulation",
    "Version",
    "Link", "Enter", "Shift", "Tab", "Esc", "Home", "End", "Space", "Backspace", "total",
}  # fmt: skip

TEXTS_JS = """() => {
  const out = [];
  // not the page's words: names of files (translate=no), each language's own name (lang=…)
  const skip = '[hidden], .sr-only, script, style, [translate=no], [lang]:not(html)';
  const visible = (el) => {
    if (!el || el.closest(skip)) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent.trim();
    if (t && visible(n.parentElement)) out.push([t, n.parentElement.closest('[id]')?.id ?? '']);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!visible(el) && el.id !== 'scene') continue;
    for (const a of ['title', 'aria-label', 'placeholder']) {
      const t = el.getAttribute(a);
      if (t) out.push([t, el.closest('[id]')?.id ?? '']);
    }
  }
  for (const o of document.querySelectorAll('select option')) {
    if (!o.closest('[translate=no]') && !o.lang) out.push([o.textContent.trim(), 'option']);
  }
  out.push([document.title, 'title']);
  return out;
}"""


def words_of(texts: list[str]) -> set[str]:
    return {w.lower() for t in texts for w in WORD.findall(t)}


def placeholders(message: str) -> set[str]:
    """The ICU arguments at the top level ({n}, {n, plural, …}), not the branches' texts."""
    found, depth = set(), 0
    for i, ch in enumerate(message):
        if ch == "{":
            if depth == 0:
                found.add(re.match(r"\s*(\w+)", message[i + 1 :]).group(1))
            depth += 1
        elif ch == "}":
            depth -= 1
    return found


def test_every_key_in_every_language() -> None:
    en = CATALOGUES["en"]
    for lang, cat in CATALOGUES.items():
        assert set(cat) == set(en), (
            f"{lang}: missing {set(en) - set(cat)}, extra {set(cat) - set(en)}"
        )
        for key, message in cat.items():
            assert placeholders(message) == placeholders(en[key]), f"{lang} {key}: {message!r}"
            assert message.strip(), f"{lang} {key} is empty"


def test_every_key_the_page_names_exists() -> None:
    html = (FRONTEND / "index.html").read_text()
    keys = set(re.findall(r'data-i18n="([^"]+)"', html))
    for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html):
        keys |= {p.split(":")[1] for p in pairs.split(";")}
    for js in (FRONTEND / "src").rglob("*.js"):
        keys |= set(re.findall(r"\bt(?:r)?\('([\w.]+)'", js.read_text()))
    missing = sorted(k for k in keys if k not in CATALOGUES["en"])
    assert missing == []


def page_texts(page: Page) -> list[tuple[str, str]]:
    return [tuple(x) for x in page.evaluate(TEXTS_JS)]


@pytest.mark.parametrize("lang", ["de", "nb"])
def test_no_english_left(browser: Browser, server: Served, lang: str) -> None:
    english = open_in(browser, server.url, "en")
    en_texts = {t for t, _ in page_texts(english.page)}
    english.close()
    run = open_in(browser, server.url, lang)
    page = run.page
    assert page.evaluate("document.documentElement.lang") == lang
    # open every folder of the panel and the help, so their texts are on screen too
    page.evaluate(
        "document.querySelectorAll('.lil-gui.lil-closed > .lil-title').forEach((t) => t.click())"
    )
    page.keyboard.press("h")
    own = words_of(list(CATALOGUES[lang].values()))
    english_only = words_of(list(CATALOGUES["en"].values())) - own - {w.lower() for w in NEUTRAL}
    left = []
    for text, where in page_texts(page):
        found = {w for w in WORD.findall(text) if w.lower() in english_only}
        same = text in en_texts and words_of([text]) - own - {w.lower() for w in NEUTRAL}
        if found or same:
            left.append((text, where))
    assert left == [], f"English left in ?lang={lang}: {left}"
    assert run.errors == []
    run.close()


@pytest.mark.parametrize(
    ("locale", "lang"), [("de-DE", "de"), ("nb-NO", "nb"), ("nn-NO", "nb"), ("fr-FR", "en")]
)
def test_browser_language_chooses(browser: Browser, server: Served, locale: str, lang: str) -> None:
    run = open_in(browser, server.url, "", locale=locale)
    assert run.page.evaluate("document.documentElement.lang") == lang
    assert run.page.inner_text("#btn-help") == CATALOGUES[lang]["toolbar.help"]
    run.close()


@pytest.mark.parametrize("lang", LANGS)
def test_server_refusal_in_the_pages_language(browser: Browser, server: Served, lang: str) -> None:
    """Mass −1 is refused (out_of_range): the line under Mass says so in the page's language,
    with the server's range and value, numbers in the language's format."""
    run = open_in(browser, server.url, lang)
    page = run.page
    mass = page.locator(".lil-controller", has_text=CATALOGUES[lang]["panel.mass"]).locator("input")
    mass.fill("-1")
    mass.press("Enter")
    line = page.locator(".sixdof-error[data-field='Mass']")
    line.wait_for()
    text = line.inner_text()
    expected = {
        "en": "must be in [1e-06, 1e+06] kg, got -1",
        "de": "muss in [1E-6; 1E6] kg liegen, erhalten -1",
        "nb": "må ligge i [1E−6; 1E6] kg, fikk −1",  # Bokmål's minus is U+2212
    }[lang]
    assert text == f"Mass: {expected}"
    assert run.errors == []
    run.close()
