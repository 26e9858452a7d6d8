"""The one table of a body's outputs: what `model.outputs` computes and every consumer shows.

The JSON state frame, the binary frame, the live history and its CSV, the headless run's CSV
and the protocol's `BodyFrame` model all take their names, widths and order from `OUTPUTS`,
so a new output is one row here (and its formula in `model.outputs`).

Orders are part of the wire format: a state frame and a binary frame carry every row in
table order; a headless run writes the FhSim ports in FhSim's order (`port`); the live
history writes every body's ports, then every body's `history` rows in table order.

Plain Python, no numpy: the server's protocol builds `BodyFrame` from this table without
loading the physics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    """One output of a body: a number (width 1) or a vector."""

    name: str
    width: int
    unit: str  # SI; "" for a quaternion
    #: as the state frame's schema documents it (docs/protocol.md); "" leaves it undocumented
    description: str
    #: FhSim's port number (Body/6DBody writes Pos, Vel, Quater, LocalVel, AngVel), None
    #: for an output FhSim does not have
    port: int | None = None
    #: the live history keeps it besides the ports (its CSV's extra columns)
    history: bool = False


OUTPUTS: tuple[Output, ...] = (
    Output("Pos", 3, "m", "global position of the reference point, m", port=0),
    Output("Quater", 4, "", "unit quaternion (w, x, y, z), body to global", port=2),
    Output("Vel", 3, "m/s", "global velocity of the reference point, m/s", port=1),
    Output("LocalVel", 3, "m/s", "body-frame velocity, m/s", port=3),
    Output("AngVel", 3, "rad/s", "body-frame angular velocity, rad/s", port=4),
    Output("Euler", 3, "rad", "roll, pitch, yaw (z-y-x), rad", history=True),
    # the total applied global input about the CG (constant + push channels)
    Output("Force", 3, "N", "total applied global force at the CG, N", history=True),
    Output("Moment", 3, "N·m", "total applied global moment about the CG, N·m", history=True),
    Output("KineticEnergy", 1, "J", "", history=True),
    Output("PotentialEnergy", 1, "J", "", history=True),
    Output(
        "TotalEnergy",
        1,
        "J",
        "KineticEnergy + PotentialEnergy + StoredEnergy, J",
        history=True,
    ),
    Output("LinearMomentum", 3, "kg·m/s", "", history=True),
    Output("AngularMomentum", 3, "kg·m²/s", "about the CG, global frame", history=True),
    # what the page draws the physics with: the CG, its velocity, ω in the world frame and
    # the kinetic energy's two parts
    Output("CGPos", 3, "m", "global position of the CG, m"),
    Output("CGVel", 3, "m/s", "global velocity of the CG, m/s"),
    Output("AngVelGlobal", 3, "rad/s", "angular velocity in the global frame, rad/s"),
    Output("TranslationalEnergy", 1, "J", "½ m |CGVel|², J"),
    Output(
        "RotationalEnergy",
        1,
        "J",
        "½ ωᵀ I_g ω, J; with TranslationalEnergy sums to KineticEnergy",
    ),
    # a floating body (hydro.hydro_outputs): draft and elevation 0 without a buoyancy
    Output(
        "Draft",
        1,
        "m",
        "depth of the hull's lowest point below the local water "
        "surface, m; 0 clear of the water or without buoyancy",
        history=True,
    ),
    Output("Heel", 1, "rad", "roll angle, the Euler φ, rad", history=True),
    Output("Trim", 1, "rad", "pitch angle, the Euler θ, rad", history=True),
    Output("WaveElevation", 1, "m", "wave elevation η at the CG, positive up, m", history=True),
    # what the elements on the body hold (stored.stored_energy): springs, the ground's
    # contact springs, the still water's hydrostatic potential, an added mass's ½ νᵀ M_A ν (a
    # radiation memory's A∞ too)
    Output(
        "StoredEnergy",
        1,
        "J",
        "energy held by the body's elements (springs, ground contact, hydrostatic potential, "
        "added mass), J; 0 without elements",
        history=True,
    ),
    # the work the body's motion has done on the water through its radiation elements (their
    # last state, E_rad: radiated away or held in the memory), stored.radiated_energy
    Output(
        "RadiatedEnergy",
        1,
        "J",
        "work the body's motion has done on the water through its radiation elements since "
        "the start (waves radiated away, or held in the memory), J; 0 without radiation",
        history=True,
    ),
    # what the joints naming the body as their `body` measure (joint_outputs.py): the
    # largest over the bodies is a mechanism's drift; 0 on a body without joints
    Output(
        "JointGap",
        1,
        "m",
        "how far apart its joints' ends are (a slider's across its axis), the largest of "
        "the joints naming the body as `body`, m; 0 without joints",
        history=True,
    ),
    Output(
        "JointGapAngle",
        1,
        "rad",
        "how far its joints' bodies are turned off what they hold (a hinge's axes, a "
        "slider's or a weld's turn), the largest, rad; 0 without joints",
        history=True,
    ),
    Output(
        "JointForce",
        3,
        "N",
        "the reaction force its joints put on the body (global; the other end feels the "
        "opposite), N",
        history=True,
    ),
    Output(
        "JointMoment",
        3,
        "N·m",
        "the reaction moment its joints put on the body about their points (global; 0 for "
        "a ball), N·m",
        history=True,
    ),
    # what the cables ending on the body measure (cable_lines.py); each cable's own force at
    # either end, tensions and nodes are the state frame's elements
    Output(
        "CableForce",
        3,
        "N",
        "the force its cables put on the body at their ends (global, with the half end "
        "segments' weight), N; 0 without cables",
        history=True,
    ),
    Output(
        "CableTension",
        1,
        "N",
        "the largest segment tension of the cables ending on the body, N; 0 without cables",
        history=True,
    ),
    Output(
        "CableSeabedLength",
        1,
        "m",
        "the length of line lying on the seabed, of the cables naming the body as `body`, "
        "m; 0 without cables",
        history=True,
    ),
)

Columns = tuple[tuple[str, int], ...]


def _columns(rows: list[Output]) -> Columns:
    return tuple((o.name, o.width) for o in rows)


_BY_PORT = {o.port: o for o in OUTPUTS if o.port is not None}

#: (name, width) of every output, in the order of the state frame and of the binary block.
FRAME: Columns = _columns(list(OUTPUTS))
#: FhSim's output ports of Body/6DBody, in the order FhSim writes them: a headless run's
#: columns and the live history's first ones.
PORTS: Columns = _columns([_BY_PORT[k] for k in sorted(_BY_PORT)])
#: What the live history keeps after every body's ports, in table order.
HISTORY_EXTRA: Columns = _columns([o for o in OUTPUTS if o.history and o.port is None])
