"""Column names of the CSV files sixdof writes (headless runs, live history), and the file
a headless run writes by default.

FhSim names a column by body, port and component: `B.Pos[0]`; a one-wide quantity has no
index (`B.TotalEnergy`).
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_OUTPUT_FILE = "modeloutput.csv"  # FhSim's default --output-file


def column_names(name: str, columns: Sequence[tuple[str, int]]) -> list[str]:
    """`B.Pos[0]`, … for body `name` and (quantity, width) pairs, in order."""
    out = []
    for quantity, width in columns:
        if width == 1:
            out.append(f"{name}.{quantity}")
        else:
            out.extend(f"{name}.{quantity}[{k}]" for k in range(width))
    return out
