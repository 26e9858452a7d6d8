"""Screenshots of every preset with every overlay of the Show folder on, at 1280×720 and at
a phone's 360×640, into docs/img/teach/ (shown in docs/frontend.md).

    .venv/bin/python scripts/teaching_shots.py            # all presets
    .venv/bin/python scripts/teaching_shots.py hover      # one

It starts its own `sixdof serve` on a free loopback port and drives Debian's Chromium, as
the browser tests do (tests/support/pagekit.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from support.pagekit import CHROMIUM, CHROMIUM_ARGS, load_preset, open_page, wait_drawn  # noqa: E402
from support.serving import Served  # noqa: E402

from sixdof.scenario.presets import PRESETS  # noqa: E402

OUT = REPO / "docs" / "img" / "teach"
OVERLAYS = [
    "Forces",
    "ω and L",
    "Poinsot",
    "Energy",
    "Ground and height",
    "Body axes",
    "World axes",
]
SIZES = [(1280, 720, False), (360, 640, True)]
RUN_FOR = {"tennis_racket": 2.6, "free_fall": 0.8, "projectile": 0.8}  # s: where it shows


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    server = Served(log=Path("/tmp/sixdof-shots-serve.log"))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for name in names:
                for width, height, phone in SIZES:
                    run = open_page(browser, server.url, width=width, height=height, touch=phone)
                    page = run.page
                    if phone:  # the panel is a bottom sheet: open it to tick the boxes
                        page.click("#sheet-handle")
                    for label in OVERLAYS:
                        page.locator("#panel").get_by_label(label, exact=True).set_checked(True)
                    if phone:
                        page.click("#sheet-handle")
                    load_preset(page, name)  # loads paused at t = 0, then "Show me"
                    page.wait_for_function(
                        "(t) => __sixdof.lastState.t >= t", arg=RUN_FOR.get(name, 1.5)
                    )
                    page.evaluate("__sixdof.send({type: 'pause'})")
                    page.wait_for_function("!__sixdof.lastState.status.running")
                    wait_drawn(page)
                    path = OUT / f"{name}_{width}x{height}.jpg"
                    page.screenshot(path=str(path), type="jpeg", quality=80)
                    print(path.relative_to(REPO), "errors:", run.errors)
                    run.close()
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or list(PRESETS))
