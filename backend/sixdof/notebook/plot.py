"""A small live line plot as an SVG image: no plotting library, only numpy and ipywidgets.

matplotlib and bqplot are heavy to install for one strip chart, and pythreejs text is
awkward; an SVG string in an `ipywidgets.Image` (format "svg+xml") is drawn by every
notebook front end, costs a few kB per redraw and can be checked by parsing it.
`svg_line_plot` makes the picture (pure function); `ChannelPlot` keeps a ring buffer of
chosen output channels of one body and redraws at most `max_fps` times a second.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics.output_table import OUTPUTS

_UNITS = {o.name: o.unit for o in OUTPUTS}
_XYZ = ("x", "y", "z")
#: Channels a body's `frame()` entry carries and what each plots (label suffix, unit); the
#: units are the output table's.
CHANNELS: dict[str, tuple[tuple[str, ...], str]] = {
    name: (parts, _UNITS[name])
    for name, parts in (
        ("Pos", _XYZ),
        ("Vel", _XYZ),
        ("LocalVel", ("u", "v", "w")),
        ("AngVel", ("p", "q", "r")),
        ("Euler", ("roll", "pitch", "yaw")),
        ("Force", _XYZ),
        ("Moment", _XYZ),
        ("LinearMomentum", _XYZ),
        ("AngularMomentum", _XYZ),
        ("KineticEnergy", ()),
        ("PotentialEnergy", ()),
        ("TotalEnergy", ()),
    )
}
COLOURS = ("#d62728", "#2ca02c", "#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About `count` round tick values in [lo, hi], a step of 1, 2 or 5 × 10ᵏ (the nearest)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1.0, 2.0, 5.0, 10.0)), key=lambda s: abs(math.log(s / raw)))
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    k = 0
    while first + k * step <= hi * (1 + 1e-12) + 1e-12 * step:
        ticks.append(round(first + k * step, 12))
        k += 1
    return ticks


def _fmt(v: float) -> str:
    return f"{v:.3g}" if v != 0 else "0"


def svg_line_plot(
    times: ArrayLike,
    series: Mapping[str, ArrayLike],
    *,
    width: int = 420,
    height: int = 220,
    title: str = "",
    y_label: str = "",
    cursor: float | None = None,
) -> str:
    """An SVG document with one polyline per series against `times` (s).

    `series` maps a legend label to values of the same length as `times`. Non-finite
    values are dropped from the line. The y range is the data's, padded by 5 %, or ±1
    around a constant. The legend sits in the band above the plot area, never on the
    curves; `cursor` (s) draws a dashed vertical time cursor. Returns the SVG text (UTF-8
    safe, labels escaped).
    """
    t = np.asarray(times, dtype=float)
    left, right, top, bottom = 52, 10, 22, 30
    pw, ph = width - left - right, height - top - bottom
    values = {k: np.asarray(v, dtype=float) for k, v in series.items()}
    finite = [v[np.isfinite(v)] for v in values.values() if v.size]
    finite = [v for v in finite if v.size]
    t0, t1 = (float(t[0]), float(t[-1])) if t.size else (0.0, 1.0)
    if t1 <= t0:
        t1 = t0 + 1.0
    if finite:
        y0 = min(float(v.min()) for v in finite)
        y1 = max(float(v.max()) for v in finite)
    else:
        y0, y1 = -1.0, 1.0
    if y1 - y0 < 1e-12 * max(1.0, abs(y0)):
        y0, y1 = y0 - 1.0, y1 + 1.0
    pad = 0.05 * (y1 - y0)
    y0, y1 = y0 - pad, y1 + pad

    def sx(x: float) -> float:
        return left + (x - t0) / (t1 - t0) * pw

    def sy(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="14" font-size="11">{escape(title)}</text>',
    ]
    for ty in nice_ticks(y0, y1):
        y = sy(ty)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">{_fmt(ty)}</text>')
    for tx in nice_ticks(t0, t1):
        x = sx(tx)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 12}" text-anchor="middle">{_fmt(tx)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{left + pw}" y="{height - 4}" text-anchor="end">t (s)</text>')
    if y_label:
        out.append(
            f'<text x="10" y="{top + ph / 2:.1f}" transform="rotate(-90 10 {top + ph / 2:.1f})" '
            f'text-anchor="middle">{escape(y_label)}</text>'
        )
    n = len(values)
    for i, (label, v) in enumerate(values.items()):
        colour = COLOURS[i % len(COLOURS)]
        ok = np.isfinite(v) & np.isfinite(t[: v.size]) if v.size == t.size else np.zeros(0, bool)
        pts = " ".join(f"{sx(a):.1f},{sy(b):.1f}" for a, b in zip(t[ok], v[ok], strict=True))
        out.append(
            f'<polyline data-label="{escape(label)}" fill="none" stroke="{colour}" '
            f'stroke-width="1.5" points="{pts}"/>'
        )
        lx = left + pw - 60 * (n - i) + 6  # in the band above the plot area
        out.append(
            f'<text class="legend" x="{lx}" y="14" fill="{colour}">&#9632; {escape(label)}</text>'
        )
    slack = 0.05 * (t1 - t0)  # a cursor just past the last sample still shows, at the edge
    if cursor is not None and t0 - slack <= cursor <= t1 + slack:
        x = sx(min(t1, max(t0, cursor)))
        out.append(
            f'<line class="cursor" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" '
            'stroke="#333" stroke-dasharray="3,2"/>'
        )
    out.append("</svg>")
    return "\n".join(out)


def channel_labels(channel: str) -> list[str]:
    """Legend labels of a channel: 'AngVel' → ['AngVel p', 'AngVel q', 'AngVel r']."""
    if channel not in CHANNELS:
        raise ValueError(f"channel: must be one of {sorted(CHANNELS)}, got {channel!r}")
    parts = CHANNELS[channel][0]
    return [f"{channel} {p}" for p in parts] if parts else [channel]


class ChannelPlot:
    """Ring buffer of chosen channels of one body, drawn as an SVG in an `ipywidgets.Image`.

    Feed it `frame()` payloads (or their body entries) with `add`; `redraw` re-renders
    at most `max_fps` times a second unless forced. `widget` is the Image to display.
    """

    def __init__(
        self,
        channels: Sequence[str] = ("AngVel",),
        *,
        body: str | None = None,
        seconds: float = 20.0,
        max_points: int = 600,
        max_fps: float = 5.0,
        width: int = 420,
        height: int = 220,
    ) -> None:
        import ipywidgets as widgets

        self.body = body
        self.seconds = float(seconds)
        self.max_fps = float(max_fps)
        self.size = (int(width), int(height))
        self._channels: tuple[str, ...] = ()
        self.max_points = int(max_points)
        self._rows: deque[tuple[float, dict[str, np.ndarray]]] = deque(maxlen=self.max_points)
        self._last_draw = -math.inf
        self.cursor: float | None = None  # the time cursor (s), e.g. of a playback
        self.widget = widgets.Image(format="svg+xml", width=str(width), height=str(height))
        self.channels = tuple(channels)

    @property
    def channels(self) -> tuple[str, ...]:
        return self._channels

    @channels.setter
    def channels(self, names: Iterable[str]) -> None:
        names = tuple(names)
        for name in names:
            channel_labels(name)  # raises ValueError naming the allowed channels
        self._channels = names
        self.redraw(force=True)

    def clear(self) -> None:
        self._rows.clear()
        self.redraw(force=True)

    def add(self, t: float, body_entry: Mapping[str, object]) -> None:
        """Store one sample: t (s) and a body entry of `LiveSimulation.frame()["bodies"]`.

        Samples closer than seconds/max_points to the previous one are skipped, so the
        buffer spans `seconds` whatever the feed rate; a time that goes back (a reset)
        starts the buffer afresh.
        """
        t = float(t)
        if self._rows:
            last = self._rows[-1][0]
            if t < last:
                self._rows.clear()
            elif t - last < self.seconds / self.max_points:
                return
        row = {
            k: np.atleast_1d(np.asarray(v, dtype=float))
            for k, v in body_entry.items()
            if k in CHANNELS
        }
        self._rows.append((t, row))
        while self._rows and self._rows[-1][0] - self._rows[0][0] > self.seconds:
            self._rows.popleft()

    def add_frame(self, frame: Mapping[str, object]) -> None:
        """Store the chosen body's entry of a whole `frame()` payload."""
        bodies = cast(list[Mapping[str, object]], frame["bodies"])
        entry = next((b for b in bodies if b.get("Name") == self.body), bodies[0])
        self.add(float(cast(float, frame["t"])), entry)

    def data(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Times (T,) and, per legend label, values (T,) of the buffered samples."""
        rows = list(self._rows)  # a snapshot: a live thread may append meanwhile
        times = np.array([t for t, _ in rows])
        out: dict[str, np.ndarray] = {}
        for name in self._channels:
            labels = channel_labels(name)
            cols = np.full((times.size, len(labels)), np.nan)
            for i, (_, row) in enumerate(rows):
                if name in row and row[name].size == len(labels):
                    cols[i] = row[name]
            for j, label in enumerate(labels):
                out[label] = cols[:, j]
        return times, out

    def svg(self) -> str:
        times, series = self.data()
        units = sorted({CHANNELS[c][1] for c in self._channels})
        title = ", ".join(self._channels) + (f" of {self.body}" if self.body else "")
        return svg_line_plot(
            times,
            series,
            width=self.size[0],
            height=self.size[1],
            title=title,
            y_label=", ".join(units),
            cursor=self.cursor,
        )

    def redraw(self, *, force: bool = False) -> bool:
        """Re-render into the widget; skipped (False) if the last draw was < 1/max_fps ago."""
        now = time.monotonic()
        if not force and now - self._last_draw < 1.0 / self.max_fps:
            return False
        self._last_draw = now
        self.widget.value = self.svg().encode("utf-8")
        return True
