"""Running in the kernel: a live loop that never blocks it, and compute-then-play recordings.

Live (`LiveLoop`): one callback per frame, from an asyncio task when the kernel's event
loop is running (Jupyter: the loop that also delivers widget messages, so sliders act
between frames), otherwise from a daemon thread (a plain Python script or a test). The
simulation paces itself on the wall clock (LiveSimulation.advance); the loop only asks.

Recorded (`record`, `animation_clip`): step the simulation through `duration` first,
sampling the pose `fps` times per simulated second, then hand the browser keyframe
tracks (three.js AnimationClip) so it plays back smoothly with no kernel traffic.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pythreejs as p3

from ..simulation import LiveSimulation
from .frames import quat_to_three

Tick = Callable[[], bool]  # returns False to end the loop


class LiveLoop:
    """Calls `tick` every `period` seconds of wall time until it returns False or `stop()`."""

    def __init__(self, tick: Tick, period: float, on_end: Callable[[], None] | None = None) -> None:
        self.tick = tick
        self.period = float(period)
        self.on_end = on_end
        self.task: asyncio.Task | None = None
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self._stop = threading.Event()

    @property
    def mode(self) -> str:
        return "task" if self.task is not None else "thread" if self.thread is not None else ""

    @property
    def active(self) -> bool:
        if self.task is not None:
            return not self.task.done()
        return self.thread is not None and self.thread.is_alive()

    def start(self) -> LiveLoop:
        """Start as an asyncio task if this thread runs an event loop, else as a thread."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self.task = loop.create_task(self._run_async())
        else:
            self.thread = threading.Thread(target=self._run_thread, name="sixdof-live", daemon=True)
            self.thread.start()
        return self

    def stop(self) -> None:
        """Ask the loop to end after the current frame (does not wait)."""
        self._stop.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for a thread loop to end; True when it has (tasks: use `await loop.task`)."""
        if self.thread is not None:
            self.thread.join(timeout)
            return not self.thread.is_alive()
        return not self.active

    def _once(self) -> bool:
        if self._stop.is_set():
            return False
        try:
            return bool(self.tick())
        except Exception as exc:  # reported by the view; a dead loop must not kill the kernel
            self.error = exc
            return False

    def _finish(self) -> None:
        if self.on_end is not None:
            self.on_end()

    async def _run_async(self) -> None:
        try:
            next_time = time.monotonic()
            while self._once():
                next_time += self.period
                await asyncio.sleep(max(0.0, next_time - time.monotonic()))
                next_time = max(next_time, time.monotonic() - self.period)  # no burst after a stall
        finally:
            self._finish()

    def _run_thread(self) -> None:
        try:
            next_time = time.monotonic()
            while self._once():
                next_time += self.period
                if self._stop.wait(max(0.0, next_time - time.monotonic())):
                    break
                next_time = max(next_time, time.monotonic() - self.period)
        finally:
            self._finish()


@dataclass
class Recording:
    """Poses sampled during a computed run: times (T,) s, pos (T, N, 3) NED, quat (T, N, 4) wxyz."""

    times: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    names: list[str]

    @property
    def duration(self) -> float:
        return float(self.times[-1] - self.times[0]) if self.times.size else 0.0

    def index_at(self, t: float) -> int:
        """The sample nearest to t (s, simulation time)."""
        return int(np.argmin(np.abs(self.times - t)))


def record(
    sim: LiveSimulation,
    duration: float,
    fps: float,
    on_frame: Callable[[dict], None] | None = None,
) -> Recording:
    """Step `sim` through `duration` simulated seconds now, sampling every 1/fps s.

    The sample interval is a whole number of steps (≥ 1) of the simulation's step, so
    the samples fall on steps; the last sample is at the first step ≥ start + duration.
    `on_frame(sim.frame())` is called for every sample (for plots). A divergence pauses
    the simulation and ends the recording early (sim.paused_reason says why).
    """
    if not (math.isfinite(duration) and duration > 0):
        raise ValueError(f"duration: must be a finite number of seconds > 0, got {duration!r}")
    if not (math.isfinite(fps) and 1.0 <= fps <= 240.0):
        raise ValueError(f"fps: must be in [1, 240] frames per second, got {fps!r}")
    h = sim.step_size
    per_sample = max(1, round(1.0 / (fps * h)))
    total = max(1, math.ceil(duration / h - 1e-9))
    times, poses = [], []

    def sample() -> None:
        x = sim.state_array()
        times.append(sim.t)
        poses.append(x[:, 0:7].copy())
        if on_frame is not None:
            on_frame(sim.frame())

    sample()
    done = 0
    while done < total:
        k = min(per_sample, total - done)
        taken = sim.step(k)
        done += taken
        sample()
        if taken < k:  # diverged: sim paused itself at the last good state
            break
    arr = np.asarray(poses)
    return Recording(np.asarray(times), arr[:, :, 0:3], arr[:, :, 3:7], list(sim.names))


def animation_clip(rec: Recording, group_names: list[str]) -> p3.AnimationClip:
    """Keyframe tracks "<group>.position" and "<group>.quaternion" for every body.

    Values are the group's local pose inside the NED root (Pos as is, Quater as
    three.js x, y, z, w); times start at zero. three.js interpolates positions linearly
    and quaternions by slerp between samples.
    """
    t = (rec.times - rec.times[0]).astype(np.float32)
    tracks = []
    for i, name in enumerate(group_names):
        tracks.append(
            p3.VectorKeyframeTrack(
                name=f"{name}.position", times=t, values=rec.pos[:, i].astype(np.float32)
            )
        )
        q = quat_to_three(rec.quat[:, i]).astype(np.float32)
        tracks.append(p3.QuaternionKeyframeTrack(name=f"{name}.quaternion", times=t, values=q))
    return p3.AnimationClip(name="recording", tracks=tracks, duration=float(t[-1]))
