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
    algorithm, written with numpy for outputs and checks: every triangle at once (a loop
    over the triangles in Python took a second a call on a 960-facet hull)."""
    tri = np.asarray(triangles, dtype=float).reshape(-1, 3, 3)
    pr = np.asarray(pressures, dtype=float).reshape(-1, 3)
    about = np.asarray(about, dtype=float)
    wet = pr > 0.0
    n = wet.sum(axis=1)
    force, moment, area = np.zeros(3), np.zeros(3), 0.0

    def panels(a: Array, b: Array, c: Array, pa: Array, pb: Array, pc: Array) -> None:
        nonlocal force, moment, area
        s = 0.5 * np.cross(b - a, c - a)
        la, lb, lc = a - about, b - about, c - about
        total = (pa + pb + pc)[:, None]
        force = force - (total / 3.0 * s).sum(axis=0)
        q = (pa[:, None] * la + pb[:, None] * lb + pc[:, None] * lc + total * (la + lb + lc)) / 12.0
        moment = moment - np.cross(q, s).sum(axis=0)
        area += float(np.linalg.norm(s, axis=1).sum())

    full = n == 3
    panels(tri[full, 0], tri[full, 1], tri[full, 2], pr[full, 0], pr[full, 1], pr[full, 2])
    cut = (n == 1) | (n == 2)
    if cut.any():
        # rotate so that the odd vertex comes first, keeping the cyclic order
        t, p, w, k = tri[cut], pr[cut], wet[cut], n[cut]
        odd = np.where(k == 1, np.argmax(w, axis=1), np.argmax(~w, axis=1))
        idx = (odd[:, None] + np.arange(3)) % 3
        rows = np.arange(len(t))[:, None]
        t, p = t[rows, idx], p[rows, idx]
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        pa, pb, pc = p[:, 0], p[:, 1], p[:, 2]
        one = k == 1
        with np.errstate(divide="ignore", invalid="ignore"):  # a dry pair's own edge
            ab = a + (pa / (pa - pb))[:, None] * (b - a)
            ac = a + (pa / (pa - pc))[:, None] * (c - a)
        zero = np.zeros(int(one.sum()))
        panels(a[one], ab[one], ac[one], pa[one], zero, zero)
        two = ~one
        zero = np.zeros(int(two.sum()))
        panels(ab[two], b[two], c[two], zero, pb[two], pc[two])
        panels(ab[two], c[two], ac[two], zero, pc[two], zero)
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
