"""ipywidgets controls that act on the running simulation, labelled with FhSim's names.

Force and Moment (N, N·m; global or body axes) go to `LiveSimulation.set_input` as the
body's constant input; Mass, InertiaRadi and model to `set_params` (applied without a
jump in pose); the time scale to `set_time_scale`. A refused value shows the
simulation's message (field, allowed range) in the status line and the widget goes back
to the value the simulation kept, so what you see is always what runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape
from typing import Any, Protocol, cast

import ipywidgets as widgets

from ..dynamics.names import MODELS
from ..fields import LIMITS, FieldError
from ..simulation import LiveSimulation
from .plot import CHANNELS, ChannelPlot


class PanelHost(Protocol):
    """What the panel acts on (a BodyView): its simulation and plot, and what to call when a
    control changes something. The panel knows nothing else of the view."""

    sim: LiveSimulation
    plot: ChannelPlot

    @property
    def live(self) -> bool: ...
    def refresh(self) -> None: ...
    def reset(self) -> None: ...
    def stop(self) -> None: ...
    def run(self, duration: float | None = ..., realtime: bool = ...) -> Any: ...
    def set_time_scale(self, x: float) -> None: ...


_AXES = ("x", "y", "z")
_NARROW = widgets.Layout(width="92px")
_LABEL = widgets.Layout(width="92px")


def _row(label: str, items: list[widgets.Widget], unit: str = "") -> widgets.HBox:
    parts = [widgets.Label(label, layout=_LABEL), *items]
    if unit:
        parts.append(widgets.Label(unit))
    return widgets.HBox(parts)


def _triple(make: Callable[..., widgets.Widget], **kw: Any) -> list[widgets.Widget]:
    return [
        make(description=a, layout=_NARROW, style={"description_width": "12px"}, **kw)
        for a in _AXES
    ]


class ControlPanel:
    """The panel of a BodyView: inputs, parameters, time scale, run buttons and plot choice."""

    def __init__(self, view: PanelHost) -> None:
        self.view = view
        self._syncing = False
        names = view.sim.names
        self.body = widgets.Dropdown(
            options=names, value=names[0], description="body", layout=widgets.Layout(width="200px")
        )
        self.body.layout.display = "" if len(names) > 1 else "none"
        self.frame = widgets.ToggleButtons(
            options=["global", "body"],
            value="global",
            tooltips=["NED axes", "body axes (turn with it)"],
            style={"button_width": "64px"},
        )
        self.force = _triple(widgets.FloatText, step=0.1)
        self.moment = _triple(widgets.FloatText, step=0.01)
        lo, hi = LIMITS["Mass"].lo, LIMITS["Mass"].hi
        self.mass = widgets.FloatLogSlider(
            value=1.0,
            base=10,
            min=math.log10(lo),
            max=math.log10(hi),
            step=0.01,
            readout_format=".4g",
            description="",
            continuous_update=False,
        )
        self.radii = _triple(widgets.FloatText, step=0.01)
        self.model = widgets.ToggleButtons(
            options=list(MODELS),
            value="full",
            tooltips=["Newton–Euler (with ω × v, ω × Iω)", "FhSim 3.1 (Coriolis terms dropped)"],
            style={"button_width": "64px"},
        )
        ts_lo, ts_hi = LIMITS["time_scale"].lo, LIMITS["time_scale"].hi
        self.time_scale = widgets.FloatLogSlider(
            value=1.0,
            base=10,
            min=math.log10(ts_lo),
            max=math.log10(ts_hi),
            step=0.05,
            readout_format=".3g",
        )
        self.duration = widgets.BoundedFloatText(
            value=10.0, min=0.1, max=3600.0, step=1.0, layout=_NARROW
        )
        self.run_button = widgets.Button(
            description="Run live", icon="play", layout=widgets.Layout(width="110px")
        )
        self.pause_button = widgets.ToggleButton(
            description="Pause", icon="pause", layout=widgets.Layout(width="90px")
        )
        self.stop_button = widgets.Button(
            description="Stop", icon="stop", layout=widgets.Layout(width="80px")
        )
        self.reset_button = widgets.Button(
            description="Reset", icon="undo", layout=widgets.Layout(width="80px")
        )
        self.channels = widgets.SelectMultiple(
            options=list(CHANNELS),
            value=tuple(view.plot.channels),
            rows=5,
            description="plot",
            layout=widgets.Layout(width="220px"),
        )
        self.message = widgets.HTML("")

        for w in self.force + self.moment:
            w.observe(self._on_input, names="value")
        self.frame.observe(self._on_input, names="value")
        self.mass.observe(self._on_params, names="value")
        for w in self.radii:
            w.observe(self._on_params, names="value")
        self.model.observe(self._on_params, names="value")
        self.time_scale.observe(self._on_time_scale, names="value")
        self.body.observe(lambda _change: self.sync_from_sim(), names="value")
        self.channels.observe(self._on_channels, names="value")
        self.run_button.on_click(lambda _b: self._guard(self._run))
        self.pause_button.observe(self._on_pause, names="value")
        self.stop_button.on_click(lambda _b: self._guard(self.view.stop))
        self.reset_button.on_click(lambda _b: self._guard(self.view.reset))

        self.widget = widgets.VBox(
            [
                self.body,
                _row("frame", [self.frame]),
                _row("Force", self.force, "N"),
                _row("Moment", self.moment, "N·m"),
                _row("Mass", [self.mass], "kg"),
                _row("InertiaRadi", self.radii, "m"),
                _row("model", [self.model]),
                _row("time scale", [self.time_scale]),
                _row("duration", [self.duration], "s"),
                widgets.HBox(
                    [self.run_button, self.pause_button, self.stop_button, self.reset_button]
                ),
                self.channels,
                self.message,
            ]
        )
        self.sync_from_sim()

    # ------------------------------------------------------------------ simulation → widgets

    def sync_from_sim(self) -> None:
        """Show the selected body's live values (after a refusal, a reset or a load)."""
        sim = self.view.sim
        spec = sim.scenario.body(self.body.value)
        record = sim.inputs()[self.body.value]["constant"]
        self._syncing = True
        try:
            self.frame.value = str(record.get("frame", "global"))
            force = cast(Sequence[float], record.get("Force", spec.Force))
            moment = cast(Sequence[float], record.get("Moment", spec.Moment))
            for w, v in zip(self.force, force, strict=True):
                w.value = float(v)
            for w, v in zip(self.moment, moment, strict=True):
                w.value = float(v)
            self.mass.value = spec.Mass
            for w, v in zip(self.radii, spec.InertiaRadi, strict=True):
                w.value = float(v)
            self.model.value = spec.model
            self.time_scale.value = sim.time_scale
            self.pause_button.value = not sim.running and self.view.live
        finally:
            self._syncing = False

    def set_body_names(self, names: list[str]) -> None:
        """After a load: offer the new bodies and show the first."""
        self._syncing = True
        try:
            self.body.options = names
            self.body.value = names[0]
            self.body.layout.display = "" if len(names) > 1 else "none"
        finally:
            self._syncing = False
        self.sync_from_sim()

    def show(self, text: str, *, error: bool = False) -> None:
        colour = "#c92a2a" if error else "#444"
        self.message.value = f'<span style="color:{colour}">{escape(text)}</span>' if text else ""

    # ------------------------------------------------------------------ widgets → simulation

    def _guard(self, action: Callable[[], Any]) -> None:
        try:
            action()
        except (FieldError, ValueError) as exc:
            self.show(str(exc), error=True)
            self.sync_from_sim()

    def _on_input(self, _change: dict) -> None:
        if self._syncing:
            return
        self._guard(
            lambda: self.view.sim.set_input(
                self.body.value,
                force=[w.value for w in self.force],
                moment=[w.value for w in self.moment],
                frame=self.frame.value,
            )
        )
        self.view.refresh()

    def _on_params(self, _change: dict) -> None:
        if self._syncing:
            return

        def apply() -> None:
            notes = self.view.sim.set_params(
                self.body.value,
                Mass=self.mass.value,
                InertiaRadi=[w.value for w in self.radii],
                model=self.model.value,
            )
            self.show("; ".join(notes))

        self._guard(apply)
        self.view.refresh()

    def _on_time_scale(self, change: dict) -> None:
        if not self._syncing:
            self._guard(lambda: self.view.set_time_scale(change["new"]))

    def _on_channels(self, change: dict) -> None:
        if not self._syncing:
            self._guard(lambda: setattr(self.view.plot, "channels", change["new"]))

    def _on_pause(self, change: dict) -> None:
        if self._syncing:
            return
        sim = self.view.sim
        if change["new"]:
            sim.pause()
        elif self.view.live:
            sim.resume()

    def _run(self) -> None:
        self.view.run(self.duration.value, realtime=True)
