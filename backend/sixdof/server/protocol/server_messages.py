"""server -> client: what the server sends a page, each with a `type` literal (the union of
them is `ServerMessage` in __init__.py), and the parts they are made of. A body's frame has a
field for each row of the one output table (`dynamics.output_table.OUTPUTS`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, create_model

from ...dynamics.output_table import OUTPUTS
from ...scenario import Scenario
from ...scenario.bounded import Vec3, Vec4
from ..error_codes import ErrorCode
from .common import Message, MessageId, Pair


class AskedQuestion(Message):
    """The prediction question the room asks now (a preset's, or a lesson step's)."""

    id: int = Field(description="sent back in an `answer`; new for every question asked")
    text: str = Field(description="in English for a preset, as written for a lesson step")
    preset: str | None = Field(
        description="the preset whose question it is (shown from the page's catalogue)"
    )


class PresetInfo(Message):
    """One entry of the preset list."""

    name: str
    title: str
    caption: str
    question: str = Field(description="a prediction to ask before running it")
    values: dict[str, float | str] = Field(
        default_factory=dict,
        description="the numbers (and formulas) of the catalogue's ICU messages preset.NAME.*",
    )
    flip_axis: int | None = Field(
        description="body axis (0 x, 1 y, 2 z) whose AngVel changes sign at each flip, for "
        "presets that count flips (see sixdof.teaching.count_flips)"
    )


class Limits(Message):
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


class Status(Message):
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


class AppliedLoad(Message):
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
    __base__=Message,
    __module__=__name__,
    __doc__="One body's pose and outputs in a state frame (global frame NED unless Local*).",
    **_body_frame_fields(),
)


class HydroPeriods(Message):
    """Linear natural periods, s; null when the mode has no restoring (GM ≤ 0: unstable)."""

    heave: float | None
    roll: float | None
    pitch: float | None


class HydrostaticsInfo(Message):
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


class Hydrodynamics(Message):
    """GET /api/rooms/{room}/hydrodynamics: a body's radiation memory for the page's
    Hydrodynamics card, per pair of degrees of freedom the fit realises (`pairs`, [i, j] with
    i ≤ j, 0…5 surge, sway, heave, roll, pitch, yaw; each per-pair list follows `pairs`)."""

    body: str
    omega: list[float] = Field(description="the BEM file's frequencies, rad/s")
    pairs: list[list[int]]
    added_mass: list[list[float]] = Field(description="the file's A(ω), per pair, per ω")
    damping: list[list[float]] = Field(description="the file's B(ω), per pair, per ω")
    fit_added_mass: list[list[float]] = Field(description="the fitted model's A(ω) at `omega`")
    fit_damping: list[list[float]] = Field(description="the fitted model's B(ω) at `omega`")
    infinite: list[float] = Field(description="A∞ per pair (the fit's)")
    t: list[float] = Field(description="times of the memory's samples, s")
    kernel: list[list[float]] = Field(
        description="the file's K(t) = (2/π)∫B(ω)cos(ωt)dω (B carried past its last ω as ω⁻²)"
    )
    fit_kernel: list[list[float]] = Field(description="the fit's K(t) = C e^{At} B")
    passive_damping: list[float] = Field(
        description="D per pair: the constant damping added to make the fit passive"
    )
    error: float = Field(
        description="the fit's reported error: max |K_fit(jω) − K(jω)| / `scale`, "
        "K(jω) = B(ω) + jω(A(ω) − A∞)"
    )
    scale: float = Field(description="the largest |K(jω)| of the file over the pairs")
    states: int = Field(description="the fitted model's states")
    extrapolated: bool = Field(description="A∞ worked out from A(ω), not read from the file")


class Hello(Message):
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
    question: AskedQuestion | None = Field(
        None,
        description="the prediction question the room asks: its page shows an answer box "
        "(watchers too) and sends `answer`",
    )


class GhostBody(Message):
    Pos: Vec3
    Quater: Vec4


class GhostDiff(Message):
    pos: float = Field(description="distance between the ghost's and the live body's Pos, m")
    angle: float = Field(description="angle of the rotation from the live body to the ghost, rad")


class GhostFrame(Message):
    """The ghost run beside the room (set_ghost): its poses and how far it is from the room."""

    t: float = Field(description="the ghost's simulated time, s (the room's within a step)")
    changes: dict[str, Any] = Field(description="what the ghost runs with (GhostSettings)")
    behind: bool = Field(description="the ghost could not keep up in the last tick")
    bodies: list[GhostBody]
    diff: list[GhostDiff]


class ElementFrame(Message):
    """What one element does now, in the order of the scenario's `elements`."""

    point: Vec3 = Field(
        description="where it acts, NED, m (a ground: centre of pressure; a buoyancy: the "
        "centre of buoyancy's foot on its line of action, the centre itself in still water)"
    )
    force: Vec3 = Field(
        description="the force it puts on its body there, global, N (a pivot: its reaction)"
    )
    other: Vec3 = Field(description="a spring's other end, NED, m; else the point again")
    moment: Vec3 | None = Field(
        None,
        description="a joint only: its reaction moment on its body about its point, global, "
        "N·m (0 for a ball)",
    )
    gap: list[float] | None = Field(
        None,
        description="a joint only: [m, rad], how far its ends are apart (a slider's across "
        "its axis) and how far its bodies are turned off what it holds",
    )
    nodes: list[Vec3] | None = Field(
        None,
        description="a cable only: its n + 1 nodes, NED, m, from its body point (`point`) to "
        "its other end (`other`): what the page draws",
    )
    tension: list[float] | None = Field(
        None, description="a cable only: each segment's tension, N, from its body point on"
    )
    force_b: Vec3 | None = Field(
        None,
        description="a cable only: the force it puts on its other end (ForceB; an anchor: "
        "what the anchor holds), global, N; `force` is ForceA, on its body",
    )
    seabed_length: float | None = Field(
        None, description="a cable only: the length of line lying on the seabed, m"
    )


class State(Message):
    """server -> client: one frame of the room's simulation, at the frame rate (60 Hz); a
    room whose frame has not changed (paused, or at rest) sends it once a second."""

    type: Literal["state"] = "state"
    seq: int = Field(
        description="the room's tick; a gap is frames not sent (dropped for a client that "
        "is behind, or a still room's repeats)"
    )
    t: float = Field(description="simulated time, s")
    status: Status
    bodies: list[BodyFrame]
    ghost: GhostFrame | None = Field(None, description="only while the room has a ghost")
    elements: list[ElementFrame] | None = Field(
        None, description="only when the scenario has elements: what each does now"
    )


class Ack(Message):
    """server -> client: a client message was applied."""

    type: Literal["ack"] = "ack"
    id: MessageId = Field(None, description="the id the client sent, if any")
    of: str = Field(description="the type of the message acknowledged")


class Error(Message):
    """server -> client: a client message was refused; nothing changed."""

    type: Literal["error"] = "error"
    id: MessageId = Field(None, description="the id the client sent, if any")
    code: ErrorCode
    message: str = Field(description="what was wrong, naming the field and the allowed range")
    field: str | None = Field(None, description="the offending field, if one")


class Preparing(Message):
    """server -> client: the first message to a viewer who joins while the server is still
    loading the physics (numpy, the engine, numba's kernels, compiled first if numba's cache
    is cold); its `hello` follows once they are ready."""

    type: Literal["preparing"] = "preparing"
    message: str = Field(description="what the server is doing, for the page to show")
    cold: bool = Field(
        description="numba's cache was empty or stale: the kernels are being compiled "
        "(~2 min on two cores; `sixdof warm` fills the cache), not just loaded (~1 s)"
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
