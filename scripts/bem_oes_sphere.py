"""Write backend/sixdof/scenario/presets/bem/oes_sphere.nc: Capytaine's coefficients of the
IEA OES Task 10 sphere (R = 5 m, centre at the still water line, half submerged), surge and
heave about its centre, 120 frequencies 0.04-4.8 rad/s and infinity, waves along x, deep water,
ρ = 1000 kg/m³; NetCDF 3 (scipy can read it, no HDF5 library needed).

    pip install capytaine && python scripts/bem_oes_sphere.py

The mesh is axially symmetric (50 × 100 panels, lid at the water line against irregular
frequencies); with a coarser one (18 × 36, no symmetry) the surge damping turned negative
above 3.5 rad/s, which the reader refuses. Made with Capytaine 3.0.0 (23 s of CPU).
"""

from __future__ import annotations

from pathlib import Path

import capytaine as cpt
import numpy as np
import xarray as xr
from capytaine.io.xarray import separate_complex_values

R = 5.0
OUT = Path(__file__).resolve().parent.parent / "backend/sixdof/scenario/presets/bem/oes_sphere.nc"


def main() -> None:
    hull = cpt.mesh_sphere(radius=R, resolution=(50, 100), axial_symmetry=True).immersed_part()
    lid = cpt.mesh_disk(radius=R, center=(0, 0, -0.05), resolution=(20, 100), axial_symmetry=True)
    body = cpt.FloatingBody(
        mesh=hull, lid_mesh=lid, dofs=cpt.rigid_body_dofs(rotation_center=(0, 0, 0)),
        center_of_mass=(0, 0, 0), mass=1000 * 2 / 3 * np.pi * R**3, name="oes_sphere",
    )  # fmt: skip
    body = body.with_only_dofs(["Surge", "Heave"])
    omega = np.concatenate((np.round(np.arange(0.04, 4.8001, 0.04), 6), [np.inf]))
    grid = xr.Dataset(coords={"omega": omega, "wave_direction": [0.0], "water_depth": [np.inf],
                              "radiating_dof": list(body.dofs), "rho": [1000.0]})  # fmt: skip
    ds = separate_complex_values(cpt.BEMSolver().fill_dataset(grid, body, progress_bar=False))
    for key in list(ds.coords):
        if ds[key].dtype.kind in "OU" or str(ds[key].dtype) == "category":
            ds[key] = ds[key].astype(str)
    ds.attrs = {k: str(v) for k, v in ds.attrs.items()}
    ds.to_netcdf(OUT, engine="scipy")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
