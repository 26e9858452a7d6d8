"""The recorded changes that change the physics: one row per kind, the way to make it again.

A live simulation logs every change it takes at the step it took effect (timeline.py); the
kinds in `APPLIERS` are those that change what the next steps compute. Re-simulating makes
them again (replay.py, resimulation.py), a ghost re-runs them through its own settings
(ghost.py), and any of them makes the future a `go_back` left unreachable (timeline.py): all
read this one table.
Each row calls the LiveSimulation method the room used, with the arguments it recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol


class Changeable(Protocol):
    """The methods of a LiveSimulation (world.py) that make the physics changes: named here,
    not imported, because live.py imports timeline.py, which imports this table."""

    def set_input(self, body: str | None, force: Any = ..., moment: Any = ..., *,
                  frame: str = ..., point: Any = ..., channel: str = ...,
                  spring: Any = ...) -> None: ...  # fmt: skip
    def set_params(self, body: str | None = None, **fields: Any) -> list[str]: ...
    def set_elements(self, elements: Any) -> None: ...
    def set_water(self, water: Any) -> None: ...
    def reset(self, body: str | None = None, state: Mapping[str, Any] | None = None) -> None: ...


#: Makes one recorded change on a simulation: (sim, the recorded item, the set_params
#: fields to keep as they are).
Applier = Callable[[Changeable, Mapping[str, Any], Sequence[str]], None]


def _set_input(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str]) -> None:
    sim.set_input(item["body"], item["force"], item["moment"], frame=item["frame"],
                  point=item["point"], channel=item["channel"],
                  spring=item.get("spring"))  # fmt: skip


def _set_params(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str]) -> None:
    fields = {k: v for k, v in item["fields"].items() if k not in keep}
    if fields:
        sim.set_params(item["body"], **fields)


def _set_elements(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str]) -> None:
    sim.set_elements(item["elements"])


def _set_water(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str]) -> None:
    sim.set_water(item["water"])


def _reset(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str]) -> None:
    sim.reset(item["body"], item["state"])


#: Each physics change by its recorded kind, and how to make it again.
APPLIERS: dict[str, Applier] = {
    "set_input": _set_input,
    "set_params": _set_params,
    "set_elements": _set_elements,
    "set_water": _set_water,
    "reset": _reset,
}

#: The kinds of the recorded changes that change the physics.
PHYSICS_EVENTS = tuple(APPLIERS)


def apply_event(sim: Changeable, item: Mapping[str, Any], keep: Sequence[str] = ()) -> None:
    """Make a recorded physics change on `sim` with the method the room used; `keep`: the
    set_params fields not to change (a ghost's own settings). Other kinds change nothing."""
    applier = APPLIERS.get(item["kind"])
    if applier is not None:
        applier(sim, item, keep)
