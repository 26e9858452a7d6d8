"""Screenshots of presets as they load (framed by the page, issue 45) at a laptop's 1366×800, a
projector's 1920×1080 (projector mode) and a phone's 390×844, into docs/img/framing/ (shown in
docs/frontend.md), every preset by default, with the free-body diagram on (its labels placed
by view/declutter.js).

    .venv/bin/python scripts/framing_shots.py                   # every preset
    .venv/bin/python scripts/framing_shots.py --out /tmp/shots --png gyroscope heavy_top
    .venv/bin/python scripts/framing_shots.py --bare gyroscope  # as the preset opens

It starts its own `sixdof serve` on a loopback port and drives Debian's Chromium, as the
browser tests do (tests/support/pagekit.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from support.pagekit import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, open_page, wait_frames  # noqa: E402
from support.serving import Served  # noqa: E402

from sixdof.scenario.presets import ORDER  # noqa: E402

SIZES = {
    "1366x800": (1366, 800, False),
    "1920x1080": (1920, 1080, False),
    "390x844": (390, 844, True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="presets (default: every one)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "framing")
    parser.add_argument("--png", action="store_true", help="PNG, not JPEG (to look at)")
    parser.add_argument("--bare", action="store_true", help="the preset's own overlays only")
    parser.add_argument("--size", action="append", choices=SIZES, help="only these sizes")
    args = parser.parse_args()
    names = args.names or list(ORDER)
    args.out.mkdir(parents=True, exist_ok=True)
    server = Served(log=Path("/tmp/sixdof-framing-shots.log"))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for size, (width, height, phone) in SIZES.items():
                if args.size and size not in args.size:
                    continue
                run = open_page(browser, server.url, width=width, height=height, touch=phone)
                page = run.page
                if width >= 1920:
                    page.locator("#scene").focus()
                    page.keyboard.press("p")  # projector mode
                for name in names:
                    before = page.evaluate("__sixdof.helloCount")
                    page.evaluate("__sixdof.send({type: 'pause'})")
                    page.evaluate("(n) => __sixdof.send({type: 'load_scenario', preset: n})", name)
                    page.wait_for_function(
                        "([n, k]) => __sixdof.hello.scenario.name === n && __sixdof.helloCount > k"
                        " && __sixdof.lastState.gen === __sixdof.helloCount"
                        " && __sixdof.pendingView === null",
                        arg=[name, before],
                        timeout=WAIT_MS,
                    )
                    if not args.bare and not page.evaluate("__sixdof.teach.fbd.visible"):
                        page.locator("#scene").focus()
                        page.keyboard.press("1")  # Forces: the labels the issue found piled up
                    wait_frames(page, 4)
                    out = args.out / f"{name}_{size}.{'png' if args.png else 'jpg'}"
                    if args.png:
                        page.screenshot(path=str(out))
                    else:
                        page.screenshot(path=str(out), type="jpeg", quality=35)
                    print(out)
                run.close()
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
