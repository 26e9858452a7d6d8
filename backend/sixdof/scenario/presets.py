"""Ready-made scenarios for the lab, each showing one thing a student can watch for.

Every preset is model `full` (Newton–Euler) unless it says otherwise and is
integrated with RK4 at h = 1 ms. Visuals: `Size` is the body's extent in metres
along body x, y, z (the shipped meshes fit a unit box), and the inertia is
that of the solid the mesh depicts, so what you see spins the way it looks
like it should. Numbers in the captions are computed from the parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..dynamics.names import Model
from .model import BodySpec, Integration, Scenario

G = 9.81  # m/s², the default Gravity


@dataclass(frozen=True)
class Preset:
    """A named scenario: `title` for menus, `caption` says what to watch, `question` asks
    the class to predict it first; `flip_axis` (0, 1, 2: body x, y, z) names the axis whose
    AngVel component changes sign at each flip, for presets that count flips."""

    name: str
    title: str
    caption: str
    build: Callable[[], list[BodySpec]]
    t_end: float = 10.0  # s, the end of TOutput for headless runs
    question: str = ""
    flip_axis: int | None = None

    def scenario(self) -> Scenario:
        """A fresh, validated Scenario (rk4, h = 1 ms, output every 10 ms)."""
        return Scenario(
            name=self.name,
            caption=self.caption,
            bodies=self.build(),
            integration=Integration(method="rk4", stepsize=1e-3, TOutput=f"0:0.01:{self.t_end:g}"),
        )


def box_radii(a: float, b: float, c: float) -> tuple[float, float, float]:
    """Radii of gyration of a solid box with edges a, b, c along x, y, z (m)."""
    return (
        round(math.sqrt((b * b + c * c) / 12.0), 6),
        round(math.sqrt((a * a + c * c) / 12.0), 6),
        round(math.sqrt((a * a + b * b) / 12.0), 6),
    )


def sphere_radii(diameter: float) -> tuple[float, float, float]:
    """Radii of gyration of a solid sphere: √(2/5) R about every axis."""
    r = round(math.sqrt(0.4) * diameter / 2.0, 6)
    return (r, r, r)


def cylinder_radii(diameter: float, height: float) -> tuple[float, float, float]:
    """Solid cylinder with its axis along body z: rz = R/√2, rx = ry = √((3R² + h²)/12)."""
    r = diameter / 2.0
    transverse = round(math.sqrt((3.0 * r * r + height * height) / 12.0), 6)
    return (transverse, transverse, round(r / math.sqrt(2.0), 6))


# -- the numbers the captions quote ---------------------------------------------------
HOVER_MASS, HOVER_BOX = 2.0, (0.8, 0.5, 0.3)
FALL_D = 0.5
THROW_V, THROW_BOX = 8.0, (0.4, 0.1, 0.2)
# The T-handle and ship meshes come at their own size (meshes/meshes.json), so their
# Size is 1 and their InertiaRadi are the radii meshes.json lists for them.
RACKET_RADII, RACKET_SPIN = (0.2556, 0.1491, 0.2932), 4.0
TOP_D, TOP_H, TOP_SPIN, TOP_TILT = 1.0, 0.2, 2.0, 0.8
SPIN_MASS, SPIN_BOX, SPIN_MOMENT = 2.0, (1.0, 0.4, 0.2), 0.2
SHIP_RADII, SHIP_V, SHIP_W = (0.072, 0.26, 0.2629), 5.0, 2.0
BAR_BOX, BAR_OFFSET, BAR_W = (1.0, 0.3, 0.3), 0.5, 2.0

_top_r = cylinder_radii(TOP_D, TOP_H)
_top_l = (_top_r[0] ** 2 * TOP_TILT, _top_r[2] ** 2 * TOP_SPIN)  # L in body axes (x, z), m = 1
_top_rate = math.hypot(*_top_l) / _top_r[0] ** 2  # torque-free precession |L| / I⊥
_spin_izz = SPIN_MASS * box_radii(*SPIN_BOX)[2] ** 2


def _hover() -> list[BodySpec]:
    return [
        BodySpec(
            Name="B",
            Mass=HOVER_MASS,
            InertiaRadi=box_radii(*HOVER_BOX),
            model="full",
            Force=(0.0, 0.0, -HOVER_MASS * G),
            AngVel=(0.0, 0.0, 0.5),
            Mesh="box",
            Size=HOVER_BOX,
            Material="Simple/Orange",
        )
    ]


def _free_fall() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Ball",
            Mass=1.0,
            InertiaRadi=sphere_radii(FALL_D),
            model="full",
            Mesh="sphere",
            Size=(FALL_D,) * 3,
            Material="Simple/Red",
        )
    ]


def _projectile() -> list[BodySpec]:
    # y has the largest moment of this brick, so the tumble about y is steady.
    return [
        BodySpec(
            Name="Brick",
            Mass=1.0,
            InertiaRadi=box_radii(*THROW_BOX),
            model="full",
            LocalVel=(THROW_V, 0.0, -THROW_V),
            AngVel=(0.0, 3.0, 0.0),
            Mesh="box",
            Size=THROW_BOX,
            Material="Simple/Yellow",
        )
    ]


def _tennis_racket() -> list[BodySpec]:
    # A flat T in the body xy-plane: bar along y, stem along x. I_y < I_x < I_z, so x
    # is the intermediate axis; the small z spin is the perturbation that grows.
    return [
        BodySpec(
            Name="T",
            Mass=1.0,
            InertiaRadi=RACKET_RADII,
            model="full",
            Gravity=0.0,
            AngVel=(RACKET_SPIN, 0.0, 0.02),
            Mesh="t_handle",
            Size=(1.0, 1.0, 1.0),
            Material="Simple/Blue",
        )
    ]


def _symmetric_top() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Top",
            Mass=1.0,
            InertiaRadi=_top_r,
            model="full",
            Gravity=0.0,
            AngVel=(TOP_TILT, 0.0, TOP_SPIN),
            Mesh="cylinder",
            Size=(TOP_D, TOP_D, TOP_H),
            Material="Simple/Green",
        )
    ]


def _spin_up() -> list[BodySpec]:
    return [
        BodySpec(
            Name="B",
            Mass=SPIN_MASS,
            InertiaRadi=box_radii(*SPIN_BOX),
            model="full",
            Force=(0.0, 0.0, -SPIN_MASS * G),
            Moment=(0.0, 0.0, SPIN_MOMENT),
            Mesh="box",
            Size=SPIN_BOX,
            Material="Simple/White",
        )
    ]


def _ship(model: Model, material: str) -> Callable[[], list[BodySpec]]:
    def build() -> list[BodySpec]:
        return [
            BodySpec(
                Name="Ship",
                Mass=1.0,
                InertiaRadi=SHIP_RADII,
                model=model,
                Gravity=0.0,
                LocalVel=(SHIP_V, 0.0, 0.0),
                AngVel=(0.0, 0.0, SHIP_W),
                Mesh="ship",
                Size=(1.0, 1.0, 1.0),
                Material=material,
            )
        ]

    return build


def _offset_cg() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Bar",
            Mass=1.0,
            InertiaRadi=box_radii(*BAR_BOX),
            model="full",
            Gravity=0.0,
            CGOffset=(BAR_OFFSET, 0.0, 0.0),
            AngVel=(0.0, 0.0, BAR_W),
            Mesh="box",
            Size=BAR_BOX,
            Material="Simple/Green",
        )
    ]


_PRESET_LIST = [
    Preset(
        "hover",
        "Hover",
        f"The weight m g = {HOVER_MASS * G:.2f} N is cancelled by a constant upward Force of "
        f"{-HOVER_MASS * G:.2f} N along z (NED z points down), so the box floats in place "
        "while it turns slowly about its vertical axis. Push it: with no drag it drifts on.",
        _hover,
        question=(
            "The box floats, turning slowly. Give it one push sideways and let go: what will "
            "it do then?"
        ),
    ),
    Preset(
        "free_fall",
        "Free fall",
        "Released from rest, the ball falls along +z (down): z = ½ g t², "
        f"{0.5 * G:.3f} m after 1 s and {2 * G:.2f} m after 2 s; its speed grows by "
        f"{G} m/s every second.",
        _free_fall,
        3.0,
        question=("Dropped from rest: how far will the ball have fallen after 1 s, and after 2 s?"),
    ),
    Preset(
        "projectile",
        "Projectile",
        f"Thrown at {THROW_V:g} m/s forward and {THROW_V:g} m/s up while tumbling, the "
        f"brick follows a parabola: highest ({THROW_V**2 / (2 * G):.2f} m) at "
        f"t = {THROW_V / G:.2f} s, back at z = 0 at t = {2 * THROW_V / G:.2f} s, "
        f"{2 * THROW_V**2 / G:.1f} m downrange. The spin does not bend the path.",
        _projectile,
        2.0,
        question=(
            "Thrown forward and up while tumbling: will the spin bend its path, and where "
            "does it land?"
        ),
    ),
    Preset(
        "tennis_racket",
        "Tennis racket (Dzhanibekov) effect",
        f"The T-handle spins at {RACKET_SPIN:g} rad/s about its intermediate axis (x) with a "
        "tiny wobble that grows until the handle flips over, and again every few seconds, "
        "AngVel x changing sign each time. Model fhsim, which drops ω × Iω, never flips.",
        _tennis_racket,
        20.0,
        question=(
            "The handle spins steadily about its middle axis. What will the handle do after "
            "half a turn?"
        ),
        flip_axis=0,
    ),
    Preset(
        "symmetric_top",
        "Symmetric top: precession",
        "The disc spins about its axis, tilted from its angular momentum. With no "
        "torque the angular momentum stays fixed and the axis sweeps a cone of "
        f"{math.degrees(math.atan2(*_top_l)):.0f}° around it, once every "
        f"{2 * math.pi / _top_rate:.2f} s (rate |L|/I⊥ = {_top_rate:.2f} rad/s).",
        _symmetric_top,
        question=(
            "No torque acts on the spinning disc, but its axis is tilted from its angular "
            "momentum. Will the axis stay put, fall over, or move?"
        ),
    ),
    Preset(
        "spin_up",
        "Spin-up under a constant moment",
        f"A constant Moment of {SPIN_MOMENT:g} N·m about z spins the box up from rest: "
        f"AngVel z grows linearly, by M/Izz = {SPIN_MOMENT / _spin_izz:.2f} rad/s every "
        "second, while its weight is cancelled so it stays in place.",
        _spin_up,
        question=(
            "A constant moment turns the box. Will its spin rate grow steadily, ever faster, "
            "or level off?"
        ),
    ),
    Preset(
        "coriolis_full",
        "Coriolis: model full",
        f"Launched at {SHIP_V:g} m/s along its bow while turning at {SHIP_W:g} rad/s, with no "
        "force: Newton–Euler keeps the ship moving in a straight line while the hull "
        "spins, because nothing pushes it sideways. Compare the preset “Coriolis: model fhsim”.",
        _ship("full", "Simple/Blue"),
        2 * math.pi,
        question=(
            "Launched along its bow while turning, with no force at all: will the ship go "
            "straight or circle?"
        ),
    ),
    Preset(
        "coriolis_fhsim",
        "Coriolis: model fhsim",
        "The same launch in FhSim's model, which drops the term ω × v: the velocity "
        f"stays fixed in the body, so the ship circles with radius v/ω = "
        f"{SHIP_V / SHIP_W:g} m, once every {2 * math.pi / SHIP_W:.2f} s, as if steered.",
        _ship("fhsim", "Simple/Red"),
        2 * math.pi,
        question=("The same launch in FhSim's model, which drops ω × v: straight or circle?"),
    ),
    Preset(
        "offset_cg",
        "Reference point off the CG",
        f"Pos is the bar's end, {BAR_OFFSET:g} m behind its CG (CGOffset). Spun at "
        f"{BAR_W:g} rad/s about that end, the bar turns about its CG instead: the CG "
        f"moves straight on at ω × r = {BAR_W * BAR_OFFSET:g} m/s (its trail is a straight "
        "line) while the bar's end swings round it: plot Pos to see the end trace a cycloid.",
        _offset_cg,
        2 * math.pi,
        question=(
            "The bar is spun about its end. Which point of the bar will move in a straight line?"
        ),
    ),
]

PRESETS: dict[str, Preset] = {p.name: p for p in _PRESET_LIST}
DEFAULT_PRESET = "hover"


def preset_scenario(name: str) -> Scenario:
    """The Scenario of preset `name`; KeyError listing the names if there is none."""
    try:
        return PRESETS[name].scenario()
    except KeyError:
        raise KeyError(f"no preset {name!r}; presets are {list(PRESETS)}") from None
