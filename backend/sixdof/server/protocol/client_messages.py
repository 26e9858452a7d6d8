"""client -> server: what a page may send, each with a `type` literal (the union of them is
`ClientMessage` in __init__.py), and the parts they are made of. Every number's range is
`Within` the one table, `sixdof.fields.LIMITS`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ...scenario import Scenario
from ...scenario.bounded import Vec3, Vec4, Vec6, Within
from ...scenario.elements import ElementSpec
from ...scenario.water import WaterSpec
from .common import Message, MessageId


class ClientModel(Message):
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


class Spring(Message):
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
    MeshUnits: Literal["m", "mm", "in"] | None = None
    InertiaFrom: Literal["given", "solid", "shell"] | None = Field(
        None, description="solid, shell: Mass, CGOffset, Inertia follow the shape"
    )
    Density: Annotated[float, Within("Density")] | None = Field(
        None, description="kg/m³ (solid) or kg/m² (shell); Mass then follows the shape"
    )
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


class BodyState(Message):
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


class GhostSettings(Message):
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


class Answer(ClientModel):
    """client -> server: this page's answer to the room's prediction question (the hello's
    `question`); watchers may send it. One answer per connection per question counts: a
    second replaces the first. Refused when the room asks another question by now."""

    type: Literal["answer"]
    question: Annotated[int, Field(ge=1, description="the hello's question.id")]
    text: Annotated[str, Field(min_length=1, max_length=200)]
