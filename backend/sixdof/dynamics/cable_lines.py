"""What a cable measures and holds, read from its states (numpy, no numba): every node's
position, each segment's tension, the force at each end, the length on the seabed and its
energy (kinds/cable.py states the model; docs/physics.md, "Cable").

Per cable (`Line`): `nodes` (n + 1, 3, NED, m; node 0 is the body point a, node n the other
end b), `tension` (n,, N; segment k from node k to k + 1), `force_a` and `force_b` (N,
global): what the line puts on its end a (its body) and on its end b (the other body, or
what an anchor must hold), each the end segment's tension along it plus the half segment's
weight, as the kernels' act_states and act_other compute them (axial damping included),
`seabed_length` (m) and `energy` (J).

Per body (`cable_outputs`, the outputs CableForce, CableTension, CableSeabedLength of
output_table.py): the sum of the forces its cables put on it at either end, the largest
tension of the cables that end on it, the length on the seabed of the cables naming it as
`body`. Zero on a body without cables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .elements import Cable, System, state_slices
from .kinds.poses import Poses
from .params import Bodies
from .quaternion import Array

#: (name, width) of the per-body outputs this module fills, all zero without cables.
CABLE_OUTPUTS = (("CableForce", 3), ("CableTension", 1), ("CableSeabedLength", 1))


@dataclass(frozen=True)
class Line:
    """One cable now (the module docstring says what each field is)."""

    nodes: Array
    tension: Array
    force_a: Array
    force_b: Array
    seabed_length: float
    energy: float


def has_cables(system: System | None) -> bool:
    return system is not None and any(isinstance(e, Cable) for e in system.elements)


def weight_per_length(e: Cable, gravity: float, z: float) -> float:
    """Its weight per metre at depth z (NED), N/m: in water (buoyant) below the level."""
    wet = z > e.level and e.density > 0.0
    return gravity * (e.mass_per_length - (e.density * math.pi * e.diameter**2 / 4 if wet else 0.0))


def _weights(e: Cable, gravity: float, z: Array) -> Array:
    """weight_per_length at each depth of z, N/m."""
    buoyancy = e.density * math.pi * e.diameter**2 / 4 if e.density > 0.0 else 0.0
    return gravity * (e.mass_per_length - np.where(z > e.level, buoyancy, 0.0))


def shape(e: Cable, z: Array, a: Array, b: Array) -> tuple[Array, Array, float]:
    """Every node's position (n + 1, 3) from the ends a, b and its states z, each
    segment's tension (n,) without the axial damping's part (zero at rest) and its
    unstretched segment length."""
    n = e.segments
    nodes = np.vstack([a, np.asarray(z[1:], dtype=float).reshape(n - 1, 6)[:, :3], b])
    seg = float(z[0]) / n
    stretch = np.linalg.norm(np.diff(nodes, axis=0), axis=1) / seg - 1.0
    return nodes, e.axial_stiffness * np.maximum(stretch, 0.0), seg


def seabed_length(e: Cable, z: Array, a: Array, b: Array, gravity: float) -> float:
    """The length of line the seabed carries, m: each inner node's share l of the line in
    proportion to the seabed's force on it over its weight (0 to 1), an end at or below the
    seabed its half segment."""
    if e.depth is None:
        return 0.0
    nodes, _, seg = shape(e, z, a, b)
    return _seabed(e, nodes, seg, gravity)


def _seabed(e: Cable, nodes: Array, seg: float, gravity: float) -> float:
    if e.depth is None:
        return 0.0
    bed = e.level + e.depth
    w = weight_per_length(e, gravity, bed) * seg
    pen = np.maximum(nodes[1:-1, 2] - bed, 0.0)
    share = e.kappa() * seg * pen / w if w > 0 else np.zeros_like(pen)
    carried = float(np.clip(share, 0.0, 1.0).sum()) * seg
    ends = sum(0.5 * seg for p in (nodes[0], nodes[-1]) if p[2] >= bed - 1e-6)
    return carried + ends


def energy(e: Cable, z: Array, a: Array, b: Array, gravity: float) -> float:
    """Its elastic energy, its inner nodes' kinetic energy and their potential in gravity
    (weight in water below the level, as the kernel's), J; the half segments at the ends
    are loads on their bodies: their potential −w l / 2 · z at each end."""
    nodes, _, seg = shape(e, z, a, b)
    v = np.asarray(z[1:], dtype=float).reshape(e.segments - 1, 6)[:, 3:]
    return _energy(e, nodes, v, seg, gravity)


def _energy(e: Cable, nodes: Array, v: Array, seg: float, gravity: float) -> float:
    """`energy` of the nodes (n + 1, 3) and the inner nodes' velocities v (n − 1, 3)."""
    ell = np.sqrt(np.einsum("ij,ij->i", d := np.diff(nodes, axis=0), d))
    elastic = 0.5 * e.axial_stiffness * seg * float(np.sum(np.maximum(ell / seg - 1.0, 0.0) ** 2))
    kinetic = 0.5 * e.mass_per_length * seg * float(np.sum(v * v))
    share = np.full(len(nodes), seg)
    share[[0, -1]] = seg / 2
    potential = -float(np.sum(_weights(e, gravity, nodes[:, 2]) * share * nodes[:, 2]))
    return elastic + kinetic + potential


def _motion(poses: Poses, i: int, point: tuple[float, float, float]) -> tuple[Array, Array]:
    """Body i's point: its world position and velocity."""
    x, r = poses.x[i], poses.rot[i]
    w, (px, py, pz) = x[10:13], point  # ω × p by hand: np.cross costs ~5 µs a call
    spin = np.array([w[1] * pz - w[2] * py, w[2] * px - w[0] * pz, w[0] * py - w[1] * px])
    return x[0:3] + r @ np.asarray(point, dtype=float), r @ (x[7:10] + spin)


def line(e: Cable, z: Array, poses: Poses) -> Line:
    """Cable e with its states z (its slice) on bodies at `poses`."""
    a, va = _motion(poses, e.body, e.point)
    if e.other is None:
        b, vb = np.asarray(e.to, dtype=float), np.zeros(3)
    else:
        b, vb = _motion(poses, e.other, e.to)
    n = e.segments
    inner = np.asarray(z[1:], dtype=float).reshape(n - 1, 6)
    nodes = np.empty((n + 1, 3))
    vel = np.empty((n + 1, 3))
    nodes[0], nodes[1:n], nodes[n] = a, inner[:, :3], b
    vel[0], vel[1:n], vel[n] = va, inner[:, 3:], vb
    seg = float(z[0]) / n
    d = np.diff(nodes, axis=0)
    ell = np.sqrt(np.einsum("ij,ij->i", d, d))
    u = d / np.where(ell > 0.0, ell, 1.0)[:, None]
    rate = np.einsum("ij,ij->i", np.diff(vel, axis=0), u)
    t = e.axial_stiffness * (ell / seg - 1.0) + e.axial_damping * rate / seg
    tension = np.where(ell > seg, np.maximum(t, 0.0), 0.0)
    g_a = float(poses.bodies.gravity[e.body])
    g_b = g_a if e.other is None else float(poses.bodies.gravity[e.other])
    force_a = tension[0] * u[0] + [0.0, 0.0, weight_per_length(e, g_a, a[2]) * seg / 2]
    force_b = -tension[-1] * u[-1] + [0.0, 0.0, weight_per_length(e, g_b, b[2]) * seg / 2]
    return Line(nodes, tension, force_a, force_b, _seabed(e, nodes, seg, g_a),
                _energy(e, nodes, inner[:, 3:], seg, g_a))  # fmt: skip


def lines(system: System | None, bodies: Bodies, x: Array, z: Array | None) -> list[Line | None]:
    """Each element's Line (None for the other kinds), in the order given; z: the system's
    element states (None: their initial ones)."""
    if system is None or not has_cables(system):
        return [None] * (0 if system is None else len(system.elements))
    zs = system.initial_states() if z is None else np.asarray(z, dtype=float)
    poses = Poses.of(bodies, x)
    return [
        line(e, zs[s], poses) if isinstance(e, Cable) else None
        for e, s in zip(system.elements, state_slices(system), strict=True)
    ]


def cable_energy(system: System | None, bodies: Bodies, x: Array, z: Array | None) -> Array:
    """(N,) J: the energy of the cables naming each body as `body` (StoredEnergy's part)."""
    out = np.zeros(len(np.atleast_2d(x)))
    if system is None:
        return out
    for e, found in zip(system.elements, lines(system, bodies, x, z), strict=True):
        if found is not None:
            out[e.body] += found.energy
    return out


def zero_cable_outputs(n: int) -> dict[str, Array]:
    return {name: np.zeros(n) if w == 1 else np.zeros((n, w)) for name, w in CABLE_OUTPUTS}


def cable_outputs(
    system: System | None, bodies: Bodies, x: Array, z: Array | None
) -> dict[str, Array]:
    """The three per-body outputs (N, …) of the bodies at states x (N, 13), the system's
    element states z (None: their initial ones)."""
    out = zero_cable_outputs(len(np.atleast_2d(x)))
    if system is None or not has_cables(system):
        return out
    for e, c in zip(system.elements, lines(system, bodies, x, z), strict=True):
        if c is None or not isinstance(e, Cable):
            continue
        top = float(c.tension.max())
        out["CableForce"][e.body] += c.force_a
        out["CableTension"][e.body] = max(out["CableTension"][e.body], top)
        out["CableSeabedLength"][e.body] += c.seabed_length
        if e.other is not None:
            out["CableForce"][e.other] += c.force_b
            out["CableTension"][e.other] = max(out["CableTension"][e.other], top)
    return out


__all__ = [
    "CABLE_OUTPUTS",
    "Line",
    "cable_energy",
    "cable_outputs",
    "energy",
    "has_cables",
    "line",
    "lines",
    "seabed_length",
    "shape",
    "weight_per_length",
    "zero_cable_outputs",
]
