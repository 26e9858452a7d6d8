"""Gyroscope recordings for the tests of the fit's bounds (issue 40, findings 1 and 17)."""

from __future__ import annotations

import numpy as np

HEADER = '"Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"'


def spinning(rate: float, seconds: float = 120.0, rows: int = 30) -> str:
    """`rows` samples over `seconds` s of a body spinning at `rate` rad/s about x: finding 1's
    file is spinning(1e5), 30 rows over 120 s (~950 bytes)."""
    lines = [HEADER] + [f"{k * seconds / (rows - 1):.4f},{rate:g},0.5,0.25" for k in range(rows)]
    return "\n".join(lines) + "\n"


def with_rate_at_row(value: str, row: int = 4, rows: int = 30) -> str:
    """A second at 30 Hz of 500 rad/s about x, with `value` (e.g. "1e308") in column x of
    `row` (1-based): finding 17's file."""
    lines = [HEADER] + [
        f"{k / (rows - 1):.4f},{value if k + 1 == row else '500'},0.5,0.25" for k in range(rows)
    ]
    return "\n".join(lines) + "\n"


def tumbling(rate: float = 150.0, seconds: float = 120.0, rows: int = 30, seed: int = 3) -> str:
    """`rows` samples over `seconds` s of rates drawn at random, at most `rate` rad/s: no body
    flies so, and the fit searches hundreds of integrations for one (accepted: estimated at
    7.0 s of computing at 250 rad/s, it took 3.8 s of a core)."""
    rng = np.random.default_rng(seed)
    lines = [HEADER]
    for k in range(rows):
        w = rng.uniform(-1.0, 1.0, 3)
        w *= rate / np.linalg.norm(w) * rng.uniform(0.5, 1.0)
        lines.append(f"{k * seconds / (rows - 1):.6f},{w[0]:.6f},{w[1]:.6f},{w[2]:.6f}")
    return "\n".join(lines) + "\n"
