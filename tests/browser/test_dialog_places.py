"""The toolbar's dialogs open where a user sees them: Share, Record clip and Gyroscope lie
wholly on the screen, on top of what they overlap, on a laptop and on a phone (above its
toolbar). Record clip had no place of its own and fell in the flow below the view, out of
sight (y = 800 of an 800 px window); Share began 70 px left of a phone's screen; on a phone
the push pad was drawn over the gyroscope fit's chart and the card ran over the toolbar."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser
from presetsweep import load_paused
from support.pagekit import WAIT_MS, Served, open_folder, open_page, wait_frames

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SIZES = {
    "laptop": dict(width=1366, height=800),
    "phone": dict(width=390, height=844, touch=True),
}

#: the dialog's box, and whether the element at its centre (and a point near each corner)
#: belongs to it: nothing else is drawn over it there
SEEN = """(sel) => {
  const d = document.querySelector(sel);
  const b = d.getBoundingClientRect();
  const inset = 4;
  const points = [[(b.left + b.right) / 2, (b.top + b.bottom) / 2], [b.left + inset, b.top + inset],
                  [b.right - inset, b.top + inset], [b.left + inset, b.bottom - inset],
                  [b.right - inset, b.bottom - inset]];
  return {box: [b.left, b.top, b.right, b.bottom],
          onTop: points.map(([x, y]) => !!document.elementFromPoint(x, y)?.closest(sel))};
}"""


@pytest.mark.parametrize("dialog", ["share", "clip", "gyro"])
@pytest.mark.parametrize("size", list(SIZES))
def test_a_dialog_opens_on_the_screen_on_top(
    browser: Browser, server: Served, size: str, dialog: str
) -> None:
    run = open_page(browser, server.url, **SIZES[size])
    page = run.page
    button = page.locator(f"#btn-{dialog}")
    if size == "phone":
        button.tap()
    else:
        button.click()
    page.locator(f"#{dialog}").wait_for(state="visible")
    wait_frames(page, 2)
    seen = page.evaluate(SEEN, f"#{dialog}")
    left, top, right, bottom = seen["box"]
    width, height = SIZES[size]["width"], SIZES[size]["height"]
    assert 0 <= left < right <= width and 0 <= top < bottom <= height, seen
    assert all(seen["onTop"]), seen
    if size == "phone":
        toolbar = page.locator("#toolbar").bounding_box()
        assert toolbar is not None and bottom <= toolbar["y"], (seen, toolbar)
    assert run.errors == []
    run.close()


FONT_SIZES = (
    "(s) => [...document.querySelectorAll(s)].map((e) => parseFloat(getComputedStyle(e).fontSize))"
)


def test_on_a_phone_a_gyroscope_fit_shows_whole_above_the_toolbar(
    browser: Browser, server: Served
) -> None:
    run = open_page(browser, server.url, **SIZES["phone"])
    page = run.page
    page.locator("#btn-gyro").tap()
    page.set_input_files("#gyro input[type=file]", str(EXAMPLES / "gyro_flip.csv"))
    page.wait_for_function("document.querySelector('#gyro canvas') !== null", timeout=WAIT_MS)
    wait_frames(page, 2)
    seen = page.evaluate(SEEN, "#gyro")
    left, top, right, bottom = seen["box"]
    toolbar = page.locator("#toolbar").bounding_box()
    assert toolbar is not None and 0 <= left < right <= 390 and 0 <= top < bottom <= toolbar["y"]
    assert all(seen["onTop"]), seen  # the pad is not drawn over it
    chart = page.locator("#gyro canvas").first.bounding_box()
    assert chart is not None
    x, y = chart["x"] + chart["width"] * 0.2, chart["y"] + chart["height"] * 0.5  # the pad's side
    assert page.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('#gyro')", [x, y])
    assert run.errors == []
    run.close()


def test_on_a_phone_the_hydrodynamics_card_is_over_the_push_pad(
    browser: Browser, server: Served
) -> None:
    """The Hydrodynamics card opened from the sheet on a phone: the push pad's stick and twist
    buttons were drawn over its charts."""
    run = open_page(browser, server.url, **SIZES["phone"])
    page = run.page
    load_paused(page, "barge_in_waves")
    page.locator("#sheet-handle").tap()
    for folder in (".sixdof-water", ".sixdof-bem"):
        open_folder(page, folder)
    page.locator(".sixdof-hydro-open").get_by_role("button", name="Hydrodynamics…").click()
    page.wait_for_function("__sixdof.hydro.data !== null && __sixdof.hydro.charts.K !== null")
    wait_frames(page, 2)
    seen = page.evaluate(SEEN, "#hydro-card")
    assert all(seen["onTop"]), seen
    card = seen["box"]
    for part in ("#pad .pad-stick", "#pad .pad-twist"):
        for box in page.locator(part).evaluate_all(
            "(els) => els.map((e) => { const b = e.getBoundingClientRect();"
            " return [(b.left + b.right) / 2, (b.top + b.bottom) / 2]; })"
        ):
            x, y = box
            if card[0] < x < card[2] and card[1] < y < card[3]:  # under the card: not over it
                on_top = "([x, y]) => !!document.elementFromPoint(x, y).closest('#hydro-card')"
                assert page.evaluate(on_top, [x, y]), (part, box, card)
    assert run.errors == []
    run.close()


#: the least font size (CSS px) of what the class reads off a projector's wall: the caption's
#: text is 22 px there, the HUD's time 34 px
WALL = {"#summary p": 20, "#help td": 18, "#help kbd": 16, "#gyro p": 18, "#clip label": 18}
#: each toolbar button's dialog, as it is shown
DIALOGS = {"describe": "#summary", "help": "#help", "gyro": "#gyro", "clip": "#clip"}


@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_in_projector_mode_the_class_can_read_the_dialogs(
    browser: Browser, server: Served, dialog: str
) -> None:
    """What the class reads off the wall (Describe, Keys, a gyroscope fit) and what the
    lecturer works at the back of the room (Record clip): in projector mode at 1920×1080 as
    large as the caption (they were 13.5–14 px), on the screen, on top, and clear of the
    toolbar (Record clip and Gyroscope ran 13 px over its wider buttons)."""
    run = open_page(browser, server.url, width=1920, height=1080)
    page = run.page
    page.locator("#scene").focus()
    page.keyboard.press("p")
    page.wait_for_function("document.body.classList.contains('projector')")
    page.click(f"#btn-{dialog}")
    shown = DIALOGS[dialog]
    page.locator(shown).wait_for(state="visible")
    wait_frames(page, 2)
    seen = page.evaluate(SEEN, shown)
    left, top, right, bottom = seen["box"]
    assert 0 <= left < right <= 1920 and 0 <= top < bottom <= 1080, seen
    assert all(seen["onTop"]), seen
    toolbar = page.locator("#toolbar").bounding_box()
    assert toolbar is not None
    assert (
        right <= toolbar["x"] or left >= toolbar["x"] + toolbar["width"] or bottom <= toolbar["y"]
    ), (seen, toolbar)
    for selector, least in WALL.items():
        if not selector.startswith(shown):
            continue
        sizes = page.evaluate(FONT_SIZES, selector)
        assert sizes and min(sizes) >= least, (selector, sizes)
    assert run.errors == []
    run.close()
