"""The costliest worlds a room may take (issue 40): a fleet of floating ships in waves, a long
spring chain at a tiny step. What the attacks and the timing tier run beside the bystander.
And the floating sphere whose hull the BEM tests hand to Capytaine."""

from __future__ import annotations

import math
from typing import Any

SHIP = {
    "Name": "S0", "Mass": 6000.0, "InertiaRadi": [1.2, 3.0, 3.0], "Mesh": "ship",
    "Size": [10.0, 10.0, 10.0], "Pos": [0.0, 0.0, -0.48],
}  # fmt: skip


def fleet(n: int, waves: int, step: float = 1e-3) -> dict[str, Any]:
    """n ships, each with buoyancy, in `waves` wave components."""
    return {
        "name": f"fleet{n}",
        "bodies": [{**SHIP, "Name": f"S{i}", "Pos": [30.0 * i, 0.0, -0.48]} for i in range(n)],
        "elements": [{"kind": "buoyancy", "body": f"S{i}"} for i in range(n)],
        "water": {"waves": [{"amplitude": 0.2, "period": 4.0 + 0.1 * k} for k in range(waves)]},
        "integration": {"method": "rk4", "stepsize": step},
    }


def chain(n: int, step: float) -> dict[str, Any]:
    """n weightless balls in a line, each tied to the next by a spring."""
    return {
        "name": "chain",
        "bodies": [
            {"Name": f"C{i}", "Pos": [float(i), 0.0, 0.0], "Gravity": 0.0} for i in range(n)
        ],
        "elements": [
            {"kind": "spring", "body": f"C{i}", "to": {"body": f"C{i + 1}"}, "stiffness": 50.0}
            for i in range(n - 1)
        ],
        "integration": {"method": "rk4", "stepsize": step},
    }


#: The 960-facet sphere, R = 5 m, floating half under water (its mass is the water it
#: displaces then): the hull the BEM tests solve.
FLOATING_SPHERE: dict[str, Any] = {
    "name": "sphere",
    "bodies": [{"Name": "Sphere", "Mesh": "sphere", "Size": [10, 10, 10],
                "Mass": 1000 * 2 / 3 * math.pi * 125, "InertiaRadi": [2, 2, 2]}],
    "elements": [{"kind": "buoyancy", "body": "Sphere"}],
    "water": {"density": 1000},
}  # fmt: skip
