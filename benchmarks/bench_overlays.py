"""Frame time of the page in headless Chromium's software renderer, with the teaching
overlays (the Show folder: Forces, ω and L, Poinsot, Energy, Ground and height, Body axes,
World axes) all off and all on, and what the page allocates per frame.

    .venv/bin/python benchmarks/bench_overlays.py [--frames 400] [--rounds 2]

A real `sixdof serve` on a loopback port, the tennis-racket preset running (it spins: the
arrows, traces and labels all change). Each round measures "off" then "on", each after a
random wait of 12–72 rendered frames (a random phase against the server's frames and the
label updates), over at least 300 rendered frames: the render callback's duration (the
page's own timing, __sixdof.frameTimes: interpolation, overlays, plots, three.js render
submission) as p50, p95 and mean, and the frame rate Chromium reached. Allocation: V8's
sampling heap profiler, counting objects that were already collected too, over the same
frames; the bytes allocated per frame are reported with the overlays off and on (the
difference is the overlays' own, labels included, which are rewritten 5 times a second).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from pagekit import CHROMIUM, CHROMIUM_ARGS, Server, free_port, load_preset, open_page  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

OVERLAYS = [
    "Forces",
    "ω and L",
    "Poinsot",
    "Energy",
    "Ground and height",
    "Body axes",
    "World axes",
]


def set_all(page: Page, on: bool) -> None:
    for label in OVERLAYS:
        page.locator("#panel").get_by_label(label, exact=True).set_checked(on)


def measure(page: Page, frames: int, cdp) -> dict[str, float]:
    # a random phase: 12 to 72 rendered frames (0.2–1.2 s at 60 fps) before sampling
    skip = page.evaluate("__sixdof.rendered") + random.randint(12, 72)
    page.wait_for_function("(k) => __sixdof.rendered >= k", arg=skip, timeout=60_000)
    start = page.evaluate("__sixdof.rendered")
    t0 = time.perf_counter()
    cdp.send(
        "HeapProfiler.startSampling",
        {
            "samplingInterval": 512,
            "includeObjectsCollectedByMajorGC": True,
            "includeObjectsCollectedByMinorGC": True,
        },
    )
    page.wait_for_function("(k) => __sixdof.rendered >= k", arg=start + frames, timeout=120_000)
    profile = cdp.send("HeapProfiler.stopSampling")["profile"]
    wall = time.perf_counter() - t0
    done = page.evaluate("__sixdof.rendered") - start
    times = np.asarray(page.evaluate("__sixdof.frameTimes()"))[-frames:]

    def total(node: dict) -> int:
        return int(node["selfSize"]) + sum(total(c) for c in node["children"])

    def overlays(node: dict) -> int:
        """Bytes allocated inside Teaching.drawOverlays (the overlays' own per-frame work)."""
        if node["callFrame"]["functionName"] == "drawOverlays":
            return total(node)
        return sum(overlays(c) for c in node["children"])

    allocated = total(profile["head"])
    own = overlays(profile["head"])
    return {
        "p50": float(np.percentile(times, 50)),
        "p95": float(np.percentile(times, 95)),
        "mean": float(times.mean()),
        "fps": done / wall,
        "bytes_per_frame": allocated / done,
        "overlay_bytes_per_frame": own / done,
        "frames": float(len(times)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--frames", type=int, default=400, help="rendered frames per sample (>= 300)"
    )
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    frames = max(300, args.frames)
    server = Server(free_port(), Path("/tmp/sixdof-bench-overlays.log"))
    server.start()
    results: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            run = open_page(browser, server.url)
            page = run.page
            load_preset(page, "tennis_racket")
            cdp = page.context.new_cdp_session(page)
            cdp.send("HeapProfiler.enable")
            for _ in range(args.rounds):
                for state in ("off", "on"):
                    set_all(page, state == "on")
                    results[state].append(measure(page, frames, cdp))
            renderer = page.evaluate("__sixdof.stage.renderer_name")
            browser.close()
    finally:
        server.stop()
    print(f"renderer: {renderer}; {args.rounds} rounds of {frames} frames each, 1280×720")
    print(
        f"{'overlays':9} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'fps':>6} {'bytes/frame':>12}"
    )
    summary = {}
    for state, rows in results.items():
        agg = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
        summary[state] = agg
        print(
            f"{state:9} {agg['p50']:8.2f} {agg['p95']:8.2f} {agg['mean']:8.2f} {agg['fps']:6.1f}"
            f" {agg['bytes_per_frame']:12.0f}"
        )
    cost = summary["on"]["mean"] / summary["off"]["mean"] - 1
    print(f"overlays' share of the callback time: {100 * cost:+.1f} % (mean on / mean off − 1)")
    extra = summary["on"]["bytes_per_frame"] - summary["off"]["bytes_per_frame"]
    own = summary["on"]["overlay_bytes_per_frame"]
    print(
        f"allocation: the page {summary['off']['bytes_per_frame']:.0f} bytes per frame with the"
        f" overlays off, {extra:+.0f} with them on; inside Teaching.drawOverlays {own:.0f}"
        " bytes per frame (labels rewritten 5 times a second included)"
    )


if __name__ == "__main__":
    main()
