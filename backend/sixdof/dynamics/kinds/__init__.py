"""The element kinds of the dynamics: one module each, one line each in `KINDS`.

A kind's module holds, side by side (as Drake's force elements do): its dataclass
(`ELEMENT`), its name as scenarios spell it (`NAME`) and its code in an element row
(`CODE`, the row's E_KIND), its row's layout and `pack` (the numbers the kernels read),
`AUX_COLUMNS` (the row's offsets into the shared aux array, moved when systems are joined),
its compiled force (`act`: force, moment about the CG, point and other end, for the
derivative and the records alike; a pivot, a constraint, has `derivative`, `held` and
`reaction` instead, a joint its constraint rows, `fill` and `error`, for
`constraints_compiled`) and its stored energy (`stored`, J; None for a kind that stores none).

`NAMES` is the registry: the kinds' modules, in the order of their codes. Importing this
package imports nothing else (the scenario reads `NAMES` with no numpy); `table.KINDS` is
the table of them, and the kinds' compiled functions are marked (`jit.kernel`) and compiled
when `system_compiled` is imported. A new kind is a new module here, its name in `NAMES`, and
its branch in `system_compiled._act`.
"""

from __future__ import annotations

#: Every kind's module (and name, as scenarios spell it), in the order of their row codes.
NAMES: tuple[str, ...] = (
    "pivot", "spring", "damper", "ground", "load", "buoyancy", "added_mass", "joint",
    "controller", "radiation", "cable",
)  # fmt: skip

__all__ = ["NAMES"]
