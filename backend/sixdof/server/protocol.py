"""Websocket protocol v1: the one definition of every message between server and page.

Each message is a pydantic model with a `type` literal; `ServerMessage` and `ClientMessage`
are discriminated unions on it. docs/protocol.md and the published JSON Schema
(GET /api/protocol.schema.json) are generated from these models, and a test fails when
they drift. Field names at this edge are FhSim's (Force, Moment, Mass, InertiaRadi, Pos, …).
Every number's range comes from the one table, `sixdof.fields.LIMITS` (through
`Within`), so validation, the error messages, the `limits` sent in `hello`, the published
schema and docs/protocol.md all say the same thing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model, model_validator

from ..dynamics.output_table import OUTPUTS
from ..scenario import Scenario
from ..scenario.bounded import Vec3, Vec4, Vec6, Within
from ..scenario.elements import ElementSpec
from ..scenario.water import WaterSpec
from .error_codes import ErrorCode

PROTOCOL_VERSION = 1

MessageId = Annotated[str, Field(max_length=64)] | int | None
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
Pair = tuple[FiniteFloat, FiniteFloat]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- server -> client


class PresetInfo(_Message):
    """One entry of the preset list."""

    name: str
    title: str
    caption: str
    question: str = Field(description="a prediction to ask before running it")
    flip_axis: int | None = Field(
        description="body axis (0 x, 1 y, 2 z) whose AngVel changes sign at each flip, for "
        "presets that count flips (see sixdof.teaching.count_flips)"
    )


class Limits(_Message):
    """The ranges the server accepts, for the page's sliders and checks: [low, high] per field,
    both ends allowed unless `exclusive` says otherwise."""

    Mass: Pair
    InertiaRadi: Pair
    CGOffset: Pair
    Gravity: Pair
    Force: Pair
    Moment: Pair
    time_scale: Pair
    step: dict[str, Pair] = Field(
        description="per live integrator: [smallest, largest]; the largest of euler and rk4 "
        "is their stability limit, itself refused (exclusive)"
    )
    integrators: list[str]
    models: list[str]
    elements: dict[str, Pair] = Field(
        description="element fields (stiffness, damping, rest_length, linear, quadratic, "
        "height, restitution, friction): [low, high], each component of a vector"
    )
    water: dict[str, Pair] = Field(
        description="water fields, by their names in set_water (density, level, current, "
        "depth; a wave's amplitude, period, direction): [low, high], each component of a "
        "vector (depth: above low, see exclusive)"
    )
    exclusive: dict[str, tuple[bool, bool]] = Field(
        description="the pairs above with an end that is itself refused, by their path "
        "(water.depth, step.rk4): [low excluded, high excluded]; a pair not named here "
        "allows both its ends"
    )


class Status(_Message):
    """How the room's simulation is running."""

    running: bool
    time_scale: float
    rtf: float = Field(description="real-time factor achieved: simulated s per wall s")
    overruns: int = Field(description="times the loop could not keep up and dropped time")
    paused_reason: str | None = Field(description="why the simulation paused itself, if it did")
    compute_limited: bool = Field(
        False,
        description="in the last second the room needed more computing than its share of a "
        "tick (step, time scale, bodies) and dropped time: its clock runs slower than asked "
        "(rtf < 1) so that other rooms keep theirs",
    )
    forked_at: float | None = Field(
        None,
        description="t the room went back to with go_back, while undo_go_back can still "
        "return to the present it left (until the next change); null otherwise",
    )
    recorded_from: float | None = Field(
        None,
        description="t where the recording of the current run starts (the timeline's left "
        "end: GET /api/rooms/{room}/recording/frame answers from there on); null: none",
    )
    integrator: str
    step: float = Field(description="integrator step, s")


class AppliedLoad(_Message):
    """One input acting on a body, at the state of the frame (all global, NED)."""

    source: Literal["constant", "push", "spring"] = Field(
        description="the constant channel, the push channel, or the drag spring of the push channel"
    )
    Force: list[float] = Field(description="N, global")
    Moment: list[float] = Field(description="the pure couple, N·m, global (without At's lever)")
    At: list[float] = Field(
        description="point of application, NED m (the CG for a force without a point)"
    )


def _body_frame_fields() -> dict[str, Any]:
    """The body's Name, a field for each row of the one output table, and its Loads."""
    fields: dict[str, Any] = {"Name": str}
    for out in OUTPUTS:
        kind = float if out.width == 1 else list[float]
        fields[out.name] = (kind, Field(description=out.description or None))
    loads = "each input acting now (zero ones left out): the free-body diagram's arrows"
    fields["Loads"] = (list[AppliedLoad], Field(description=loads))
    return fields


BodyFrame = create_model(
    "BodyFrame",
    __base__=_Message,
    __module__=__name__,
    __doc__="One body's pose and outputs in a state frame (global frame NED unless Local*).",
    **_body_frame_fields(),
)


class HydroPeriods(_Message):
    """Linear natural periods, s; null when the mode has no restoring (GM ≤ 0: unstable)."""

    heave: float | None
    roll: float | None
    pitch: float | None


class HydrostaticsInfo(_Message):
    """A floating body's upright equilibrium in the room's still water (heel 0, trim free),
    from its drawn hull, mass, CG and added mass (sixdof.analysis.hydrostatics; K is the
    hull's lowest point)."""

    body: str
    draft: float = Field(description="depth of the hull's lowest point below the surface, m")
    volume: float = Field(description="displaced volume ∇ = m / ρ, m³")
    KB: float = Field(description="centre of buoyancy above the lowest point, m")
    KG: float = Field(description="CG above the lowest point, m")
    BM_T: float = Field(description="transverse metacentric radius I_T / ∇, m")
    BM_L: float = Field(description="longitudinal metacentric radius I_L / ∇, m")
    GM_T: float = Field(description="transverse metacentric height KB + BM_T − KG, m")
    GM_L: float = Field(description="longitudinal metacentric height KB + BM_L − KG, m")
    A_wp: float = Field(description="waterplane area, m²")
    periods: HydroPeriods


class Hello(_Message):
    """server -> client: everything needed to draw the room; sent on connect and re-sent to
    every client of the room whenever the scenario, a parameter or the integrator changes."""

    type: Literal["hello"] = "hello"
    protocol: Literal[1] = 1  # PROTOCOL_VERSION
    version: str = Field(description="sixdof version")
    room: str
    can_control: bool = Field(description="false: watch only (the server needs a token)")
    scenario: Scenario = Field(description="as GET /api/rooms/{room}/scenario")
    preset: str | None = Field(description="the preset the room's scenario was loaded from, if any")
    preset_modified: bool = Field(
        description="true when the scenario differs from that preset (or came from no preset)"
    )
    integrator: str
    step: float
    presets: list[PresetInfo]
    limits: Limits
    status: Status
    frames: Literal["json", "binary"] = Field(
        "json",
        description="how this client gets state frames: JSON `state` messages, or binary "
        "messages in the layout of docs/protocol.md (asked for with /ws?frames=binary)",
    )
    hydrostatics: list[HydrostaticsInfo] = Field(
        default_factory=list,
        description="one entry per body with a buoyancy element that floats (one that would "
        "sink is left out), in body order",
    )


class GhostBody(_Message):
    Pos: Vec3
    Quater: Vec4


class GhostDiff(_Message):
    pos: float = Field(description="distance between the ghost's and the live body's Pos, m")
    angle: float = Field(description="angle of the rotation from the live body to the ghost, rad")


class GhostFrame(_Message):
    """The ghost run beside the room (set_ghost): its poses and how far it is from the room."""

    t: float = Field(description="the ghost's simulated time, s (the room's within a step)")
    changes: dict[str, Any] = Field(description="what the ghost runs with (GhostSettings)")
    behind: bool = Field(description="the ghost could not keep up in the last tick")
    bodies: list[GhostBody]
    diff: list[GhostDiff]


class ElementFrame(_Message):
    """What one element does now, in the order of the scenario's `elements`."""

    point: Vec3 = Field(
        description="where it acts, NED, m (a ground: centre of pressure; a buoyancy: the "
        "centre of buoyancy's foot on its line of action, the centre itself in still water)"
    )
    force: Vec3 = Field(
        description="the force it puts on its body there, global, N (a pivot: its reaction)"
    )
    other: Vec3 = Field(description="a spring's other end, NED, m; else the point again")


class State(_Message):
    """server -> client: one frame of the room's simulation, at the frame rate (60 Hz)."""

    type: Literal["state"] = "state"
    seq: int = Field(description="frame number in this room; gaps mean dropped frames")
    t: float = Field(description="simulated time, s")
    status: Status
    bodies: list[BodyFrame]
    ghost: GhostFrame | None = Field(None, description="only while the room has a ghost")
    elements: list[ElementFrame] | None = Field(
        None, description="only when the scenario has elements: what each does now"
    )


class Ack(_Message):
    """server -> client: a client message was applied."""

    type: Literal["ack"] = "ack"
    id: MessageId = Field(None, description="the id the client sent, if any")
    of: str = Field(description="the type of the message acknowledged")


class Error(_Message):
    """server -> client: a client message was refused; nothing changed."""

    type: Literal["error"] = "error"
    id: MessageId = Field(None, description="the id the client sent, if any")
    code: ErrorCode
    message: str = Field(description="what was wrong, naming the field and the allowed range")
    field: str | None = Field(None, description="the offending field, if one")


class Preparing(_Message):
    """server -> client: the first message to a viewer who joins while the server is still
    loading the physics (numpy, the engine, numba's kernels, compiled first if numba's cache
    is cold); its `hello` follows once they are ready."""

    type: Literal["preparing"] = "preparing"
    message: str = Field(description="what the server is doing, for the page to show")
    cold: bool = Field(
        description="numba's cache was empty or stale: the kernels are being compiled "
        "(~10 s; `sixdof warm` fills the cache), not just loaded (~1 s)"
    )
    elapsed: float = Field(description="seconds since the server began loading the physics")
    expected: float | None = Field(
        None,
        description="seconds the whole preparation is expected to take, from its start "
        "(an estimate, refined as it goes); null: unknown",
    )
    progress: float | None = Field(
        None,
        description="share done, 0 to 1 (while compiling: the kernels in numba's cache); "
        "null: unknown",
    )


# --------------------------------------------------------------------------- client -> server


class ClientModel(_Message):
    """The fields every client message has (each narrows `type` to its own literal)."""

    type: str
    id: MessageId = Field(None, description="optional; echoed in the ack or error")


class SetInput(ClientModel):
    """client -> server: set a body's applied force and moment.

    channel "constant" replaces the body's constant Force/Moment (kept in the scenario);
    "push" is a transient input added on top, cleared by sending zeros. frame "body": the
    vectors are in body axes and turn with the body. point: the Force acts at this point
    (body frame, relative to the reference point), adding (point - CGOffset) x Force."""

    type: Literal["set_input"]
    body: str | None = Field(None, description="body Name; default the first body")
    channel: Literal["constant", "push"] = Field(
        "constant", description="constant: replaces the body's Force/Moment; push: added on top"
    )
    frame: Literal["global", "body"] = Field(
        "global", description="axes of Force and Moment: global (NED) or body (turns with it)"
    )
    Force: Annotated[Vec3, Within("Force")] = Field(
        (0.0, 0.0, 0.0), description="at the CG, or at point"
    )
    Moment: Annotated[Vec3, Within("Moment")] = Field((0.0, 0.0, 0.0), description="about the CG")
    point: Annotated[Vec3, Within("point")] | None = Field(
        None, description="where Force acts: body frame, relative to the reference point"
    )
    spring: Spring | None = Field(
        None,
        description="push channel only: instead of Force, pull point (the CG without one) "
        "toward target with stiffness × distance − damping × the point's velocity, "
        "evaluated at every integrator stage",
    )


class Spring(_Message):
    """A spring pulling the point toward a world target (a hand on the body)."""

    target: Annotated[Vec3, Within("target")] = Field(description="NED, m")
    stiffness: Annotated[float, Within("stiffness")] = Field(description="N/m")
    damping: Annotated[float, Within("damping")] = Field(0.0, description="N·s/m")
    max_force: Annotated[float, Within("max_force")] = Field(
        1e7, description="N: the pull never exceeds this"
    )


class SetParams(ClientModel):
    """client -> server: change parameters while the body moves (no jump in pose).

    All or nothing: if any field is invalid, nothing changes. Give at least one field."""

    type: Literal["set_params"]
    body: str | None = Field(None, description="body Name; default the first body")
    Mass: Annotated[float, Within("Mass")] | None = None
    InertiaRadi: Annotated[Vec3, Within("InertiaRadi")] | None = None
    Inertia: Annotated[Vec6, Within("Inertia")] | None = Field(
        None, description="Ixx, Iyy, Izz, Ixy, Ixz, Iyz about the CG; null: use InertiaRadi"
    )
    CGOffset: Annotated[Vec3, Within("CGOffset")] | None = None
    Gravity: Annotated[float, Within("Gravity")] | None = None
    model: Literal["full", "fhsim"] | None = None
    Mesh: Annotated[str, Field(max_length=128)] | None = None
    Material: Annotated[str, Field(max_length=128)] | None = None
    MeshScale: Annotated[Vec3, Within("MeshScale")] | None = None
    Size: Annotated[Vec3, Within("Size")] | None = None
    MeshOrigin: Annotated[Vec3, Within("MeshOrigin")] | None = None
    integrator: Literal["euler", "rk4", "geometric", "exact"] | None = Field(
        None, description="simulation-wide"
    )
    step: Annotated[float, Within("step")] | None = Field(
        None,
        description="simulation-wide integrator step; must also be below the integrator's "
        "stability limit (limits.step in hello: 0.02 s euler, 0.0279 s rk4), else unstable_step",
    )

    def changes(self) -> dict[str, Any]:
        """The fields the client gave (an explicit null Inertia included)."""
        return self.model_dump(exclude_unset=True, exclude={"type", "id", "body"})

    @model_validator(mode="after")
    def _something(self) -> SetParams:
        if not self.changes():
            raise ValueError("give at least one parameter to change")
        return self


class SetElements(ClientModel):
    """Replace the scenario's elements (pivots, springs, dampers, the ground, timed loads),
    all or nothing: add, remove and tune are a new list. A new pivot without `at` holds its
    point where it is now. The room's hello is sent again."""

    type: Literal["set_elements"]
    elements: list[ElementSpec] = Field(max_length=64)


class SetWater(ClientModel):
    """Replace the scenario's water (density, still level, current, waves, depth), all or
    nothing; null: no water (buoyancy and dampers then act in still sea water, 1025 kg/m³,
    level 0). The state runs on; buoyancy and dampers feel the new water from the next
    step. The room's hello is sent again."""

    type: Literal["set_water"]
    water: WaterSpec | None = Field(description="as the scenario's `water`; null: none")


class Pause(ClientModel):
    """client -> server: pause the simulation (frames keep coming, t stands still)."""

    type: Literal["pause"]


class Resume(ClientModel):
    """client -> server: resume real-time running."""

    type: Literal["resume"]


class Step(ClientModel):
    """client -> server: advance n integrator steps (works while paused)."""

    type: Literal["step"]
    n: Annotated[int, Within("n")] = 1


class BodyState(_Message):
    """A body's state; omitted parts keep their values from the scenario's initial state."""

    Pos: Annotated[Vec3, Within("Pos")] | None = None
    Quater: Annotated[Vec4, Within("Quater")] | None = None
    LocalVel: Annotated[Vec3, Within("LocalVel")] | None = None
    AngVel: Annotated[Vec3, Within("AngVel")] | None = None


class Reset(ClientModel):
    """client -> server: reset to the scenario's initial state, or set one body's state."""

    type: Literal["reset"]
    body: str | None = Field(None, description="body Name; default all bodies / the first")
    state: BodyState | None = None


class SetTimeScale(ClientModel):
    """client -> server: simulated seconds per wall-clock second."""

    type: Literal["set_time_scale"]
    time_scale: Annotated[float, Within("time_scale")]


class GhostSettings(_Message):
    """What a ghost run changes: body parameters (for every body), the integrator, the step."""

    model: Literal["full", "fhsim"] | None = None
    Mass: Annotated[float, Within("Mass")] | None = None
    InertiaRadi: Annotated[Vec3, Within("InertiaRadi")] | None = None
    Inertia: Annotated[Vec6, Within("Inertia")] | None = None
    CGOffset: Annotated[Vec3, Within("CGOffset")] | None = None
    Gravity: Annotated[float, Within("Gravity")] | None = None
    integrator: Literal["euler", "rk4", "geometric", "exact"] | None = Field(
        None,
        description="exact: the closed-form torque-free body, so ghost − live is the "
        "live integrator's own error",
    )
    step: Annotated[float, Within("step")] | None = None

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class SetGhost(ClientModel):
    """client -> server: run the room's own inputs through other settings beside it (a
    translucent ghost on the page, with the difference in `state.ghost`), or end the ghost
    (`changes` null). The ghost re-runs the recorded changes from a keyframe of the current
    run (docs/recording.md), then follows the room."""

    type: Literal["set_ghost"]
    changes: GhostSettings | None = None


class GoBack(ClientModel):
    """client -> server: take the room back to its frame at or before t (of the current
    run, re-simulated from the recording) and go on from there, for everyone in the room.
    The present it leaves is kept until the next change: undo_go_back returns to it."""

    type: Literal["go_back"]
    t: Annotated[float, Field(ge=0.0, allow_inf_nan=False, description="simulated time, s")]


class UndoGoBack(ClientModel):
    """client -> server: return to where the room was before the last go_back."""

    type: Literal["undo_go_back"]


class Auth(ClientModel):
    """client -> server: the token, as the first message instead of in the URL (?token=…).

    The server answers with an ack and a new hello whose can_control says what the token
    gave; a wrong token gets an error `forbidden` and the connection stays a watcher."""

    type: Literal["auth"]
    token: Annotated[str, Field(min_length=1, max_length=256)]


class LoadScenario(ClientModel):
    """client -> server: replace the room's scenario by a preset or a whole scenario."""

    type: Literal["load_scenario"]
    preset: Annotated[str, Field(max_length=64)] | None = None
    scenario: Scenario | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> LoadScenario:
        if (self.preset is None) == (self.scenario is None):
            raise ValueError("give exactly one of 'preset' (a name) or 'scenario' (an object)")
        return self


ServerMessage = Annotated[
    Union[Hello, State, Ack, Error, Preparing],  # noqa: UP007
    Field(discriminator="type"),
]
ClientMessage = Annotated[
    Union[  # noqa: UP007
        SetInput,
        SetParams,
        SetElements,
        SetWater,
        Pause,
        Resume,
        Step,
        Reset,
        SetTimeScale,
        LoadScenario,
        Auth,
        GoBack,
        UndoGoBack,
        SetGhost,
    ],
    Field(discriminator="type"),
]


def _by_type(union: Any) -> dict[str, Any]:
    """The members of a discriminated union (`ServerMessage`, `ClientMessage`) by their
    `type` literal, in the union's order."""
    members = get_args(get_args(union)[0])
    return {get_args(m.model_fields["type"].annotation)[0]: m for m in members}


SERVER_MESSAGES: dict[str, type[BaseModel]] = _by_type(ServerMessage)
CLIENT_MESSAGES: dict[str, type[ClientModel]] = _by_type(ClientMessage)

server_message_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)
client_message_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def limits() -> dict[str, Any]:
    """The `limits` object of `hello`, from the one table (sixdof.fields.LIMITS)."""
    from ..simulation.limits import live_limits  # the integrators' stability limits: numpy

    return live_limits()


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of every message, server -> client and client -> server."""
    every = (*SERVER_MESSAGES.values(), *CLIENT_MESSAGES.values())
    union: Any = Annotated[Union[every], Field(discriminator="type")]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"sixdof websocket protocol v{PROTOCOL_VERSION}",
        "description": "Every JSON text frame on /ws is one of these objects, told apart by "
        "'type'. server -> client: "
        + ", ".join(SERVER_MESSAGES)
        + ". client -> server: "
        + ", ".join(CLIENT_MESSAGES)
        + ".",
        "x-server-to-client": list(SERVER_MESSAGES),
        "x-client-to-server": list(CLIENT_MESSAGES),
        **schema,
    }
