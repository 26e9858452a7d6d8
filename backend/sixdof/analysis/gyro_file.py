"""A gyroscope recording read: phyphox's CSV export or plain columns t, ωx, ωy, ωz.

The recording is a phone's (or any) body-frame angular velocity ω(t), as phyphox exports
it (`"Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"`, maybe
an `"Absolute (rad/s)"` column after them) or plain columns t, ωx, ωy, ωz (s, rad/s; a
header is optional). Comma, semicolon or tab separated.

What is read is bounded before it is fitted: at most MAX_SAMPLES rows and MAX_DURATION s,
every number finite, every rate and |ω| within MAX_RATE (AngVel's limit: 1e308 rad/s made the
fit's step zero). What a fit of it costs is gyro_cost's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..fields import MAX_ANG_VEL

#: Fewest samples a fit takes (5 unknowns; a flip needs many more to be seen).
MIN_SAMPLES = 30
#: Most samples read (a minute at phyphox's ~500 Hz, about 4 MB of text).
MAX_SAMPLES = 200_000
#: Longest record fitted, s: a thrown phone flies for a second or two.
MAX_DURATION = 120.0
#: Closest samples read, s: 1 MHz, far beyond any gyroscope (phyphox ~500 Hz, lab IMUs
#: ~30 kHz); closer times only make the derivatives overflow.
MIN_SPACING = 1e-6
#: Largest rate read, rad/s, in each column and as |ω|: the largest spin a body may have
#: (AngVel's limit, fields.MAX_ANG_VEL), so the fitted body is one a room can hold. A phone's
#: gyroscope saturates near 35 rad/s; 1e308 made the fit's step zero. How fast a fit of a
#: given length may spin is gyro_cost's ceiling, far below this for long records.
MAX_RATE = MAX_ANG_VEL

PHYPHOX_COLUMNS = (
    "Time (s)",
    "Gyroscope x (rad/s)",
    "Gyroscope y (rad/s)",
    "Gyroscope z (rad/s)",
)
_ROLES = ("time", "x", "y", "z")
_DEG = math.pi / 180.0


class GyroFileError(ValueError):
    """A recording that cannot be read: the message names the column or the row."""


@dataclass
class GyroData:
    """A recording: times t (n,), s, from its first sample, and ω (n, 3), rad/s."""

    t: np.ndarray
    omega: np.ndarray
    columns: list[str]  # the header's names of t, ωx, ωy, ωz (or the plain names)
    t0: float = 0.0  # the first sample's time in the file, s
    notes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Mean samples per second."""
        return (len(self.t) - 1) / float(self.t[-1] - self.t[0])


def _split(line: str, sep: str | None) -> list[str]:
    """The cells of a line, unquoted; with tabs or semicolons between them a decimal comma
    is read as a point (phyphox's "decimal comma" exports)."""
    cells = line.split(sep) if sep else line.split()
    cells = [c.strip().strip('"').strip("'").strip() for c in cells]
    return [c.replace(",", ".") for c in cells] if sep in ("\t", ";") else cells


def _role(name: str) -> str | None:
    """Which column a header names: time, x, y, z, or None."""
    n = name.lower().replace("ω", "w").replace("omega", "w")
    n = re.sub(r"\(.*?\)|\[.*?\]", "", n).strip()
    if n in ("t", "time", "times", "t_s", "time_s", "zeit", "tid"):
        return "time"
    m = re.fullmatch(r"(?:gyroscope|gyro|angular velocity|angvel|rate|w|g)?[ _.\-]*([xyz])", n)
    if m:
        return m.group(1)
    m = re.fullmatch(r"(?:w|g|gyro)[ _.\-]*([xyz])", n)
    return m.group(1) if m else None


def read_gyro_text(text: str, *, name: str = "the file") -> GyroData:
    """Parse a recording (GyroFileError naming the column or the row and line)."""
    lines = text.splitlines()
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#")]
    if not numbered:
        raise GyroFileError(f"{name}: empty; expected columns {', '.join(PHYPHOX_COLUMNS)}")
    first = numbered[0][1]
    sep = "\t" if "\t" in first else ";" if ";" in first else "," if "," in first else None
    head = _split(first, sep)
    header = not all(_is_number(c) for c in head)
    notes: list[str] = []
    if header:
        roles: dict[str, int] = {}
        for k, cell in enumerate(head):
            role = _role(cell)
            if role is not None and role not in roles:
                roles[role] = k
        missing = [r for r in _ROLES if r not in roles]
        if missing:
            wanted = dict(zip(_ROLES, PHYPHOX_COLUMNS, strict=True))
            got = ", ".join(repr(c) for c in head)
            raise GyroFileError(
                f"{name}: no column {wanted[missing[0]]!r} (or {_plain(missing[0])}); "
                f"the header has {got}"
            )
        index = [roles[r] for r in _ROLES]
        columns = [head[k] for k in index]
        degrees = ["deg" in head[k].lower() or "°" in head[k] for k in index[1:]]
        if any(degrees):
            notes.append("rates in degrees per second were converted to rad/s")
        rows = numbered[1:]
    else:
        if len(head) < 4:
            raise GyroFileError(
                f"{name}: line {numbered[0][0]} has {len(head)} columns; expected t, ωx, ωy, "
                "ωz (s, rad/s) or phyphox's export with its header"
            )
        index, columns, degrees, rows = [0, 1, 2, 3], ["t", "wx", "wy", "wz"], [False] * 3, numbered
    if len(rows) > MAX_SAMPLES:
        raise GyroFileError(
            f"{name}: {len(rows):,} rows; at most {MAX_SAMPLES:,} are read (cut the record to "
            "the flight)"
        )
    width = max(index) + 1
    # per column: the largest magnitude read (time: any finite number) and its unit
    limits = [(math.inf, "s")] + [
        (MAX_RATE / _DEG, "deg/s") if deg else (MAX_RATE, "rad/s") for deg in degrees
    ]
    data = np.empty((len(rows), 4))
    for r, (line_no, line) in enumerate(rows):
        cells = _split(line, sep)
        if len(cells) < width:
            raise GyroFileError(
                f"{name}: row {r + 1} (line {line_no}) has {len(cells)} columns, expected "
                f"{width} ({', '.join(columns)})"
            )
        for c, k in enumerate(index):
            try:
                value = float(cells[k])
            except ValueError:
                raise GyroFileError(
                    f"{name}: row {r + 1} (line {line_no}), column {columns[c]!r}: "
                    f"{cells[k]!r} is not a number"
                ) from None
            if not math.isfinite(value):
                raise GyroFileError(
                    f"{name}: row {r + 1} (line {line_no}), column {columns[c]!r}: {cells[k]} "
                    "(every sample needs a finite number; cut the record where it is whole)"
                )
            if abs(value) > limits[c][0]:
                raise GyroFileError(
                    f"{name}: row {r + 1} (line {line_no}), column {columns[c]!r}: {cells[k]} "
                    f"is outside ±{limits[c][0]:.3g} {limits[c][1]} (AngVel's limit: no body "
                    "carrying a gyroscope turns that fast; check the column's units)"
                )
            data[r, c] = value
    if len(rows) < MIN_SAMPLES:
        raise GyroFileError(
            f"{name}: {len(rows)} samples; a fit needs at least {MIN_SAMPLES} (the recording "
            "of a throw, e.g. a second at 100 Hz)"
        )
    t = data[:, 0]
    steps = np.diff(t)
    if np.any(steps <= 0.0):
        r = int(np.argmax(steps <= 0.0)) + 2
        raise GyroFileError(
            f"{name}: row {r} (line {rows[r - 1][0]}), column {columns[0]!r}: time "
            f"{t[r - 1]:g} s does not come after {t[r - 2]:g} s"
        )
    if np.any(steps < MIN_SPACING):
        r = int(np.argmax(steps < MIN_SPACING)) + 2
        raise GyroFileError(
            f"{name}: row {r} (line {rows[r - 1][0]}), column {columns[0]!r}: time "
            f"{t[r - 1]:.9g} s comes {steps[r - 2]:.3g} s after {t[r - 2]:.9g} s; samples "
            f"{MIN_SPACING:g} s apart at least are read (no gyroscope samples faster)"
        )
    if t[-1] - t[0] > MAX_DURATION:
        raise GyroFileError(
            f"{name}: column {columns[0]!r} spans {t[-1] - t[0]:g} s; at most "
            f"{MAX_DURATION:g} s are fitted (cut the record to the flight)"
        )
    omega = data[:, 1:].copy()
    for c, deg in enumerate(degrees):
        if deg:
            omega[:, c] *= _DEG
    spin = np.linalg.norm(omega, axis=1)
    if np.any(spin > MAX_RATE):
        r = int(np.argmax(spin > MAX_RATE)) + 1
        raise GyroFileError(
            f"{name}: row {r} (line {rows[r - 1][0]}), columns {', '.join(columns[1:])}: "
            f"|ω| = {spin[r - 1]:.4g} rad/s is over {MAX_RATE:g} rad/s (AngVel's limit; no "
            "body carrying a gyroscope turns that fast)"
        )
    return GyroData(t - t[0], omega, columns, float(t[0]), notes)


def _plain(role: str) -> str:
    return {"time": "t", "x": "ωx / wx", "y": "ωy / wy", "z": "ωz / wz"}[role]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
