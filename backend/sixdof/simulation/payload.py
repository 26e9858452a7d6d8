"""The per-body and per-element parts of the protocol's state message, in plain Python
values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..dynamics.cable_lines import has_cables, lines
from ..dynamics.elements import Joint, System
from ..dynamics.joint_outputs import has_joints, joint_gaps
from ..dynamics.output_table import FRAME
from ..dynamics.params import Bodies
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


def element_entries(
    system: System, bodies: Bodies, x: Array, records: Array, z: Array | None = None
) -> list[dict[str, object]]:
    """The state frame's `elements`: [{"point", "force", "other"}, …] from the records (M, 12)
    of kernel.element_records, a joint's with its reaction `moment` about its point and its
    `gap` [m, rad] besides (joint_outputs.py), a cable's with its `nodes`, `tension`,
    `force_b` and `seabed_length` (cable_lines.py, from the elements' states z)."""
    found = joint_gaps(system, bodies, x) if has_joints(system) else None
    cables = lines(system, bodies, x, z) if has_cables(system) else None
    entries: list[dict[str, object]] = []
    for j, r in enumerate(records.tolist()):
        entry: dict[str, object] = {"point": r[0:3], "force": r[3:6], "other": r[6:9]}
        if found is not None and isinstance(system.elements[j], Joint):
            entry["moment"] = r[9:12]
            entry["gap"] = found[j].tolist()
        line = None if cables is None else cables[j]
        if line is not None:
            entry["nodes"] = line.nodes.tolist()
            entry["tension"] = line.tension.tolist()
            entry["force_b"] = line.force_b.tolist()
            entry["seabed_length"] = line.seabed_length
        entries.append(entry)
    return entries
