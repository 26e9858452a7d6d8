"""`sixdof inspect FILE`: a mesh file's mass properties, as a body with InertiaFrom would get
them (the same reader, checks and integrals: scenario/body_mesh.py)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, TextIO

from .common import EXIT_OK, BadInput


def report(path: Any, density: float | None, mass: float | None, shell: bool,
           units: str) -> dict[str, Any]:  # fmt: skip
    """What `inspect` prints, as a dict (SI units; lengths from the file's origin)."""
    import numpy as np

    from ..dynamics.mesh_inertia import principal, shell_moments, solid_moments, tensor_entries
    from ..meshfiles import UNITS, MeshFileError, load_mesh

    try:
        mesh = load_mesh(path)
    except MeshFileError as exc:
        raise BadInput(str(exc)) from None
    tri = mesh.triangles() * UNITS[units]
    kind = "shell" if shell else "solid"
    if kind == "solid" and not mesh.closed:
        why = (f"{mesh.boundary_edges} boundary edges" if mesh.boundary_edges
               else "its triangles are wound inconsistently")  # fmt: skip
        raise BadInput(
            f"{mesh.name} is open: {why}; solid mass properties need a closed mesh "
            "(--shell weighs its surface)"
        )
    try:
        moments = shell_moments(tri) if shell else solid_moments(tri)
    except ValueError as exc:
        raise BadInput(f"{mesh.name}: {exc}") from None
    if mass is None:
        density = 1000.0 if density is None else density
        mass = density * moments.measure
    density = mass / moments.measure
    for name, value in (("--density", density), ("--mass", mass)):
        if not (math.isfinite(value) and value > 0):
            raise BadInput(f"{name}: must be a positive number, got {value:g}")
    tensor = moments.inertia(density)
    principal_moments, axes = principal(tensor)
    low, high = tri.reshape(-1, 3).min(0), tri.reshape(-1, 3).max(0)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = float(np.linalg.norm(normals, axis=1).sum() / 2)
    return {
        "file": mesh.name,
        "triangles": len(mesh.faces),
        "closed": mesh.closed,
        "boundary_edges": mesh.boundary_edges,
        "winding": mesh.winding,
        "units": units,
        "bounds": [low.tolist(), high.tolist()],
        "area": area,
        "volume": moments.measure if not shell else None,
        "InertiaFrom": kind,
        "Density": density,
        "Mass": mass,
        "CGOffset": moments.centroid.tolist(),
        "Inertia": list(tensor_entries(tensor)),
        "principal_moments": principal_moments.tolist(),
        "principal_axes": axes.T.tolist(),
    }


def _text(r: dict[str, Any]) -> str:
    def vec(v: list[float]) -> str:
        return "(" + ", ".join(f"{x:.6g}" for x in v) + ")"

    per = "m²" if r["InertiaFrom"] == "shell" else "m³"
    closed = "closed" if r["closed"] else f"open, {r['boundary_edges']} boundary edges"
    lines = [
        f"{r['file']}: {r['triangles']:,} triangles, {closed}, winding {r['winding']}, "
        f"units {r['units']}",
        f"  bounds     {vec(r['bounds'][0])} .. {vec(r['bounds'][1])} m",
        f"  area       {r['area']:.6g} m²"
        + ("" if r["volume"] is None else f", volume {r['volume']:.6g} m³"),
        f"  {r['InertiaFrom']:<10} Density {r['Density']:.6g} kg/{per}, Mass {r['Mass']:.6g} kg",
        f"  CGOffset   {vec(r['CGOffset'])} m from the file's origin",
        f"  Inertia    {vec(r['Inertia'])} kg·m² (Ixx, Iyy, Izz, Ixy, Ixz, Iyz about the CG)",
        f"  principal  {vec(r['principal_moments'])} kg·m² about the axes",
    ]
    lines += [f"             {vec(axis)}" for axis in r["principal_axes"]]
    return "\n".join(lines)


def handle(args: argparse.Namespace, err: TextIO) -> int:
    import sys

    r = report(args.input, args.density, args.mass, args.shell, args.units)
    print(json.dumps(r, indent=1) if args.json else _text(r), file=sys.stdout)
    return EXIT_OK
