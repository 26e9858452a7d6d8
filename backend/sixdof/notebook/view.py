"""BodyView: the lab's body in a Jupyter notebook, simulated live in the kernel.

    from sixdof.notebook import BodyView
    view = BodyView("tennis_racket")      # a preset, a Scenario, a dict, or a .xml/.json file
    view                                  # shows the 3-D view, the controls and a plot
    view.run(10)                          # live: the kernel stays free, sliders act at once
    view.run(20, realtime=False)          # compute 20 s first, then play it back smoothly
    view.stop()

The simulation is a `sixdof.simulation.LiveSimulation` (`view.sim`): everything the
web page can do through the protocol, a notebook can do by calling it directly; call
`view.refresh()` after changing it by hand so the drawing follows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import numpy as np
import pythreejs as p3

from ..scenario import Scenario
from ..scenario.sources import ScenarioLike, as_scenario
from ..simulation import LiveSimulation
from .catalogue import load_catalogue
from .controls import ControlPanel
from .elements import ElementDrawing, body_weight, joint_axes
from .playback import LiveLoop, Recording, animation_clip, record
from .plot import ChannelPlot
from .scene import BodyDrawing, GeometryLibrary, Stage


class BodyView:
    """A pythreejs view of a scenario's bodies with controls and a plot, driven by a LiveSimulation.

    Parameters: `scenario` (see `sources.as_scenario`); `width`, `height` of the 3-D view
    (px); `frame_rate` (Hz) of the live loop, of the recorded samples and of the
    simulation's history; `channels` plotted at first (plot.CHANNELS); `meshes`, a folder
    with meshes.json/materials.json (default: the shipped meshes/).
    """

    def __init__(
        self,
        scenario: ScenarioLike = "tennis_racket",
        *,
        width: int = 640,
        height: int = 420,
        frame_rate: float = 30.0,
        channels: Sequence[str] = ("AngVel",),
        meshes: str | Path | None = None,
    ) -> None:
        self.frame_rate = float(frame_rate)
        self.sim = LiveSimulation(as_scenario(scenario), frame_rate=self.frame_rate, running=False)
        self.catalogue = load_catalogue(meshes)
        self.library = GeometryLibrary(self.catalogue)
        self.stage = Stage(width, height)
        self.drawings: list[BodyDrawing] = []
        self.elements = ElementDrawing(())  # the scenario's elements (none yet)
        self._weight = 1.0  # N: load arrows are 1 m per the heaviest body's weight
        self.plot = ChannelPlot(channels, body=self.sim.names[0], width=min(width, 520))
        self.recording: Recording | None = None
        self.action: p3.AnimationAction | None = None
        self._loop: LiveLoop | None = None
        self._end_t = math.inf
        self._version = -1
        self.status = widgets.HTML("")
        self.scrub = widgets.FloatSlider(
            min=0.0,
            max=1.0,
            step=0.01,
            description="t (s)",
            continuous_update=True,
            readout_format=".2f",
            layout=widgets.Layout(width="420px", display="none"),
        )
        self._quiet_scrub = False
        self.scrub.observe(self._on_scrub, names="value")
        self._build_bodies()

        self.controls = ControlPanel(self)
        # The view and the panel side by side while they fit, the panel below when they do
        # not (a narrow notebook, the file browser open): they never overlap.
        fixed = widgets.Layout(flex="0 0 auto")
        self.widget = widgets.Box(
            [
                widgets.VBox([self.stage.renderer, self.scrub, self.status], layout=fixed),
                widgets.VBox([self.controls.widget, self.plot.widget], layout=fixed),
            ],
            layout=widgets.Layout(display="flex", flex_flow="row wrap", align_items="flex-start"),
        )
        self._follower: LiveLoop | None = None  # moves the slider along a playback
        self._last_error: BaseException | None = None
        self.refresh(plot=True)
        self.fit()

    # ------------------------------------------------------------------ display

    def _repr_mimebundle_(self, **kwargs: Any) -> dict | None:
        data = self.widget._repr_mimebundle_(**kwargs)
        if data is not None:  # a short text for consoles and saved notebooks
            data["text/plain"] = repr(self)
        return data

    def __repr__(self) -> str:
        names = ", ".join(self.sim.names)
        return f"BodyView({self.sim.scenario.name!r}: {names}; t = {self.sim.t:.3f} s)"

    def fit(self) -> None:
        """Point the camera at the bodies (or the whole recorded path) and size the grid."""
        extent = max(d.extent() for d in self.drawings)
        if self.recording is not None:
            pts = self.recording.pos.reshape(-1, 3)
        else:
            pts = self.sim.state_array()[:, 0:3]
        lo, hi = pts.min(0), pts.max(0)
        centre = 0.5 * (lo + hi)
        radius = 0.5 * float(np.linalg.norm(hi - lo)) + extent
        self.stage.set_scale(extent)
        self.stage.look_at(centre, radius)

    # ------------------------------------------------------------------ simulation → drawing

    def _build_bodies(self) -> None:
        for d in self.drawings:
            self.stage.ned.remove(d.group)
        scenario = self.sim.scenario
        specs = scenario.bodies
        self.drawings = [BodyDrawing(i, spec, self.library) for i, spec in enumerate(specs)]
        for d in self.drawings:
            self.stage.ned.add(d.group)
        self._build_elements(scenario)
        self._version = self.sim.version

    def _build_elements(self, scenario: Scenario) -> None:
        """The elements' drawing (notebook/elements.py), rebuilt when the list changes."""
        if self.elements.elements == list(scenario.elements):
            return
        if self.elements.group in self.stage.ned.children:
            self.stage.ned.remove(self.elements.group)
        size = max((d.extent() for d in self.drawings), default=1.0)
        self.elements = ElementDrawing(scenario.elements, size)
        self._weight = body_weight([b.Mass for b in scenario.bodies], scenario.bodies[0].Gravity)
        self.stage.ned.add(self.elements.group)

    def set_elements(self, elements: list[dict[str, Any]]) -> None:
        """Replace the scenario's elements (pivots, springs, dampers, the ground, timed loads;
        JSON as in a scenario), all or nothing: a refused list raises FieldError and changes
        neither the simulation nor the drawing."""
        self.sim.set_elements(elements)
        self.refresh()

    def refresh(self, *, plot: bool = False) -> None:
        """Make the drawing follow the simulation: visual parameters, poses, plot, status."""
        if self.sim.version != self._version:
            specs = self.sim.scenario.bodies
            if [s.Name for s in specs] != [d.spec.Name for d in self.drawings if d.spec]:
                self._build_bodies()
            else:
                for d, spec in zip(self.drawings, specs, strict=True):
                    d.apply_spec(spec)
                self._build_elements(self.sim.scenario)
            self._version = self.sim.version
        self._draw_state()
        self.plot.add_frame(self.sim.frame())
        if self.plot.redraw(force=plot):
            self._show_status()

    def _draw_state(self) -> None:
        x = self.sim.state_array()
        for d, row in zip(self.drawings, x, strict=True):
            d.set_pose(row[0:3], row[3:7])
        if self.elements.elements:
            axes = joint_axes(self.sim.system, x)
            self.elements.update(self.sim.element_records(), self._weight, axes)

    def _show_status(self) -> None:
        sim = self.sim
        parts = [f"t = {sim.t:.3f} s", "running" if sim.running else "paused"]
        if sim.running:
            # simulated s per wall s, as achieved: the time scale times how well it keeps up
            parts.append(f"real-time factor {sim.rtf * sim.time_scale:.2f}")
            if sim.time_scale != 1.0:
                parts.append(f"time scale {sim.time_scale:g}")
        if sim.paused_reason:
            parts.append(f"<b>{sim.paused_reason}</b>")
        notes = [f"⚠ {d.spec.Name}: {w}" for d in self.drawings if d.spec for w in d.warnings]
        error = self._loop.error if self._loop is not None else self._last_error
        if error is not None:
            notes.append(f"⚠ the live loop stopped: {error}")
        self.status.value = " · ".join(parts) + "".join(f"<br>{n}" for n in notes)

    # ------------------------------------------------------------------ running

    @property
    def live(self) -> bool:
        """True while a live run is going (paused or not)."""
        return self._loop is not None and self._loop.active

    def step(self, n: int = 1) -> int:
        """Take n physics steps now (running or paused) and redraw; returns the steps taken."""
        taken = self.sim.step(n)
        self.refresh(plot=True)
        return taken

    def run(
        self, duration: float | None = 10.0, realtime: bool = True, *, fps: float | None = None
    ) -> LiveLoop | Recording:
        """Run for `duration` simulated seconds (None: until `stop()`, live only).

        realtime=True: live, paced by the wall clock times the time scale, from an asyncio
        task when the kernel's loop is running (the cell returns at once) or else from a
        thread; returns the LiveLoop (`await view.run(...).task` waits for a task,
        `.join()` for a thread). It ends at the first frame at or past the end time.

        realtime=False: compute first (sampled `fps` times per simulated second, default
        the view's frame rate), then play back in the browser with three.js keyframe
        tracks at the time scale; returns the Recording. The slider under the view scrubs
        through it. The simulation ends at the last sample either way.
        """
        self.stop()
        if duration is not None and not (math.isfinite(duration) and duration > 0):
            raise ValueError(f"duration: must be a finite number of seconds > 0, got {duration!r}")
        if not realtime:
            if duration is None:
                raise ValueError("duration: a computed run (realtime=False) needs a duration")
            return self._run_recorded(float(duration), float(fps or self.frame_rate))
        self._end_t = math.inf if duration is None else self.sim.t + float(duration)
        self.sim.resume()
        loop = LiveLoop(self._tick, 1.0 / float(fps or self.frame_rate))
        loop.on_end = lambda: self._end_live(loop)
        self._loop = loop
        loop.start()
        self.controls.sync_from_sim()
        return self._loop

    def _tick(self) -> bool:
        self.sim.advance()
        self.refresh()
        if self.sim.paused_reason:  # diverged: nothing more to show
            return False
        return self.sim.t < self._end_t - 0.5 * self.sim.step_size

    def _end_live(self, loop: LiveLoop) -> None:
        if loop is not self._loop:  # stopped by stop() (which paused) or replaced by a new run
            return
        self._loop, self._last_error = None, loop.error  # not live any more: Pause is released
        self.sim.pause()
        self.refresh(plot=True)
        self.controls.sync_from_sim()

    def stop(self) -> None:
        """End a live run (after its current frame) or a playback; the state stays where it is."""
        if self._loop is not None:
            self._loop.stop()
            self._loop.join(timeout=2.0)
            self._loop = None
            self.sim.pause()
        if self.action is not None:
            self.action.stop()
            self.action = None
        self._stop_follower()
        self._draw_state()

    def reset(self) -> None:
        """Back to the scenario's initial state at t = 0 (stops a run, clears the plot)."""
        self.stop()
        self.sim.reset()
        self.recording = None
        self.scrub.layout.display = "none"
        self.plot.clear()
        self.refresh(plot=True)
        self.controls.sync_from_sim()

    def set_time_scale(self, x: float) -> None:
        """Simulated seconds per wall second, [0.01, 100]; also the playback speed."""
        self.sim.set_time_scale(x)
        if self.action is not None:
            self.action.timeScale = self.sim.time_scale

    def load(self, scenario: ScenarioLike) -> None:
        """Replace the scenario (t = 0); bodies, controls and plot follow."""
        new = as_scenario(scenario)
        self.stop()
        self.sim.load(new)
        self.recording = None
        self.scrub.layout.display = "none"
        self.plot.body = self.sim.names[0]
        self.plot.clear()
        self._build_bodies()
        self.controls.set_body_names(self.sim.names)
        self.refresh(plot=True)
        self.fit()

    def _run_recorded(self, duration: float, fps: float) -> Recording:
        self.plot.seconds = max(self.plot.seconds, duration * 1.001)
        rec = record(self.sim, duration, fps, on_frame=self.plot.add_frame)
        self.recording = rec
        clip = animation_clip(rec, [d.group.name for d in self.drawings])
        mixer = p3.AnimationMixer(self.stage.ned)
        self.action = p3.AnimationAction(
            mixer,
            clip,
            self.stage.ned,
            loop="LoopOnce",
            clampWhenFinished=True,
            timeScale=self.sim.time_scale,
        )
        self._draw_state()  # Python's pose = the last sample; the browser animates up to it
        self.plot.redraw(force=True)
        self._show_status()
        with self.scrub.hold_trait_notifications():
            self.scrub.min, self.scrub.max = float(rec.times[0]), float(rec.times[-1])
            self.scrub.step = max(1e-3, rec.duration / 500)
        self.scrub.layout.display = ""
        self.fit()
        self.action.play()
        self._follow_playback()
        return rec

    def play(self) -> None:
        """Play the last recording again from its start (browser-side animation)."""
        if self.action is None:
            if self.recording is None:
                raise ValueError("play: nothing recorded yet; call run(duration, realtime=False)")
            clip = animation_clip(self.recording, [d.group.name for d in self.drawings])
            self.action = p3.AnimationAction(
                p3.AnimationMixer(self.stage.ned),
                clip,
                self.stage.ned,
                loop="LoopOnce",
                clampWhenFinished=True,
                timeScale=self.sim.time_scale,
            )
        self.action.reset()
        self.action.play()
        self._follow_playback()

    def _follow_playback(self) -> None:
        """Move the slider and the plot's time cursor along the browser's playback (by the
        wall clock: the animation runs at the time scale from when it starts)."""
        rec = self.recording
        if rec is None:
            return
        self._stop_follower()
        start, t0, t1 = time.monotonic(), float(rec.times[0]), float(rec.times[-1])
        scale = self.sim.time_scale

        def tick() -> bool:
            t = min(t1, t0 + (time.monotonic() - start) * scale)
            self._set_scrub(t)
            self.plot.cursor = t
            self.plot.redraw(force=True)
            return t < t1

        self._set_scrub(t0)
        self._follower = LiveLoop(tick, 1.0 / 15.0).start()

    def _stop_follower(self) -> None:
        if self._follower is not None:
            self._follower.stop()
            self._follower = None

    def seek(self, t: float) -> None:
        """Show the recorded pose nearest to t (s); stops a playing animation."""
        if self.recording is None:
            return
        if self.action is not None:
            self.action.stop()
            self.action = None
        i = self.recording.index_at(t)
        for j, d in enumerate(self.drawings):
            d.set_pose(self.recording.pos[i, j], self.recording.quat[i, j])

    def _set_scrub(self, t: float) -> None:
        # move the slider without seeking (which would stop the animation about to play)
        self._quiet_scrub = True
        try:
            self.scrub.value = t
        finally:
            self._quiet_scrub = False

    def _on_scrub(self, change: dict) -> None:
        if not self._quiet_scrub:
            self._stop_follower()
            self.seek(change["new"])
            self.plot.cursor = float(change["new"])
            self.plot.redraw(force=True)
