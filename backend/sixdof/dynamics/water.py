"""Water: density, still level, a uniform current and linear (Airy) waves (DESIGN.md section 8).

NED, z down: the still surface is the plane z = `level`; a wave component of amplitude a,
period T and direction β (degrees, 0 = travelling north, 90 = travelling east) raises the
surface by

    η(x, y, t) = Σ a cos(ω t − k (x cos β + y sin β)),      ω = 2π / T,
    ω² = g k tanh(k h)   (finite depth h),   ω² = g k   (deep water, depth None),

so the surface is at z = level − η. The pressure below it (gauge, linear Airy theory, the
Froude–Krylov pressure of the undisturbed waves) at depth d = z − level is

    p = ρ g (d + Σ a f(d) cos(…)),   f(d) = e^{−k d} (deep),  cosh(k (h − d)) / cosh(k h),

with d taken as 0 above the still level (so p is zero exactly on the wave surface there:
p = ρ g (z − (level − η))) and as h below the bottom. The hull is wetted where p > 0.

Numpy versions of the compiled code (kinds/buoyancy.py), for outputs and tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .quaternion import Array

Vec3 = tuple[float, float, float]
#: Numbers per wave component in the kernels' aux array: a, ω, k, cos β, sin β.
WAVE_SIZE = 5


@dataclass(frozen=True)
class Wave:
    amplitude: float  # m
    period: float  # s
    direction: float = 0.0  # degrees, 0 = travelling north (+x), 90 = east (+y)


@dataclass(frozen=True)
class Water:
    density: float = 1025.0  # kg/m³
    level: float = 0.0  # NED z of the still surface, m
    current: Vec3 = (0.0, 0.0, 0.0)  # NED, m/s
    waves: tuple[Wave, ...] = field(default=())
    depth: float | None = None  # m below the still level; None: deep water


def wave_number(omega: float, gravity: float, depth: float | None) -> float:
    """k of ω² = g k tanh(k h) (Newton from the deep-water k₀ = ω²/g; tanh kh ≥ … keeps it
    monotone), or ω²/g in deep water."""
    k0 = omega * omega / gravity
    if depth is None or k0 == 0.0:
        return k0
    # start above the root (k ≥ k₀ always; shallow water k ≈ ω / √(g h)): Newton on the
    # concave-convex f(k) = g k tanh(k h) − ω² converges monotonically from the right
    k = max(k0, omega / math.sqrt(gravity * depth))
    for _ in range(100):
        th = math.tanh(k * depth)
        f = gravity * k * th - omega * omega
        df = gravity * (th + k * depth * (1.0 - th * th))
        step = f / df
        k -= step
        if abs(step) <= 1e-15 * k:
            break
    return k


def wave_table(water: Water, gravity: float) -> Array:
    """(W, WAVE_SIZE): a, ω, k, cos β, sin β of each component, for the kernels."""
    rows = []
    for w in water.waves:
        omega = 2.0 * math.pi / w.period
        beta = math.radians(w.direction)
        k = wave_number(omega, gravity, water.depth)
        rows.append((w.amplitude, omega, k, math.cos(beta), math.sin(beta)))
    return np.asarray(rows, dtype=float).reshape(-1, WAVE_SIZE)


def elevation(water: Water, gravity: float, t: float, x: Array, y: Array) -> Array:
    """η at world points (x, y) and time t, m, positive up (the surface is at level − η)."""
    x = np.asarray(x, dtype=float)
    eta = np.zeros_like(x)
    for a, om, k, cb, sb in wave_table(water, gravity):
        eta = eta + a * np.cos(om * t - k * (x * cb + np.asarray(y) * sb))
    return eta


def pressure(water: Water, gravity: float, t: float, points: Array) -> Array:
    """Gauge pressure (module docstring) at world points (…, 3), Pa; negative above water."""
    pts = np.asarray(points, dtype=float)
    d = pts[..., 2] - water.level
    head = d.copy()
    dc = np.maximum(d, 0.0)
    if water.depth is not None:
        dc = np.minimum(dc, water.depth)
    for a, om, k, cb, sb in wave_table(water, gravity):
        if water.depth is None:
            f = np.exp(-k * dc)
        else:
            h = water.depth
            f = (np.exp(-k * dc) + np.exp(-k * (2.0 * h - dc))) / (1.0 + np.exp(-2.0 * k * h))
        head = head + a * f * np.cos(om * t - k * (pts[..., 0] * cb + pts[..., 1] * sb))
    return water.density * gravity * head


def hull_load(triangles: Array, pressures: Array, about: Array) -> tuple[Array, Array, float]:
    """Force and moment (about `about`) of the gauge pressure on the wetted part of a closed
    triangle mesh (world triangles (T, 3, 3), outward, vertex pressures (T, 3)), clipped where
    the pressure, linear over each triangle, is zero: (F, M, wetted area). The kernel's
    algorithm, written with numpy for outputs and checks."""
    force = np.zeros(3)
    moment = np.zeros(3)
    area = 0.0

    def panel(a: Array, b: Array, c: Array, pa: float, pb: float, pc: float) -> None:
        nonlocal force, moment, area
        s = 0.5 * np.cross(b - a, c - a)
        la, lb, lc = a - about, b - about, c - about
        force = force - (pa + pb + pc) / 3.0 * s
        q = (pa * la + pb * lb + pc * lc + (pa + pb + pc) * (la + lb + lc)) / 12.0
        moment = moment - np.cross(q, s)
        area += float(np.linalg.norm(s))

    for tri, pr in zip(triangles, pressures, strict=True):
        wet = pr > 0.0
        n = int(wet.sum())
        if n == 0:
            continue
        if n == 3:
            panel(tri[0], tri[1], tri[2], *pr)
            continue
        # rotate so that the odd vertex comes first, keeping the cyclic order
        odd = int(np.flatnonzero(wet)[0]) if n == 1 else int(np.flatnonzero(~wet)[0])
        idx = [odd, (odd + 1) % 3, (odd + 2) % 3]
        a, b, c = tri[idx]
        pa, pb, pc = pr[idx]
        ab = a + pa / (pa - pb) * (b - a)
        ac = a + pa / (pa - pc) * (c - a)
        if n == 1:
            panel(a, ab, ac, pa, 0.0, 0.0)
        else:
            panel(ab, b, c, 0.0, pb, pc)
            panel(ab, c, ac, 0.0, pc, 0.0)
    return force, moment, area


__all__ = [
    "WAVE_SIZE",
    "Water",
    "Wave",
    "elevation",
    "hull_load",
    "pressure",
    "wave_number",
    "wave_table",
]
