"""The page on a phone (issue 45): at 390×844, touch, the cards lie in a row along the top (HUD,
water card, the flip counter, its period and the stability card in a column at the right) and
a stack along the bottom (answer box and caption, push pad, energy strip, timeline, toolbar),
none over another, and the bodies are framed in the band between them: no card covers more
than a tenth of a body's projected box. The first caption shows in full, its text readable;
the first touch on the view closes it to its title, and the pad comes out under it.

Cards are measured by their bounding rectangles; the push pad by its stick and its twist
buttons (the box between them is empty and lets touches through to the view); the bodies as
test_labels measures them, each mesh's bounding box projected corner by corner."""

from __future__ import annotations

from a11ykit import axe
from labelkit import MEASURE
from labelkit import overlap as area_of
from playwright.sync_api import Browser, Page
from presetsweep import load_paused
from support.pagekit import SHOTS, Served, open_page, wait_frames

#: the most of a body's projected box one card may cover
TENTH = 0.1
#: the presets that show the most cards at once: the flip counter, its period and the stability
#: card (tennis racket), the water card and a question (buoy), a question (gyroscope)
PRESETS = ("tennis_racket", "buoy_in_waves", "gyroscope", "heavy_top")
#: the least font size of the caption's text, CSS px
READABLE = 12

#: every shown card's rectangle [left, top, right, bottom] (page px, as the bodies': the view
#: starts at the page's top left on a phone)
CARDS = """() => {
  const out = [];
  const seen = (el) => !el.hidden && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  for (const sel of ['#hud', '#water-card', '#version', '#flips', '#flip-period', '#stability',
                     '#banners > *', '#watch', '#answer', '#caption', '#pad .pad-stick',
                     '#pad .pad-twist', '#energy', '#timeline', '#toolbar', '#sheet-handle']) {
    for (const el of document.querySelectorAll(sel)) {
      if (!seen(el)) continue;
      const b = el.getBoundingClientRect();
      const r = [b.left, b.top, b.right, b.bottom];
      if (b.width > 0 && b.height > 0) out.push({sel: el.id || sel, r});
    }
  }
  return out;
}"""


def problems(page: Page) -> list[str]:
    """Cards over cards (more than a pixel's rounding), cards over a tenth of a body."""
    cards = page.evaluate(CARDS)
    bodies = page.evaluate(MEASURE)["bodies"]
    assert bodies
    out = []
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            if area_of(a["r"], b["r"]) > 1:
                out.append(f"{a['sel']} overlaps {b['sel']}")
        for body in bodies:
            r = body["r"]
            share = area_of(a["r"], r) / ((r[2] - r[0]) * (r[3] - r[1]))
            if share > TENTH:
                out.append(f"{a['sel']} covers {share:.0%} of {body['name']}")
    return out


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"phone_layout_{name}.png"))


def test_on_a_phone_no_card_covers_another_or_the_bodies(browser: Browser, server: Served) -> None:
    run = open_page(browser, server.url, width=390, height=844, touch=True)
    page = run.page
    page.wait_for_function("!document.querySelector('#caption').hidden")
    page.wait_for_function("__sixdof.pendingView === null")
    wait_frames(page, 3)
    # the first caption, in full: its text, lines of it, readable
    text = page.locator("#caption .caption-text")
    assert text.is_visible()
    box = text.bounding_box()
    assert box is not None and box["height"] > 30
    sizes = page.evaluate(
        "[...document.querySelectorAll('#caption .caption-title, #caption .caption-text')]"
        ".map((e) => parseFloat(getComputedStyle(e).fontSize))"
    )
    assert min(sizes) >= READABLE, sizes
    default = page.evaluate("__sixdof.hello.scenario.name")
    bad = {}
    if found := problems(page):
        bad[f"{default} (first caption)"] = found
    shot(page, default)
    for name in PRESETS:
        load_paused(page, name)
        if name == "tennis_racket":  # the flip counter shows once a flip is counted
            page.evaluate("__sixdof.teach.flips.el.hidden = false")
        wait_frames(page, 3)
        if found := problems(page):
            bad[name] = found
        shot(page, name)
    assert bad == {}, "\n".join(f"{k}: {', '.join(v)}" for k, v in bad.items())
    # a later caption starts as its title, the pad out under it
    assert not text.is_visible()
    assert page.locator("#pad .pad-stick").is_visible()
    # a tap on the title opens it in full (the pad waits), a touch on the view closes it again
    page.click("#caption .caption-title")
    text.wait_for(state="visible")
    wait_frames(page, 3)
    assert not page.locator("#pad .pad-stick").is_visible()
    assert problems(page) == []
    page.touchscreen.tap(195, 320)
    text.wait_for(state="hidden")
    assert page.locator("#caption .caption-title").is_visible()
    assert page.locator("#pad .pad-stick").is_visible()
    wait_frames(page, 3)
    assert problems(page) == []
    assert run.errors == []
    run.close()


#: the plots card's box, its chooser's, the first chart's and the sheet handle's [l, t, r, b]
PLOTS = """() => {
  const box = (s) => { const b = document.querySelector(s).getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom]; };
  const labels = [...document.querySelectorAll('#plot-chooser label')]
    .map((l) => l.getBoundingClientRect().top);
  return {card: box('#plots'), chooser: box('#plot-chooser'), chart: box('#plot-grid .plot-cell'),
          handle: box('#sheet-handle'), rows: new Set(labels.map(Math.round)).size,
          scrolled: document.querySelector('#plots').scrollTop};
}"""


def test_on_a_phone_plots_open_with_the_chart_whole(browser: Browser, server: Served) -> None:
    """Plots opened on a phone show their chart whole, without scrolling the card: the series
    to choose lie in one row that scrolls sideways (wrapped, they filled the card and the chart
    began below its fold), every one of them still there to tap."""
    run = open_page(browser, server.url, width=390, height=844, touch=True)
    page = run.page
    load_paused(page, "tennis_racket")
    page.locator("#btn-plots").tap()
    page.wait_for_function("document.querySelector('#plot-grid .plot-cell canvas') !== null")
    wait_frames(page, 2)
    seen = page.evaluate(PLOTS)
    shot(page, "plots")
    card, chart = seen["card"], seen["chart"]
    assert seen["rows"] == 1, seen
    assert seen["scrolled"] == 0
    assert card[1] <= chart[1] and chart[3] <= card[3], seen  # the chart within the card's view
    assert chart[3] <= seen["handle"][1], seen  # and above the sheet's handle
    last = page.locator("#plot-chooser label").last
    last.scroll_into_view_if_needed()
    assert last.is_visible()
    box = last.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390 + 1
    # a row that scrolls must be reachable by keyboard too (axe: scrollable-region-focusable)
    assert [v for v in axe(page) if v.impact in ("serious", "critical")] == []
    assert run.errors == []
    run.close()


def test_on_a_phone_the_keys_help_is_on_top_across_the_view(
    browser: Browser, server: Served
) -> None:
    """The keys' help opened on a phone spans the view's width above the toolbar, over every
    card (the water card was drawn over it, and it was a 225 px column running under the
    toolbar), its rows scrolling inside it."""
    run = open_page(browser, server.url, width=390, height=844, touch=True)
    page = run.page
    load_paused(page, "buoy_in_waves")  # the water card shows
    page.locator("#btn-help").tap()
    page.locator("#help").wait_for(state="visible")
    wait_frames(page, 2)
    help_box = page.locator("#help").bounding_box()
    toolbar = page.locator("#toolbar").bounding_box()
    water = page.locator("#water-card").bounding_box()
    assert help_box is not None and toolbar is not None and water is not None
    assert help_box["x"] >= 0 and help_box["x"] + help_box["width"] <= 390
    assert help_box["width"] >= 370
    assert help_box["y"] + help_box["height"] <= toolbar["y"]
    # on top where it overlaps the water card
    x, y = water["x"] + water["width"] / 2, water["y"] + water["height"] / 2
    assert help_box["y"] < y < help_box["y"] + help_box["height"]
    assert page.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('#help')", [x, y])
    assert page.evaluate(
        "(e) => e.scrollHeight > e.clientHeight", page.locator("#help").element_handle()
    )
    shot(page, "keys")
    assert run.errors == []
    run.close()
