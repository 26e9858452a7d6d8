"""A hull's BEM coefficients from the NetCDF file Capytaine writes, in sixdof's axes.

Capytaine (`cpt.export_dataset(name, dataset)`, and `sixdof bem`) writes NetCDF 4 (HDF5)
when xarray has netCDF4 or h5netcdf, NetCDF 3 with scipy alone; both are read here, NetCDF 3
with scipy, NetCDF 4 with h5py (the `bem` extra). The variables read: `omega` (rad/s),
`radiating_dof` and `influenced_dof` (Surge, Sway, Heave, Roll, Pitch, Yaw: a subset is
fine), `added_mass` and `radiation_damping` (omega × influenced × radiating), and when
present `hydrostatic_stiffness`, `excitation_force` / `diffraction_force` +
`Froude_Krylov_force` (complex: re/im × omega × wave_direction × influenced) and the
infinite-frequency added mass (Capytaine writes it when asked: `added_mass` at ω = ∞).

Capytaine's axes are x forward, y to port, z up; sixdof's body axes are x forward, y to
starboard, z down (NED). The two differ by a half turn about x, so sway, heave, pitch and
yaw change sign: A_sixdof = T A_cpt T with T = diag(1, −1, −1, 1, −1, −1). The coefficients
are about the point Capytaine rotated about (`sixdof bem` uses the body's reference point).

A file is refused, naming the variable, when a variable is missing, a value is not finite,
a degree of freedom is not one of the six, the damping of a degree of freedom is negative,
or there are too few frequencies to fit a memory to.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dynamics.radiation_fit import RadiationData

#: Capytaine's names of the rigid-body degrees of freedom, in sixdof's order.
DOFS = ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")
#: Capytaine's axes to sixdof's: a half turn about x.
FLIP = np.array([1.0, -1.0, -1.0, 1.0, -1.0, -1.0])
#: How far below zero a degree of freedom's damping may dip (BEM noise), relative to its largest.
NEGATIVE_SLACK = 0.01
#: Damping below this share of the largest of its kind (moving, turning) is a BEM code's noise,
#: whatever its sign (the 160-panel buoy's yaw: ±7e-6 N m s against its roll's 5).
NOISE_FLOOR = 1e-5
#: The fewest frequencies a memory is fitted to.
MIN_FREQUENCIES = 8
_REQUIRED = ("omega", "radiating_dof", "influenced_dof", "added_mass", "radiation_damping")


class BemFileError(ValueError):
    """A BEM file refused: `variable` names what is wrong in it."""

    def __init__(self, variable: str, reason: str) -> None:
        super().__init__(f"{variable}: {reason}")
        self.variable = variable


@dataclass(frozen=True)
class BemCoefficients:
    """Everything read, in sixdof's body axes (6 × 6 with zeros where the file has no dof)."""

    radiation: RadiationData
    stiffness: np.ndarray | None  # (6, 6) N/m, N, N·m/rad: linear hydrostatics
    wave_directions: np.ndarray  # (h,) rad, sixdof's (from north toward east)
    excitation: np.ndarray | None  # (n, h, 6) complex, N and N·m per metre of amplitude
    rho: float
    water_depth: float  # m; inf for deep water


Variables = dict[str, tuple[tuple[str, ...], np.ndarray]]


def read_bem(data: bytes, name: str = "the BEM file") -> BemCoefficients:
    """The coefficients of a Capytaine NetCDF file's bytes (see the module's docstring)."""
    if data[:3] == b"CDF":
        reader = _netcdf3
    elif data[:8] == b"\x89HDF\r\n\x1a\n":
        reader = _netcdf4
    else:
        raise BemFileError(name, "not a NetCDF file (neither NetCDF 3 nor NetCDF 4/HDF5)")
    try:
        variables = reader(data)
    except BemFileError:
        raise
    except (ValueError, OSError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
        raise BemFileError(name, f"cannot be read as NetCDF ({exc})") from None
    return coefficients(variables)


def coefficients(v: Variables) -> BemCoefficients:
    for key in _REQUIRED:
        if key not in v:
            raise BemFileError(
                key,
                "missing: a Capytaine dataset has omega, radiating_dof, "
                "influenced_dof, added_mass and radiation_damping",
            )
    omega = _finite(v, "omega").astype(float)
    inf = np.isinf(omega)  # Capytaine writes A∞ as the added mass at omega = inf
    if omega.ndim != 1 or int((~inf).sum()) < MIN_FREQUENCIES:
        raise BemFileError(
            "omega",
            f"{int((~inf).sum())} frequencies; at least {MIN_FREQUENCIES} are "
            "needed to fit the radiation memory",
        )
    order = np.argsort(omega[~inf])
    if np.any(omega[~inf] <= 0) or np.any(np.diff(omega[~inf][order]) <= 0):
        raise BemFileError("omega", "frequencies must be positive and distinct")
    radiating = _dofs(v, "radiating_dof")
    influenced = _dofs(v, "influenced_dof")
    a = _square(v, "added_mass", influenced, radiating)
    b = _square(v, "radiation_damping", influenced, radiating)
    a_inf = a[inf][0] if inf.any() else None
    a, b = a[~inf][order], b[~inf][order]
    omega = omega[~inf][order]
    present = tuple(sorted(set(radiating) & set(influenced)))
    for k in present:  # a BEM code's noise may dip a little below zero; more is a fault
        low, high = float(b[:, k, k].min()), float(b[:, k, k].max())
        # a motion that makes no waves (an axisymmetric hull's yaw) has noise alone, judged
        # against its kind's (turning or moving) largest damping
        kind = [j for j in present if (j < 3) == (k < 3)]
        floor = NOISE_FLOOR * max(float(b[:, j, j].max()) for j in kind)
        if low < -max(NEGATIVE_SLACK * max(high, 0.0), floor):
            w = float(omega[int(np.argmin(b[:, k, k]))])
            raise BemFileError(
                "radiation_damping",
                f"negative damping in {DOFS[k]} ({low:.4g} at ω = {w:.4g} rad/s, against a "
                f"largest {high:.4g}): a hull cannot take energy from the waves it makes; "
                "the mesh may be too coarse for that frequency",
            )
    stiffness = None
    if "hydrostatic_stiffness" in v:
        stiffness = _flip(_place(v, "hydrostatic_stiffness", influenced, radiating))
    headings, excitation = _excitation(v, influenced, order, inf)
    radiation = RadiationData(
        omega, _flip(a), _flip(b), None if a_inf is None else _flip(a_inf), present
    )
    return BemCoefficients(
        radiation,
        stiffness,
        headings,
        excitation,
        _scalar(v, "rho", 1025.0),
        _scalar(v, "water_depth", np.inf),
    )


def _flip(m: np.ndarray) -> np.ndarray:
    return m * np.outer(FLIP, FLIP)  # over the last two axes


def _finite(v: Variables, key: str) -> np.ndarray:
    arr = np.asarray(v[key][1])
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise BemFileError(key, "holds NaN")
    return arr


def _dofs(v: Variables, key: str) -> list[int]:
    names = [str(x) for x in np.atleast_1d(v[key][1])]
    unknown = [n for n in names if n not in DOFS]
    if unknown:
        raise BemFileError(
            key, f"{', '.join(unknown)} is not a rigid-body degree of freedom ({', '.join(DOFS)})"
        )
    return [DOFS.index(n) for n in names]


def _axes(v: Variables, key: str, want: tuple[str, ...]) -> np.ndarray:
    """`key`'s values with its dimensions in the order `want`."""
    dims, arr = v[key]
    arr = np.asarray(arr, float)
    if sorted(dims) != sorted(want):
        raise BemFileError(key, f"has dimensions {dims}, not {want}")
    if not np.isfinite(arr).all():
        raise BemFileError(key, "holds values that are not finite (NaN or inf)")
    return np.transpose(arr, [dims.index(d) for d in want])


def _place(v: Variables, key: str, influenced: list[int], radiating: list[int]) -> np.ndarray:
    arr = _axes(v, key, ("influenced_dof", "radiating_dof"))
    out = np.zeros((6, 6))
    out[np.ix_(influenced, radiating)] = arr
    return out


def _square(v: Variables, key: str, influenced: list[int], radiating: list[int]) -> np.ndarray:
    arr = _axes(v, key, ("omega", "influenced_dof", "radiating_dof"))
    out = np.zeros((arr.shape[0], 6, 6))
    out[:, np.ix_(influenced, radiating)[0], np.ix_(influenced, radiating)[1]] = arr
    return out


def _excitation(
    v: Variables, influenced: list[int], order: np.ndarray, inf: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    if "wave_direction" not in v:
        return np.zeros(0), None
    beta = np.atleast_1d(np.asarray(v["wave_direction"][1], float))
    if "excitation_force" in v:
        parts = [_complex(v, "excitation_force", inf)]
    elif "diffraction_force" in v and "Froude_Krylov_force" in v:
        parts = [_complex(v, "diffraction_force", inf), _complex(v, "Froude_Krylov_force", inf)]
    else:
        return -beta, None
    force = sum(parts[1:], parts[0])[order]  # (n, h, k)
    out = np.zeros((force.shape[0], force.shape[1], 6), complex)
    out[:, :, influenced] = force
    # a wave travelling toward Capytaine's β (from x toward port) travels toward −β in NED
    return -beta, out * FLIP


def _complex(v: Variables, key: str, inf: np.ndarray) -> np.ndarray:
    """`key` as (omega, wave_direction, influenced_dof), without ω = ∞ (no waves there)."""
    dims, arr = v[key]
    if "complex" in dims:
        re_im = np.moveaxis(np.asarray(arr, float), dims.index("complex"), 0)
        rest = tuple(d for d in dims if d != "complex")
        values = re_im[0] + 1j * re_im[1]
    else:
        rest, values = dims, np.asarray(arr)
    want = ("omega", "wave_direction", "influenced_dof")
    if sorted(rest) != sorted(want):
        raise BemFileError(key, f"has dimensions {dims}")
    values = np.transpose(values, [rest.index(d) for d in want])[~inf]
    if not np.isfinite(values).all():
        raise BemFileError(key, "holds values that are not finite (NaN or inf)")
    return values


def _scalar(v: Variables, key: str, default: float) -> float:
    return float(np.asarray(v[key][1]).reshape(-1)[0]) if key in v else default


def _text(arr: np.ndarray) -> np.ndarray:
    """Names stored as bytes (HDF5) or as a character dimension (NetCDF 3), as str."""
    if arr.dtype.kind == "S" and arr.dtype.itemsize == 1 and arr.ndim >= 1:
        return np.array([b"".join(row).decode().rstrip("\0") for row in np.atleast_2d(arr)])
    if arr.dtype.kind in "SO":
        return np.array([x.decode() if isinstance(x, bytes) else str(x) for x in arr.reshape(-1)])
    return arr


def _netcdf3(data: bytes) -> Variables:
    from scipy.io import netcdf_file

    out: Variables = {}
    with netcdf_file(io.BytesIO(data), "r", mmap=False) as f:
        for key, var in f.variables.items():
            arr = np.array(var.data)
            dims = tuple(var.dimensions)
            if arr.dtype.kind == "S" and dims and arr.dtype.itemsize == 1:
                arr, dims = _text(arr), dims[:-1]  # the last dimension holds the characters
            out[key] = (dims, arr)
    return out


def _netcdf4(data: bytes) -> Variables:
    try:
        import h5py
    except ImportError:
        raise BemFileError(
            "file",
            "a NetCDF 4 file needs h5py: pip install 'sixdof[bem]' "
            "(or write NetCDF 3: dataset.to_netcdf(name, engine='scipy'))",
        ) from None
    out: Variables = {}
    with h5py.File(io.BytesIO(data), "r") as f:
        for key, obj in f.items():
            if not isinstance(obj, h5py.Dataset):
                continue
            dims = tuple(_dim_name(d, key) for d in obj.dims) if obj.ndim else ()
            out[key] = (dims, _text(np.asarray(obj[()])))
    return out


def _dim_name(dim: Any, key: str) -> str:
    scales = list(dim.values())
    return str(scales[0].name).lstrip("/") if scales else key  # a coordinate is its own scale


__all__ = ["DOFS", "BemCoefficients", "BemFileError", "read_bem"]
