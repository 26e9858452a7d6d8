"""The per-body part of the protocol's state message, in plain Python values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..dynamics.output_table import FRAME
from ..dynamics.quaternion import Array

#: The per-body outputs of the state message, in order (docs/protocol.md, `BodyFrame`).
FRAME_KEYS = tuple(name for name, _ in FRAME)


def body_entries(outs: Mapping[str, Array], names: Sequence[str]) -> list[dict[str, object]]:
    """[{"Name": "B", "Pos": [x, y, z], …, "TotalEnergy": e, …}] from batch outputs (N, …)."""
    lists = {k: outs[k].tolist() for k in FRAME_KEYS}  # Python floats, one conversion each
    entries = []
    for i, name in enumerate(names):
        entry: dict[str, object] = {"Name": name}
        for k in FRAME_KEYS:
            entry[k] = lists[k][i]
        entries.append(entry)
    return entries
