"""Legible labels (issue 45): with the free-body diagram and ω and L on, every preset at
1366×800, 1920×1080 (projector mode) and 390×844 shows its labels with no two overlapping and
none covering more than a quarter of a body's projected area, their text as tall in pixels as
the size asks (larger in projector mode), read on the sweep's one visit of each preset at
each size (presetsweep.py). The rectangles are measured here from the camera and
each label sprite as three.js draws it (its position, scale and anchor) and the share of its
canvas the text takes; the bodies' from each mesh's bounding box, corner by corner."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from labelkit import MEASURE, overlap, overlays_on
from playwright.sync_api import Browser, Page
from presetsweep import OVERLAYS, SIZES, Sweep, by_size, load_paused, probe
from support.pagekit import Served, open_page, wait_frames

from sixdof.scenario.presets import ORDER

#: the most of a body's projected box one label may cover (the issue's figure)
QUARTER = 0.25


def problems(seen: dict) -> list[str]:
    """What breaks the rules in one measured view: overlapping labels, labels over bodies."""
    out = []
    labels = seen["labels"]
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if overlap(a["r"], b["r"]) > 0:
                out.append(f"{a['text']!r} overlaps {b['text']!r}")
        for body in seen["bodies"]:
            r = body["r"]
            area = (r[2] - r[0]) * (r[3] - r[1])
            share = overlap(a["r"], r) / area if area > 0 else 0.0
            if share > QUARTER:
                out.append(f"{a['text']!r} covers {share:.0%} of {body['name']}")
    return out


@probe("labels", tuple(SIZES), OVERLAYS)
def labels(page: Page, name: str) -> dict:
    """The labels' and bodies' rectangles with forces and ω and L on."""
    overlays_on(page)
    seen: dict = page.evaluate(MEASURE)
    return seen


@pytest.mark.parametrize("size", by_size())
def test_labels_do_not_overlap_or_hide_the_bodies(
    preset_sweep: Callable[[str], Sweep], size: str
) -> None:
    sweep = preset_sweep(size)
    bad = {}
    heights = []
    counts = {}
    for name in ORDER:
        seen = sweep.get(name, "labels")
        counts[name] = len(seen["labels"])
        heights += [lab["r"][3] - lab["r"][1] for lab in seen["labels"]]
        if found := problems(seen):
            bad[name] = found
    print(size, counts)
    assert sum(counts.values()) >= 2 * len(ORDER)  # weights, nets, ω and L at the least
    assert bad == {}, f"{size}: {bad}"
    # one text height for the size: legible on a laptop and phone, larger for the back row
    assert max(heights) - min(heights) < 1
    low, high = (30, 40) if size == "projector" else (17, 23)
    assert low <= heights[0] <= high
    assert sweep.errors == {}, size


def test_a_pile_up_is_seen_and_cleared(browser: Browser, server: Served) -> None:
    """The measure sees a pile-up, and the page clears it: every label of the gyroscope put at
    its CG after the overlays pose them (all six on one point over the wheel), the page moves
    them apart and off the wheel with leader lines back; with its placement undone, the same
    measure finds them overlapping and over the wheel."""
    run = open_page(browser, server.url, width=1366, height=800)
    page = run.page
    load_paused(page, "gyroscope")
    overlays_on(page)
    page.evaluate(
        """() => { const t = __sixdof.teach; const pose = t.drawOverlays.bind(t);
        t.drawOverlays = (v, b, now) => {
          pose(v, b, now); for (const l of t.labels()) l.position.copy(v.cg); }; }"""
    )
    wait_frames(page, 3)
    placed = page.evaluate(MEASURE)
    # W, net, the pivot's force, ω, L, and the pivot's own name (elements.js)
    assert len(placed["labels"]) == 6 and problems(placed) == []
    assert page.evaluate("__sixdof.teach.declutter.leaders.visible")
    page.evaluate("__sixdof.teach.placeLabels = () => {}")
    wait_frames(page, 3)
    piled = problems(page.evaluate(MEASURE))
    # the right-anchored three pile on each other, the left-anchored two too
    assert sum("overlaps" in p for p in piled) >= 4, piled
    assert run.errors == []
    run.close()
