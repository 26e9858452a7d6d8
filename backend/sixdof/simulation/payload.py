"""The per-body part of the protocol's state message, in plain Python values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..dynamics.quaternion import Array

#: The per-body outputs of the state message, in order (protocol-contract.md); names and
#: meanings as `dynamics.outputs`: Force and Moment are the total applied global input
#: about the CG (constant + push channels).
FRAME_KEYS = (
    "Pos",
    "Quater",
    "Vel",
    "LocalVel",
    "AngVel",
    "Euler",
    "Force",
    "Moment",
    "KineticEnergy",
    "PotentialEnergy",
    "TotalEnergy",
    "LinearMomentum",
    "AngularMomentum",
    # what the page draws the physics with: the CG, its velocity, ω in the world frame and
    # the kinetic energy's two parts
    "CGPos",
    "CGVel",
    "AngVelGlobal",
    "TranslationalEnergy",
    "RotationalEnergy",
)


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
