"""A BEM file read and fitted into a `radiation` element's `fit` (kinds/radiation.py): the
reader by the file's suffix (Capytaine's NetCDF, bem_file.py; WAMIT's .1/.3/.hst,
wamit_file.py), the memory's fit (dynamics/radiation_fit.py), the file's samples and wave
forces kept to 7 digits, and a scenario's files replaced by their fits before it is checked.
"""

from __future__ import annotations

from typing import Any

from ..fields import FieldError


def excitation_of(omega: Any, directions: Any, force: Any) -> dict[str, Any]:
    """`fit.excitation` of a file's table (n × h × 6 complex at `directions`, radians)."""
    import numpy as np

    wrapped = np.degrees(np.arctan2(np.sin(directions), np.cos(directions)))
    order = np.argsort(wrapped)
    table = np.asarray(force)[:, order, :]

    def short(x: Any) -> Any:
        return np.vectorize(lambda v: float(f"{v:.7g}"))(x).tolist()

    return {
        "omega": [float(w) for w in omega],
        "headings": [float(d) for d in wrapped[order]],
        "re": short(table.real),
        "im": short(table.imag),
    }


def samples_of(data: Any, pairs: Any) -> dict[str, Any]:
    """`fit.samples` of a file's RadiationData for `pairs` (the fit's, i ≤ j)."""
    import numpy as np

    def short(x: Any) -> Any:
        return np.vectorize(lambda v: float(f"{v:.7g}"))(x).tolist()

    pairs = sorted(pairs)
    return {
        "omega": [float(w) for w in data.omega],
        "pairs": [list(ij) for ij in pairs],
        "added_mass": [short(data.added_mass[:, i, j]) for i, j in pairs],
        "damping": [short(data.damping[:, i, j]) for i, j in pairs],
    }


def read_file(
    data: bytes, name: str, spec: Any = None, beside: Any = None, rho: float = 1025.0
) -> Any:
    """A BEM file's BemCoefficients by its suffix: `.1` WAMIT's (its .3 and .hst read with
    `beside`, a name -> bytes or None, when there; made dimensional with `spec`'s
    wamit_length and `rho`), anything else Capytaine's NetCDF."""
    from .bem_file import read_bem

    if not name.endswith(".1"):
        return read_bem(data, name)
    from .wamit_file import read_wamit, siblings
    from .water import WAVE_GRAVITY

    spec = spec if isinstance(spec, dict) else {}
    three, hst = (None, None) if beside is None else (beside(n) for n in siblings(name))
    length = spec.get("wamit_length", 1.0)
    if isinstance(length, bool) or not isinstance(length, int | float):
        length = float("nan")  # refused by the reader, naming wamit_length
    return read_wamit(data, name, three, hst, length=float(length), rho=rho, g=WAVE_GRAVITY)


def fit_of(
    data: bytes, name: str, spec: Any = None, beside: Any = None, rho: float = 1025.0
) -> dict[str, Any]:
    """The `fit` of a BEM file's bytes (FieldError naming what is wrong in it), with the
    file's samples of A(ω), B(ω), its excitation when `spec` (the element as given) asks for
    excitation bem and its stiffness when it asks for linear hydrostatics; a WAMIT .1 file's
    .3 and .hst are read with `beside` (read_file). The fit says the water it is for
    (`density`: a NetCDF file's rho; `rho` for WAMIT's non-dimensional files): the element
    is built in the scenario's (kinds/radiation.fit_in_water)."""
    from ..dynamics.radiation_fit import fit
    from .bem_file import BemFileError

    spec = spec if isinstance(spec, dict) else {}
    try:
        read = read_file(data, name, spec, beside, rho)
        fitted = fit(read.radiation)
    except BemFileError as exc:
        raise FieldError("file", "invalid", f"file: {name}: {exc}") from None
    except FieldError as exc:
        raise FieldError("file", "invalid", f"file: {name}: {exc.message}") from None

    def rows(m: Any) -> list[list[float]]:
        return [[float(v) for v in r] for r in m]

    out = {
        "A": rows(fitted.a), "B": rows(fitted.b), "C": rows(fitted.c),
        "D": rows(fitted.d), "infinite": rows(fitted.added_mass_inf),
        "error": min(1.0, fitted.error), "extrapolated": fitted.inf_extrapolated,
        "samples": samples_of(read.radiation, fitted.orders), "density": read.rho,
    }  # fmt: skip
    if spec.get("excitation") == "bem":
        if read.excitation is None:
            raise FieldError(
                "file",
                "invalid",
                f"file: {name}: excitation bem: the file has no diffraction_force and "
                "Froude_Krylov_force (nor excitation_force; a WAMIT .1 file no .3 beside it)",
            )
        table = excitation_of(read.radiation.omega, read.wave_directions, read.excitation)
        out["excitation"] = table
    if spec.get("hydrostatics") == "linear" and read.stiffness is not None:
        out["stiffness"] = rows(read.stiffness)
    return out


def needs_fit(spec: dict[str, Any]) -> bool:
    """Whether an element's file is to be fitted: it has no fit, or its fit lacks the
    excitation or stiffness it asks for (FhSim XML carries the memory alone)."""
    fitted = spec.get("fit")
    if not isinstance(fitted, dict):
        return True
    if spec.get("excitation") == "bem" and "excitation" not in fitted:
        return True
    return spec.get("hydrostatics") == "linear" and "stiffness" not in fitted


def inline_fits(data: Any, files: Any) -> None:
    """Replace each radiation element's `file` (read with `files`, a NamedFiles, or None: no
    folder) by its `fit` (in place); NamedFileError with its loc otherwise."""
    from .named_files import NamedFileError

    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return
    water = data.get("water")
    rho = water.get("density", 1025.0) if isinstance(water, dict) else 1025.0
    rho = float(rho) if isinstance(rho, int | float) and not isinstance(rho, bool) else 1025.0
    for index, element in enumerate(data["elements"]):
        if not isinstance(element, dict) or element.get("kind") != "radiation":
            continue
        if "file" not in element or not needs_fit(element):
            continue
        loc = ("elements", index, "file")
        if files is None:
            raise NamedFileError(
                "a radiation's file is a BEM file next to a scenario file; send its fit instead",
                loc,
            )
        try:
            name = str(element["file"])
            element["fit"] = fit_of(files.read(name), name, element, files.read_if_any, rho)
        except NamedFileError as exc:
            raise exc.at(loc) from None
        except FieldError as exc:
            raise NamedFileError(exc.message, loc) from None
