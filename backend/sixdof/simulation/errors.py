"""The one error the live simulation raises: which field, what kind of problem, what to do."""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal["invalid", "out_of_range", "unstable_step", "unknown_body", "diverged"]
ERROR_CODES: tuple[ErrorCode, ...] = (
    "invalid",
    "out_of_range",
    "unstable_step",
    "unknown_body",
    "diverged",
)


class SimulationError(ValueError):
    """A request the simulation refused; nothing was changed.

    `field` is the name at the protocol's edge (FhSim's `Mass`, `InertiaRadi`, …,
    or `integrator`, `step`, `time_scale`, `body`, `state.Pos`), `code` one of
    ERROR_CODES (the server sends it as the error message's `code`), and
    `message` a sentence for people that starts with the field and names the
    allowed range, e.g. "Mass: must be in [1e-06, 1e+06] kg, got -1".
    """

    def __init__(self, field: str, code: ErrorCode, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}; codes are {list(ERROR_CODES)}")
        super().__init__(message)
        self.field = field
        self.code: ErrorCode = code
        self.message = message

    def __repr__(self) -> str:
        return f"SimulationError({self.field!r}, {self.code!r}, {self.message!r})"
