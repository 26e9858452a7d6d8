"""`sixdof bem`: a floating body's hull through Capytaine, written as the NetCDF Capytaine
writes, for the `radiation` element (scenario/bem_file.py reads it back).

The hull is what sixdof floats: the body's drawn shape (`scenario.shapes.hull_triangles`),
upright at its still-water equilibrium (analysis/hydrostatics: the draft where ρ∇ = m, the
trim free), in Capytaine's axes (x forward, y to port, z up, still water at z = 0) and about
the body's reference point, so the coefficients are those the element wants once
scenario/bem_file turns them into sixdof's axes. Frequencies, unless given, run from a tenth
of the hull's heave natural frequency's neighbourhood to where its largest panel is an eighth
of a wavelength (Capytaine's own rule for a mesh fine enough), with the infinite frequency
for A∞. Capytaine is the `bem` extra: imported only here, when a job runs.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scenario.elements import BuoyancyElement
from ..scenario.shapes import hull_triangles
from .hydrostatics import float_at, rotation

if TYPE_CHECKING:
    from ..scenario import Scenario

#: Frequencies a job computes unless told (and the most it accepts).
DEFAULT_FREQUENCIES = 60
MAX_FREQUENCIES = 1000
_DOFS = ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")


class BemError(ValueError):
    """A job that cannot be set up or run: the message names the body, option or library."""


@dataclass(frozen=True)
class BemJob:
    """One hull for Capytaine, in its axes (module docstring)."""

    body: str
    vertices: np.ndarray  # (V, 3)
    faces: np.ndarray  # (F, 3) vertex indices
    centre: np.ndarray  # (3,) the body's reference point
    cg: np.ndarray  # (3,)
    mass: float
    omega: np.ndarray  # rad/s, increasing (np.inf added when run)
    wave_directions: np.ndarray  # rad, Capytaine's (from x toward port): −sixdof's
    rho: float
    gravity: float
    depth: float  # m, inf for deep water
    trim: float  # rad, the free trim the hull floats at

    @property
    def panel_radius(self) -> float:
        """The largest panel's radius (centroid to its farthest corner), m."""
        tri = self.vertices[self.faces]
        centroid = tri.mean(axis=1, keepdims=True)
        return float(np.sqrt(((tri - centroid) ** 2).sum(axis=2)).max())


def job_for(
    scenario: Scenario,
    body: str | None = None,
    *,
    omega: tuple[float, float, int] | None = None,
    headings_deg: tuple[float, ...] = (0.0,),
    frequencies: int | None = None,
    panel: float | None = None,
) -> BemJob:
    """The job for `body` of `scenario` (the only floating body when None): `omega` as
    (first, last, count) in rad/s, the wave headings in degrees as scenarios give them;
    `frequencies`: the count over the chosen range, when `omega` is not given; `panel`: the
    largest panel's radius (m) the hull's triangles are split down to (a box's 12 triangles
    are no BEM mesh: its damping comes out negative)."""
    floating = [e.body for e in scenario.elements if isinstance(e, BuoyancyElement)]
    names = [b.Name for b in scenario.bodies]
    if body is None:
        if len(floating) != 1:
            found = ", ".join(floating) or "none"
            raise BemError(f"--body: name the floating body (floating bodies: {found})")
        body = floating[0]
    if body not in names:
        raise BemError(f"--body: no body {body!r} (bodies: {', '.join(names)})")
    spec = next(b for b in scenario.bodies if b.Name == body)
    water = scenario.water
    rho = water.density if water is not None else 1025.0
    depth = math.inf if water is None or water.depth is None else float(water.depth)
    if not spec.Gravity > 0:
        raise BemError(f"{body}: Gravity is {spec.Gravity:g} m/s²; water waves need gravity")
    params = spec.params()
    cg = np.asarray(spec.CGOffset, dtype=float)
    hull = np.asarray(hull_triangles(spec), dtype=float) - cg
    try:
        floating_at = float_at(hull, params.mass / rho, 0.0, None)
    except (ValueError, FloatingPointError, ZeroDivisionError) as exc:
        raise BemError(f"{body}: its hull does not float at its mass ({exc})") from None
    turn = rotation(0.0, floating_at.trim)

    def to_capytaine(points: np.ndarray) -> np.ndarray:
        world = points @ turn.T  # CG-centred, NED
        return np.stack([world[..., 0], -world[..., 1], floating_at.level - world[..., 2]], -1)

    vertices, index = np.unique(
        np.round(to_capytaine(hull).reshape(-1, 3), 12), axis=0, return_inverse=True
    )
    faces = index.reshape(-1, 3)
    if panel is not None:
        vertices, faces = refine(vertices, faces, panel)
    job = BemJob(
        body=body,
        vertices=vertices,
        faces=faces,
        centre=to_capytaine(-cg),
        cg=to_capytaine(np.zeros(3)),
        mass=params.mass,
        omega=np.zeros(0),
        wave_directions=-np.radians(np.asarray(headings_deg, dtype=float)),
        rho=rho,
        gravity=float(spec.Gravity),
        depth=depth,
        trim=floating_at.trim,
    )
    first, last, count = omega if omega is not None else _frequencies(job)
    if omega is None and frequencies is not None:
        count = frequencies
    if not (0 < first < last and 2 <= count <= MAX_FREQUENCIES):
        option = "frequencies" if omega is None else "--omega"
        raise BemError(
            f"{option}: want 0 < first < last and 2 to {MAX_FREQUENCIES} frequencies, "
            f"got {first:g}:{last:g}:{count}"
        )
    return _with_omega(job, np.linspace(first, last, count))


#: The most panels a hull is split into (`panel`): Capytaine's cost grows as their square.
MAX_PANELS = 20_000


def refine(vertices: np.ndarray, faces: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    """The triangles split in four at their edges' midpoints until the largest one's radius
    (centroid to farthest corner) is at most `size` m: the same surface, finer panels (a flat
    face stays flat; a faceted curve keeps its facets). Shared edges split alike: no cracks."""
    if not size > 0:
        raise BemError(f"--panel: a panel size in metres > 0, got {size:g}")
    while True:
        tri = vertices[faces]
        radius = np.sqrt(((tri - tri.mean(axis=1, keepdims=True)) ** 2).sum(axis=2)).max()
        if radius <= size:
            return vertices, faces
        if 4 * len(faces) > MAX_PANELS:
            raise BemError(
                f"--panel: {size:g} m needs over {MAX_PANELS} panels for this hull "
                f"(its largest is {radius:.3g} m); give a larger size"
            )
        a, b, c = faces.T
        mid = np.concatenate([(vertices[a] + vertices[b]) / 2, (vertices[b] + vertices[c]) / 2,
                              (vertices[c] + vertices[a]) / 2])  # fmt: skip
        points = np.concatenate([vertices, mid])
        vertices, index = np.unique(np.round(points, 12), axis=0, return_inverse=True)
        n, f = len(points) - len(mid), len(faces)
        a, b, c = index[a], index[b], index[c]
        ab, bc, ca = index[n : n + f], index[n + f : n + 2 * f], index[n + 2 * f :]
        faces = np.concatenate(
            [np.stack(t, axis=1) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))]
        )


def _with_omega(job: BemJob, omega: np.ndarray) -> BemJob:
    from dataclasses import replace

    return replace(job, omega=omega)


def _frequencies(job: BemJob) -> tuple[float, float, int]:
    """From a fifth of the hull's shortest natural frequency to where its largest panel is an
    eighth of a deep-water wavelength (λ = 2πg/ω²)."""
    size = float(np.ptp(job.vertices[:, :2], axis=0).max()) or 1.0
    low = 0.2 * math.sqrt(job.gravity / size)
    high = math.sqrt(2 * math.pi * job.gravity / (8 * job.panel_radius))
    return low, max(high, 4 * low), DEFAULT_FREQUENCIES


def run(
    job: BemJob,
    *,
    progress: bool = False,
    quiet: bool = False,
    done: Callable[[int, int], None] | None = None,
) -> Any:
    """Capytaine's dataset for `job` (radiation at every frequency and at infinity,
    diffraction and Froude–Krylov at every heading, hydrostatics); `quiet`: Capytaine's
    warnings (a mesh too coarse for the highest frequencies, …) not shown; `done`: told the
    frequencies solved and of how many (the infinite one counted) after each, the problems
    then solved a frequency at a time (the server's job reports it: server/bem.py)."""
    try:
        import capytaine as cpt
        import xarray as xr
    except ImportError:
        raise BemError("sixdof bem needs Capytaine: pip install 'sixdof[bem]'") from None
    cpt.set_logging("ERROR" if quiet else "WARNING")
    mesh = cpt.Mesh(vertices=job.vertices, faces=job.faces, name=job.body)
    immersed = mesh.immersed_part()
    body = cpt.FloatingBody(
        mesh=immersed,
        lid_mesh=immersed.generate_lid(),  # against the irregular frequencies of a pierced hull
        dofs=cpt.rigid_body_dofs(rotation_center=tuple(job.centre)),
        center_of_mass=tuple(job.cg),
        mass=job.mass,
        name=job.body,
    )
    grid = xr.Dataset(
        coords={
            "omega": np.concatenate((job.omega, [np.inf])),
            "wave_direction": job.wave_directions,
            "radiating_dof": list(_DOFS),
            "water_depth": [job.depth],
            "rho": [job.rho],
            "g": [job.gravity],
        }
    )
    solver = cpt.BEMSolver()
    if done is None:
        return solver.fill_dataset(grid, body, progress_bar=progress)
    return _by_frequency(solver, grid, body, done)


def _by_frequency(solver: Any, grid: Any, body: Any, done: Callable[[int, int], None]) -> Any:
    """`solver.fill_dataset(grid, body)`'s dataset, solved a frequency at a time (its
    problems grouped by ω) with `done` told after each."""
    from datetime import datetime

    from capytaine.io.xarray import assemble_dataset, problems_from_dataset

    attrs = {"start_of_computation": datetime.now().isoformat(), **solver.exportable_settings}
    problems = problems_from_dataset(grid, body)
    omegas = sorted({float(p.omega) for p in problems})
    results: list[Any] = []
    for k, omega in enumerate(omegas):
        group = [p for p in problems if float(p.omega) == omega]
        results += solver.solve_all(group, progress_bar=False, _check_wavelength=k == 0)
        done(k + 1, len(omegas))
    return assemble_dataset(results, attrs=attrs)


def write(dataset: Any, path: Path) -> None:
    """`dataset` as Capytaine writes it (NetCDF 4 with netCDF4 or h5netcdf installed, NetCDF
    3 otherwise), atomically: a file that is there is whole."""
    import capytaine as cpt

    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".nc", dir=path.parent or ".")
    os.close(fd)
    try:
        cpt.export_dataset(tmp, dataset, format="netcdf")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["BemError", "BemJob", "job_for", "run", "write"]
