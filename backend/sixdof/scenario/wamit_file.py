"""A hull's BEM coefficients from WAMIT's numeric output files, in sixdof's axes: the
`radiation` element's second reader (bem_file.py reads Capytaine's NetCDF).

- `hull.1`, added mass and damping: lines `PER I J Abar Bbar`; PER = −1 (infinite
  frequency) and PER = 0 (zero frequency) lines carry Abar alone. PER is the period in
  seconds (WAMIT's default, IPEROUT = 1), ω = 2π / PER.
- `hull.3` beside it (the same stem), when present, the diffraction excitation: lines
  `PER BETA I Mod Pha Re Im`, BETA the waves' heading in degrees, Pha in degrees.
- `hull.hst` beside it, when present, the hydrostatic stiffness: lines `I J Cbar`.

WAMIT writes them non-dimensional by the water's density ρ, g and its length ULEN (L, in
its .gdf/.out, not in these files: the element's `wamit_length`, 1 m unless given):
A = Abar ρ L^k and B = Bbar ρ L^k ω with k = 3, 4, 5 for translation–translation, mixed and
rotation–rotation; X = Xbar ρ g L^m with m = 2 for forces, 3 for moments (per metre of wave
amplitude); C = Cbar ρ g L^k with k = 2, 3, 4.

WAMIT's axes are Capytaine's (x forward, y port, z up), so the same half turn about x takes
them to sixdof's NED body axes. WAMIT's phasors run as Re(X e^{+iωt}), Capytaine's as
Re(X e^{−iωt}) (Capytaine's manual, "Conventions and differences to other codes"): WAMIT's
excitation is the complex conjugate of Capytaine's. Once dimensional and conjugated, the
coefficients are handed to bem_file's `coefficients` as the variables of a Capytaine dataset,
so the same refusals (too few frequencies, negative damping, not finite) and the same axes
apply, and what comes back is the same BemCoefficients.

The zero-frequency lines (PER = 0) are read and dropped: the memory is fitted to ω > 0 and
A∞. A line that does not parse is refused naming its file and line number.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .bem_file import DOFS, FLIP, BemCoefficients, BemFileError, Variables, coefficients

#: WAMIT's modes, 1…6 (surge, sway, heave, roll, pitch, yaw); generalised modes (> 6) are not
#: rigid-body motions.
MODES = 6
#: How close a .3 period must be to a .1 period to be the same (both are written to ~7 digits).
PERIOD_RTOL = 1e-6


def siblings(name: str) -> tuple[str, str]:
    """The names of the .3 and .hst files beside a .1 file `name`."""
    stem = name[: -len(".1")]
    return stem + ".3", stem + ".hst"


def read_wamit(
    one: bytes,
    name: str = "the .1 file",
    three: bytes | None = None,
    hst: bytes | None = None,
    *,
    length: float = 1.0,
    rho: float = 1025.0,
    g: float = 9.81,
) -> BemCoefficients:
    """The coefficients of a WAMIT .1 file's bytes (with its .3 and .hst when given), made
    dimensional with `length` (ULEN, m), `rho` (kg/m³) and `g` (m/s²)."""
    if not (length > 0 and math.isfinite(length)):
        raise BemFileError("wamit_length", f"{length} m: WAMIT's ULEN is a positive length")
    three_name, hst_name = siblings(name) if name.endswith(".1") else (".3", ".hst")
    periods, modes, a_rows, b_rows = _radiation_lines(one, name)
    finite = [p for p in periods if p > 0]
    has_inf = -1.0 in periods
    omega = np.array([2 * math.pi / p for p in finite] + ([math.inf] if has_inf else []))
    slot = {p: k for k, p in enumerate(finite)}
    if has_inf:
        slot[-1.0] = len(finite)
    n, m = len(omega), len(modes)
    index = {mode: k for k, mode in enumerate(modes)}
    added = np.zeros((n, m, m))
    damping = np.zeros((n, m, m))
    for per, i, j, abar in a_rows:
        if per in slot:  # PER = 0 (ω = 0) is dropped
            added[slot[per], index[i], index[j]] = abar * rho * length ** _k(3, i, j)
    for per, i, j, bbar in b_rows:
        w = 2 * math.pi / per
        damping[slot[per], index[i], index[j]] = bbar * rho * length ** _k(3, i, j) * w
    names = np.array([DOFS[i] for i in modes])
    v: Variables = {
        "omega": (("omega",), omega),
        "radiating_dof": (("radiating_dof",), names),
        "influenced_dof": (("influenced_dof",), names),
        "added_mass": (("omega", "influenced_dof", "radiating_dof"), added),
        "radiation_damping": (("omega", "influenced_dof", "radiating_dof"), damping),
        "rho": ((), np.array(rho)),
    }
    if three is not None:
        headings, force = _excitation(three, three_name, finite, index, length, rho * g)
        table = np.zeros((n, len(headings), m), complex)
        table[: len(finite)] = force  # no waves at ω = ∞: zeros there, dropped by the reader
        v["wave_direction"] = (("wave_direction",), np.radians(headings))
        v["excitation_force"] = (("omega", "wave_direction", "influenced_dof"), table)
    read = coefficients(v)
    if hst is None:
        return read
    return replace(read, stiffness=_stiffness(hst, hst_name, length, rho * g))


def _k(base: int, i: int, j: int) -> int:
    """The power of L: `base` plus one for each rotational mode (0-based 3, 4, 5)."""
    return base + (i >= 3) + (j >= 3)


def _lines(data: bytes, name: str) -> list[tuple[int, list[float]]]:
    """(line number, numbers) of each non-blank line; refused naming the line."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise BemFileError(name, "not a WAMIT text file (bytes that are not ASCII)") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            values = [float(x.replace("D", "E").replace("d", "e")) for x in line.split()]
        except ValueError:
            raise BemFileError(
                f"{name} line {number}", f"{line.strip()[:60]!r} is not a row of numbers"
            ) from None
        if not all(math.isfinite(x) for x in values):
            raise BemFileError(f"{name} line {number}", "holds NaN or inf")
        out.append((number, values))
    if not out:
        raise BemFileError(name, "holds no lines")
    return out


def _mode(value: float, name: str, number: int) -> int:
    """A 0-based rigid-body mode of WAMIT's 1-based index."""
    if value != int(value) or not 1 <= value <= MODES:
        raise BemFileError(
            f"{name} line {number}",
            f"mode {value:g} is not a rigid-body mode 1…6 (surge, sway, heave, roll, pitch, yaw)",
        )
    return int(value) - 1


Row = tuple[float, int, int, float]


def _radiation_lines(data: bytes, name: str) -> tuple[list[float], list[int], list[Row], list[Row]]:
    """The .1's periods in order of appearance (−1, 0 included), its modes (sorted), and its
    (PER, i, j, Abar) and (PER, i, j, Bbar) rows."""
    periods: list[float] = []
    modes: set[int] = set()
    a_rows: list[Row] = []
    b_rows: list[Row] = []
    for number, values in _lines(data, name):
        per = values[0]
        limit = per in (-1.0, 0.0)
        want = 4 if limit else 5
        if len(values) != want or (per < 0 and not limit):
            raise BemFileError(
                f"{name} line {number}",
                f"expected PER I J A{'' if limit else ' B'} ({want} numbers; PER > 0, or −1 "
                f"for ω = ∞, 0 for ω = 0), got {len(values)} numbers with PER = {per:g}",
            )
        i, j = _mode(values[1], name, number), _mode(values[2], name, number)
        modes.update((i, j))
        if per not in periods:
            periods.append(per)
        a_rows.append((per, i, j, values[3]))
        if not limit:
            b_rows.append((per, i, j, values[4]))
    return periods, sorted(modes), a_rows, b_rows


def _excitation(
    data: bytes,
    name: str,
    periods: list[float],
    index: dict[int, int],
    length: float,
    rho_g: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The .3's headings (degrees, sorted) and its force, (periods × headings × modes)
    complex in Capytaine's phase convention (conjugated), dimensional."""
    rows = []
    for number, values in _lines(data, name):
        if len(values) != 7:
            raise BemFileError(
                f"{name} line {number}",
                f"expected PER BETA I Mod Pha Re Im (7 numbers), got {len(values)}",
            )
        per, beta = values[0], values[1]
        i = _mode(values[2], name, number)
        if i not in index:
            raise BemFileError(
                f"{name} line {number}",
                f"mode {i + 1} ({DOFS[i]}) is not among the .1 file's modes",
            )
        match = [k for k, p in enumerate(periods) if math.isclose(per, p, rel_tol=PERIOD_RTOL)]
        if not match:
            raise BemFileError(
                f"{name} line {number}", f"period {per:g} s is not one of the .1 file's"
            )
        rows.append((match[0], beta, index[i], complex(values[5], values[6]), i))
    headings = np.array(sorted({r[1] for r in rows}))
    seen = {r[0] for r in rows}
    if len(seen) != len(periods):
        missing = [periods[k] for k in range(len(periods)) if k not in seen]
        raise BemFileError(
            name,
            f"has no excitation at {missing[0]:g} s, a period of the .1 file: the waves' force "
            "is needed at each of them",
        )
    force = np.zeros((len(periods), len(headings), len(index)), complex)
    for k, beta, col, x, mode in rows:
        h = int(np.searchsorted(headings, beta))
        # WAMIT's e^{+iωt} phasor is the conjugate of Capytaine's e^{−iωt} one
        force[k, h, col] = np.conj(x) * rho_g * length ** (2 + (mode >= 3))
    return headings, force


def _stiffness(data: bytes, name: str, length: float, rho_g: float) -> np.ndarray:
    """The .hst's 6 × 6 stiffness, dimensional, in sixdof's axes."""
    c = np.zeros((6, 6))
    for number, values in _lines(data, name):
        if len(values) != 3:
            raise BemFileError(
                f"{name} line {number}", f"expected I J C (3 numbers), got {len(values)}"
            )
        i, j = _mode(values[0], name, number), _mode(values[1], name, number)
        c[i, j] = values[2] * rho_g * length ** _k(2, i, j)
    return c * np.outer(FLIP, FLIP)


__all__ = ["read_wamit", "siblings"]
