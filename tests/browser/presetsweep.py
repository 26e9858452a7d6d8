"""One visit of every preset per viewport size, shared by the checks that sweep the presets
(issue 38): framing and labels at three sizes, the question's scene, the key push and the
English captions on the laptop. Loading a preset and waiting until it is placed is most of
such a check's cost, and each used to load all 33 again.

A check registers a probe (`probe`): what it reads from the page for one preset, at which sizes,
and at which stage of the visit (LOADED reads the page as the preset's view leaves it and
changes nothing; OVERLAYS may turn overlays on; STEPPED may run the simulation). The sweep of a
size opens one page, and for each preset loads it paused once and runs the probes of that size
in stage order; its tests assert on the records, each with its own message naming the preset
and the size. Only the probes of the collected test files run, so one file alone costs only its
own reads. Tests of one size share a sweep: they carry the size's `xdist_group` (`in_sweep`,
`by_size`), so `--dist loadgroup` hands them to one worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from support.pagekit import WAIT_MS, Served, open_page, wait_frames

from sixdof.scenario.presets import ORDER

SIZES = {
    "laptop": dict(width=1366, height=800),
    "projector": dict(width=1920, height=1080),
    "phone": dict(width=390, height=844, touch=True),
}

LOADED, OVERLAYS, STEPPED = 0, 1, 2


def load_paused(page: Page, name: str) -> None:
    """Load preset `name` at t = 0, paused, and wait until its view is placed."""
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("__sixdof.send({type: 'pause'})")
    page.evaluate("(n) => __sixdof.send({type: 'load_scenario', preset: n})", name)
    page.wait_for_function(
        "([n, before]) => __sixdof.hello.scenario.name === n && __sixdof.helloCount > before"
        " && __sixdof.lastState.gen === __sixdof.helloCount && __sixdof.pendingView === null"
        " && __sixdof.hello.scenario.bodies.every((b) => __sixdof.bodyBox(b.Name).loaded)",
        arg=[name, before],
        timeout=WAIT_MS,
    )
    wait_frames(page, 2)


@dataclass(frozen=True)
class Probe:
    name: str
    sizes: tuple[str, ...]
    stage: int
    read: Callable[[Page, str], Any]


PROBES: dict[str, Probe] = {}


def probe(name: str, sizes: tuple[str, ...], stage: int) -> Callable:
    """Register `read(page, preset)` as the probe `name` of the sweeps of `sizes`."""

    def register(read: Callable[[Page, str], Any]) -> Callable[[Page, str], Any]:
        PROBES[name] = Probe(name, sizes, stage, read)
        return read

    return register


#: pytest-timeout's bound on a test of a sweep (the configuration's is 300 s): the first test
#: of a size to ask runs the whole sweep, the work of up to five tests that had 300 s each
SWEEP_TIMEOUT = 900


def sweep_marks(size: str) -> list[pytest.MarkDecorator]:
    """A test that reads the sweep of `size` runs in the same worker as the size's others (so
    the sweep is made once), and may have to wait for the whole of it."""
    return [pytest.mark.xdist_group(f"sweep-{size}"), pytest.mark.timeout(SWEEP_TIMEOUT)]


def in_sweep(size: str) -> Callable[[Callable], Callable]:
    """`sweep_marks(size)` as a decorator."""

    def mark(test: Callable) -> Callable:
        for m in sweep_marks(size):
            test = m(test)
        return test

    return mark


def by_size(sizes: tuple[str, ...] = tuple(SIZES)) -> list:
    """`sizes` as parameters, each with its sweep's marks."""
    return [pytest.param(s, marks=sweep_marks(s)) for s in sizes]


@dataclass
class Sweep:
    """What the probes read at one size, preset by preset, and what went wrong on the way."""

    size: str
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (preset, probe) -> the exception its read (or its preset's load) raised
    failed: dict[tuple[str, str], BaseException] = field(default_factory=dict)
    #: the page's console errors, by the preset being visited ("(open)" before the first)
    errors: dict[str, list[str]] = field(default_factory=dict)

    def get(self, preset: str, name: str) -> Any:
        """Probe `name`'s record of `preset`; its read's failure raised again, named."""
        if (preset, name) in self.failed:
            raise AssertionError(f"{self.size}, {preset}: reading {name} failed") from self.failed[
                preset, name
            ]
        return self.records[preset][name]


def run_sweep(browser: Browser, server: Served, size: str) -> Sweep:
    """Visit every preset once at `size`, running its probes on each."""
    probes = sorted((p for p in PROBES.values() if size in p.sizes), key=lambda p: p.stage)
    sweep = Sweep(size)
    query = "&lang=en" if any(p.name == "caption" for p in probes) else ""
    run = open_page(browser, server.url, query=query, **SIZES[size])
    page = run.page
    if size == "projector":
        page.locator("#scene").focus()
        page.keyboard.press("p")
        page.wait_for_function("document.body.classList.contains('projector')")
    seen = 0
    if run.errors:
        sweep.errors["(open)"] = list(run.errors)
        seen = len(run.errors)
    for name in ORDER:
        record: dict[str, Any] = {}
        sweep.records[name] = record
        try:
            load_paused(page, name)
        except Exception as exc:  # every probe of the preset fails with it
            sweep.failed.update({(name, p.name): exc for p in probes})
            continue
        for p in probes:
            try:
                record[p.name] = p.read(page, name)
            except Exception as exc:
                sweep.failed[name, p.name] = exc
        if len(run.errors) > seen:
            sweep.errors[name] = run.errors[seen:]
            seen = len(run.errors)
    if sweep.failed:  # keys may be held, a wait cut short: not pooled again
        run.taint()
    run.close()
    return sweep
