"""Ready-made scenarios for the lab, each showing one thing a student can watch for.

Every preset is model `full` (Newton–Euler) unless it says otherwise and is
integrated with RK4 at h = 1 ms. Visuals: `Size` is the body's extent in metres
along body x, y, z (the shipped meshes fit a unit box), and the inertia is
that of the solid the mesh depicts, so what you see spins the way it looks
like it should. Numbers in the captions are computed from the parameters.

The first presets are free bodies; the later ones are bodies in a world, held,
sprung or stopped by elements (DESIGN.md section 8): a preset's `elements` builds
them beside its bodies. Lengths such as a pivot's distance from the CG are the
drawn body's own (a bar pivoted at its end, a top on the centre of its base).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..dynamics.names import Model
from .elements import (
    AddedMassElement,
    BodyPoint,
    BuoyancyElement,
    DamperElement,
    ElementSpec,
    GroundElement,
    PivotElement,
    SpringElement,
)
from .model import BodySpec, Integration, Scenario
from .water import WaterSpec, WaveSpec

G = 9.81  # m/s², the default Gravity


@dataclass(frozen=True)
class Preset:
    """A named scenario: `title` for menus, `caption` says what to watch, `question` asks
    the class to predict it first; `flip_axis` (0, 1, 2: body x, y, z) names the axis whose
    AngVel component changes sign at each flip, for presets that count flips; `elements`
    builds the pivots, springs and grounds that act on the bodies (none for a free body)."""

    name: str
    title: str
    caption: str
    build: Callable[[], list[BodySpec]]
    t_end: float = 10.0  # s, the end of TOutput for headless runs
    question: str = ""
    flip_axis: int | None = None
    elements: Callable[[], list[ElementSpec]] | None = None
    water: Callable[[], WaterSpec] | None = None

    def scenario(self) -> Scenario:
        """A fresh, validated Scenario (rk4, h = 1 ms, output every 10 ms)."""
        return Scenario(
            name=self.name,
            caption=self.caption,
            bodies=self.build(),
            integration=Integration(method="rk4", stepsize=1e-3, TOutput=f"0:0.01:{self.t_end:g}"),
            elements=self.elements() if self.elements is not None else [],
            water=self.water() if self.water is not None else None,
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


def elliptic_k(m: float) -> float:
    """The complete elliptic integral of the first kind K(m) = ∫₀^{π/2} dφ / √(1 − m sin²φ)
    (parameter m = k², 0 ≤ m < 1), from the arithmetic-geometric mean: π / (2 AGM(1, √(1 − m)))."""
    a, b = 1.0, math.sqrt(1.0 - m)
    while abs(a - b) > 1e-15 * a:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


Quat = tuple[float, float, float, float]
Vec = tuple[float, float, float]


def _turn(axis: int, angle: float) -> Quat:
    """The quaternion of a turn by `angle` about body axis 0, 1 or 2 (x, y, z)."""
    q = [math.cos(angle / 2.0), 0.0, 0.0, 0.0]
    q[1 + axis] = math.sin(angle / 2.0)
    return (q[0], q[1], q[2], q[3])


def _rotate(q: Quat, v: Vec) -> Vec:
    """R(q) v: body coordinates into global ones (DESIGN.md section 1)."""
    w, x, y, z = q
    r = (
        (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
        (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
        (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)),
    )
    return (
        r[0][0] * v[0] + r[0][1] * v[1] + r[0][2] * v[2],
        r[1][0] * v[0] + r[1][1] * v[1] + r[1][2] * v[2],
        r[2][0] * v[0] + r[2][1] * v[1] + r[2][2] * v[2],
    )


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _held_at_origin(q: Quat, point: Vec) -> Vec:
    """Pos that puts body point `point` at the world origin when the body is turned by q."""
    p = _rotate(q, point)
    return (-p[0] + 0.0, -p[1] + 0.0, -p[2] + 0.0)


# -- the numbers the captions quote ---------------------------------------------------
HOVER_MASS, HOVER_BOX = 2.0, (0.8, 0.5, 0.3)
FALL_D = 0.5
THROW_V, THROW_BOX = 8.0, (0.4, 0.1, 0.2)
# The T-handle and ship meshes come at their own size (meshes/meshes.json), so their
# Size is 1 and their InertiaRadi are the radii meshes.json lists for them.
RACKET_RADII, RACKET_SPIN = (0.2556, 0.1491, 0.2932), 4.0
TOP_D, TOP_H, TOP_SPIN, TOP_TILT = 1.0, 0.2, 2.0, 0.8
SPIN_MASS, SPIN_BOX, SPIN_MOMENT = 2.0, (1.0, 0.4, 0.2), 0.2
SHIP_RADII, SHIP_V, SHIP_W = (0.072, 0.2601, 0.263), 5.0, 2.0
BAR_BOX, BAR_OFFSET, BAR_W = (1.0, 0.3, 0.3), 0.5, 2.0

# Bodies in a world (elements).
PEND_BAR, PEND_MASS, PEND_ANGLE = (0.05, 0.05, 1.0), 1.0, 1.0  # a 1 m bar released at 1 rad
HEAVY_D, HEAVY_H, HEAVY_MASS, HEAVY_TILT, HEAVY_SPIN = 0.4, 0.2, 1.0, math.radians(60.0), 35.0
GYRO_D, GYRO_H, GYRO_MASS, GYRO_AXLE, GYRO_SPIN = 0.4, 0.05, 1.0, 0.25, 60.0
DUO_MASSES, DUO_D, DUO_K, DUO_REST, DUO_STRETCH = (1.0, 3.0), 0.24, 30.0, 0.6, 0.2
BALL_D, BALL_MASS, BALL_DROP, BALL_V = 0.3, 0.5, 1.0, 1.0
BALL_RESTITUTION, BALL_FRICTION = 0.8, 0.3
MOUNT_BOX, MOUNT_MASS, MOUNT_K, MOUNT_C, MOUNT_HANG = (0.8, 0.3, 0.2), 4.0, 50.0, 1.0, 1.0
MOUNT_DROP, MOUNT_PITCH = 0.1, 0.15  # initial heave (m, down) and pitch (rad)

# compound pendulum: pivot at the bar's top end, d = L/2 from the CG
_pend_d = PEND_BAR[2] / 2.0
_pend_io = PEND_MASS * (box_radii(*PEND_BAR)[0] ** 2 + _pend_d**2)  # about the pivot's x axis
_pend_scale = math.sqrt(_pend_io / (PEND_MASS * G * _pend_d))
PEND_SMALL_PERIOD = 2.0 * math.pi * _pend_scale
PEND_PERIOD = 4.0 * elliptic_k(math.sin(PEND_ANGLE / 2.0) ** 2) * _pend_scale
PEND_LENGTH = _pend_io / (PEND_MASS * _pend_d)  # the simple pendulum that swings alike

# heavy top: a thick disc on the centre of its base, d = H/2 below the CG
_heavy_r = cylinder_radii(HEAVY_D, HEAVY_H)
_heavy_d = HEAVY_H / 2.0
_heavy_i3 = HEAVY_MASS * _heavy_r[2] ** 2
_heavy_i1 = HEAVY_MASS * (_heavy_r[0] ** 2 + _heavy_d**2)  # about the tip
_heavy_mgd = HEAVY_MASS * G * _heavy_d  # the gravity moment's size at 90° tilt
HEAVY_PRECESSION = _heavy_mgd / (_heavy_i3 * HEAVY_SPIN)  # Ω ≈ m g d / (I₃ ω₃)
HEAVY_NUTATION = _heavy_i3 * HEAVY_SPIN / _heavy_i1  # rad/s, the fast top's nodding
#: the axis's dip below its starting tilt at the bottom of each nod (fast-top estimate), rad
HEAVY_DIP = 2.0 * _heavy_i1 * _heavy_mgd * math.sin(HEAVY_TILT) / (_heavy_i3 * HEAVY_SPIN) ** 2

# gyroscope: a wheel at the end of a light axle, held at the axle's far end, axle level
_gyro_r = cylinder_radii(GYRO_D, GYRO_H)
_gyro_i3 = GYRO_MASS * _gyro_r[2] ** 2
GYRO_PRECESSION = GYRO_MASS * G * GYRO_AXLE / (_gyro_i3 * GYRO_SPIN)  # exact for a level axle

# two masses on a spring
_duo_m1, _duo_m2 = DUO_MASSES
DUO_OMEGA = math.sqrt(DUO_K * (_duo_m1 + _duo_m2) / (_duo_m1 * _duo_m2))
DUO_ALONE = 2.0 * math.pi * math.sqrt(_duo_m1 / DUO_K)  # the light ball on the spring alone
_duo_diameters = (DUO_D, round(DUO_D * (_duo_m2 / _duo_m1) ** (1.0 / 3.0), 6))  # same density

# damped spring mount: two springs at the box's end faces, hanging from above
_mount_l = MOUNT_BOX[0] / 2.0
_mount_iy = MOUNT_MASS * box_radii(*MOUNT_BOX)[1] ** 2
MOUNT_REST = round(MOUNT_HANG - MOUNT_MASS * G / (2.0 * MOUNT_K), 9)  # at rest at Pos = 0
_mount_wh = math.sqrt(2.0 * MOUNT_K / MOUNT_MASS)
_mount_zh = 2.0 * MOUNT_C / (2.0 * math.sqrt(2.0 * MOUNT_K * MOUNT_MASS))
_mount_wp = math.sqrt(2.0 * MOUNT_K * _mount_l**2 / _mount_iy)
_mount_zp = 2.0 * MOUNT_C * _mount_l**2 / (2.0 * _mount_iy * _mount_wp)
MOUNT_HEAVE_PERIOD = 2.0 * math.pi / (_mount_wh * math.sqrt(1.0 - _mount_zh**2))
MOUNT_PITCH_PERIOD = 2.0 * math.pi / (_mount_wp * math.sqrt(1.0 - _mount_zp**2))

# Floating bodies (water): a 2 × 1 × 1 m box barge at 0.4 m draft, its CG KG above the keel
RHO = 1025.0  # kg/m³, sea water
BARGE_BOX, BARGE_DRAFT, BARGE_KG, TENDER_KG = (2.0, 1.0, 1.0), 0.4, 0.2, 0.35
BARGE_HEAVE, BARGE_HEEL = 0.05, 0.1  # initial heave (m, down) and heel (rad)
BARGE_MASS = RHO * BARGE_BOX[0] * BARGE_BOX[1] * BARGE_DRAFT
_barge_rx = box_radii(*BARGE_BOX)[0]
BARGE_HEAVE_PERIOD = 2 * math.pi * math.sqrt(BARGE_MASS / (RHO * G * BARGE_BOX[0] * BARGE_BOX[1]))


def barge_gm(kg: float) -> float:
    """GM = KB + BM − KG of the barge: KB = T/2, BM = B²/(12 T) (wall-sided box)."""
    return BARGE_DRAFT / 2 + BARGE_BOX[1] ** 2 / (12 * BARGE_DRAFT) - kg


def barge_roll_period(kg: float) -> float:
    """2π √(I₄₄ / (ρ g ∇ GM)) = 2π r₄₄ / √(g GM) (added mass zero)."""
    return 2 * math.pi * _barge_rx / math.sqrt(G * barge_gm(kg))


# a spar buoy: the shipped cylinder (axis z, 1 m × 1 m), ballasted to KG 0.2 m, in long waves
BUOY_MASS, BUOY_KG, BUOY_WAVE, BUOY_PERIOD = 400.0, 0.2, 0.3, 6.0
BUOY_WATERPLANE = 0.78217  # m², the faceted cylinder's (meshes/cylinder.glb, 32 sides)
BUOY_DRAFT = BUOY_MASS / (RHO * BUOY_WATERPLANE)
BUOY_HEAVE_PERIOD = 2 * math.pi * math.sqrt(BUOY_MASS / (RHO * G * BUOY_WATERPLANE))
BUOY_WAVELENGTH = G * BUOY_PERIOD**2 / (2 * math.pi)  # deep water
BUOY_RAO = math.exp(-2 * math.pi / BUOY_WAVELENGTH * BUOY_DRAFT) / (
    1 - (BUOY_HEAVE_PERIOD / BUOY_PERIOD) ** 2
)  # Froude–Krylov heave force ρ g A a e^(−k T) on a wall-sided body, undamped response
BUOY_HEAVE_DAMPING = 700.0  # N·s/m, ζ ≈ 0.2: the start's transient dies in a few periods

# a ship heeled by a steady moment: the shipped hull at Size 10 (10 m × 2.4 m, 1.4 m to the
# deck), 6 t, its CG 0.95 m above the keel and straight above its centre of buoyancy (so it
# floats level); GM and the heel are analysis/hydrostatics.py's for this hull (checked by
# tests/unit/test_presets.py): GZ(φ) from the clipped mesh, the draft and trim re-solved at each
# heel, and ρ g ∇ GZ(φ) = M; the damper (ζ ≈ 0.6 in heave, roll, pitch) lets it settle
HEELED_MASS, HEELED_KG, HEELED_MOMENT = 6000.0, 0.95, 3000.0  # kg, m, N·m about x
HEELED_SIZE = 10.0  # the ship mesh is 1 × 0.24 × 0.2 m at Size 1
HEELED_ORIGIN = (-0.2144, 0.0, 0.0973)  # the hull seen from the CG: CG over the LCB, KG
HEELED_DRAFT = 0.4704  # m, upright
HEELED_GM = 0.2960  # m, GM_T = KB + BM_T − KG = 0.2840 + 0.9620 − 0.95
HEELED_HEEL = 11.03  # degrees, where ρ g ∇ GZ(φ) = M
HEELED_LINEAR = math.degrees(HEELED_MOMENT / (HEELED_MASS * G * HEELED_GM))  # M/(m g GM)
HEELED_DAMPING = (1e4, 1e4, 4e4, 9e3, 2.7e5, 3e4)  # surge … yaw, body axes

# a barge drifting in a current: a linear damper in surge and sway pulls its velocity
# relative to the water to zero, (m + A) ν̇_r = −c ν_r, so it ends at the current's velocity
DRIFT_CURRENT = (0.3, 0.4, 0.0)  # m/s, NED
DRIFT_C, DRIFT_ADDED = 400.0, 180.0  # N·s/m (surge and sway), kg (A₁₁ = A₂₂)
DRIFT_TAU = (BARGE_MASS + DRIFT_ADDED) / DRIFT_C  # s

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


_pend_q = _turn(0, PEND_ANGLE)
_pend_point: Vec = (0.0, 0.0, -_pend_d)  # the bar's top end (body z points down the bar)


def _pendulum() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Bar",
            Mass=PEND_MASS,
            InertiaRadi=box_radii(*PEND_BAR),
            model="full",
            Pos=_held_at_origin(_pend_q, _pend_point),
            Quater=_pend_q,
            Mesh="box",
            Size=PEND_BAR,
            Material="Simple/Brown",
        )
    ]


def _pendulum_elements() -> list[ElementSpec]:
    return [PivotElement(kind="pivot", body="Bar", point=_pend_point)]


def _heavy_top() -> list[BodySpec]:
    # Pos is the tip (the centre of the base, below the CG): CGOffset points up to the CG.
    return [
        BodySpec(
            Name="Top",
            Mass=HEAVY_MASS,
            InertiaRadi=_heavy_r,
            CGOffset=(0.0, 0.0, -_heavy_d),
            model="full",
            Quater=_turn(0, HEAVY_TILT),
            AngVel=(0.0, 0.0, HEAVY_SPIN),
            Mesh="cylinder",
            Size=(HEAVY_D, HEAVY_D, HEAVY_H),
            Material="Simple/Red",
        )
    ]


def _heavy_top_elements() -> list[ElementSpec]:
    return [PivotElement(kind="pivot", body="Top", point=(0.0, 0.0, 0.0))]


# The wheel's axis is body z, turned to point north; the axle's free end is held.
_gyro_q = _turn(1, math.pi / 2.0)
_gyro_point: Vec = (0.0, 0.0, -GYRO_AXLE)
# Started with its steady precession: Ω about the world's up (−z) axis, spin ω₃ about z.
_gyro_w = _rotate((_gyro_q[0], -_gyro_q[1], -_gyro_q[2], -_gyro_q[3]), (0.0, 0.0, -GYRO_PRECESSION))
_gyro_angvel: Vec = (_gyro_w[0] + 0.0, _gyro_w[1] + 0.0, _gyro_w[2] + GYRO_SPIN)


def _gyroscope() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Wheel",
            Mass=GYRO_MASS,
            InertiaRadi=_gyro_r,
            model="full",
            Pos=_held_at_origin(_gyro_q, _gyro_point),
            Quater=_gyro_q,
            LocalVel=_cross(_gyro_point, _gyro_angvel),  # the held point at rest
            AngVel=_gyro_angvel,
            Mesh="cylinder",
            Size=(GYRO_D, GYRO_D, GYRO_H),
            Material="Simple/Metal",
        )
    ]


def _gyroscope_elements() -> list[ElementSpec]:
    return [PivotElement(kind="pivot", body="Wheel", point=_gyro_point)]


_duo_gap = DUO_REST + DUO_STRETCH + (_duo_diameters[0] + _duo_diameters[1]) / 2.0  # centres
_duo_x = (
    round(-_duo_m2 * _duo_gap / (_duo_m1 + _duo_m2), 9),
    round(_duo_m1 * _duo_gap / (_duo_m1 + _duo_m2), 9),
)  # the CG at the origin


def _two_masses() -> list[BodySpec]:
    return [
        BodySpec(
            Name=name,
            Mass=mass,
            InertiaRadi=sphere_radii(d),
            model="full",
            Gravity=0.0,
            Pos=(x, 0.0, 0.0),
            Mesh="sphere",
            Size=(d, d, d),
            Material=material,
        )
        for name, mass, d, x, material in zip(
            ("Light", "Heavy"),
            DUO_MASSES,
            _duo_diameters,
            _duo_x,
            ("Simple/Yellow", "Simple/Blue"),
            strict=True,
        )
    ]


def _two_masses_elements() -> list[ElementSpec]:
    # from the light ball's side facing the heavy one to the heavy ball's facing side
    return [
        SpringElement(
            kind="spring",
            body="Light",
            point=(_duo_diameters[0] / 2.0, 0.0, 0.0),
            to=BodyPoint(body="Heavy", point=(-_duo_diameters[1] / 2.0, 0.0, 0.0)),
            stiffness=DUO_K,
            rest_length=DUO_REST,
        )
    ]


def _ball() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Ball",
            Mass=BALL_MASS,
            InertiaRadi=sphere_radii(BALL_D),
            model="full",
            Pos=(0.0, 0.0, -(BALL_DROP + BALL_D / 2.0)),  # its lowest point BALL_DROP up
            LocalVel=(BALL_V, 0.0, 0.0),
            Mesh="sphere",
            Size=(BALL_D,) * 3,
            Material="Simple/Orange",
        )
    ]


def _ball_elements() -> list[ElementSpec]:
    return [
        GroundElement(
            kind="ground",
            body="Ball",
            height=0.0,
            restitution=BALL_RESTITUTION,
            friction=BALL_FRICTION,
        )
    ]


def _mount() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Box",
            Mass=MOUNT_MASS,
            InertiaRadi=box_radii(*MOUNT_BOX),
            model="full",
            Pos=(0.0, 0.0, MOUNT_DROP),
            Quater=_turn(1, MOUNT_PITCH),
            Mesh="box",
            Size=MOUNT_BOX,
            Material="Simple/Grey",
        )
    ]


def _mount_elements() -> list[ElementSpec]:
    return [
        SpringElement(
            kind="spring",
            body="Box",
            point=(side * _mount_l, 0.0, 0.0),
            to=(side * _mount_l, 0.0, -MOUNT_HANG),
            stiffness=MOUNT_K,
            damping=MOUNT_C,
            rest_length=MOUNT_REST,
        )
        for side in (-1.0, 1.0)
    ]


def _barge(name: str, kg: float, east: float, heel: float, material: str) -> BodySpec:
    return BodySpec(
        Name=name,
        Mass=BARGE_MASS,
        InertiaRadi=box_radii(*BARGE_BOX),
        model="full",
        Pos=(0.0, east, BARGE_DRAFT - kg + BARGE_HEAVE),
        Quater=_turn(0, heel),
        Mesh="box",
        Size=BARGE_BOX,
        MeshOrigin=(0.0, 0.0, kg - BARGE_BOX[2] / 2),  # the box's centre, seen from the CG
        Material=material,
    )


def _floating_box() -> list[BodySpec]:
    return [_barge("Barge", BARGE_KG, 0.0, BARGE_HEEL, "Simple/Orange")]


def _stiff_and_tender() -> list[BodySpec]:
    return [
        _barge("Stiff", BARGE_KG, -1.5, BARGE_HEEL, "Simple/Orange"),
        _barge("Tender", TENDER_KG, 1.5, BARGE_HEEL, "Simple/Blue"),
    ]


def _buoyancy(*names: str) -> Callable[[], list[ElementSpec]]:
    return lambda: [BuoyancyElement(kind="buoyancy", body=n) for n in names]


def _still_water() -> WaterSpec:
    return WaterSpec(density=RHO)


def _buoy() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Buoy",
            Mass=BUOY_MASS,
            InertiaRadi=cylinder_radii(1.0, 1.0),
            model="full",
            Pos=(0.0, 0.0, round(BUOY_DRAFT - BUOY_KG, 6)),
            Mesh="cylinder",
            MeshOrigin=(0.0, 0.0, BUOY_KG - 0.5),
            Material="Simple/Red",
        )
    ]


def _buoy_elements() -> list[ElementSpec]:
    return [
        BuoyancyElement(kind="buoyancy", body="Buoy"),
        DamperElement(
            kind="damper", body="Buoy", linear=(0.0, 0.0, BUOY_HEAVE_DAMPING, 50.0, 50.0, 0.0)
        ),
    ]


def _waves() -> WaterSpec:
    return WaterSpec(
        density=RHO, waves=[WaveSpec(amplitude=BUOY_WAVE, period=BUOY_PERIOD, direction=0.0)]
    )


def _heeled_ship() -> list[BodySpec]:
    return [
        BodySpec(
            Name="Ship",
            Mass=HEELED_MASS,
            InertiaRadi=(
                HEELED_SIZE * SHIP_RADII[0],
                HEELED_SIZE * SHIP_RADII[1],
                HEELED_SIZE * SHIP_RADII[2],
            ),
            model="full",
            Pos=(0.0, 0.0, round(HEELED_DRAFT - HEELED_KG, 4)),
            Moment=(HEELED_MOMENT, 0.0, 0.0),
            Mesh="ship",
            Size=(HEELED_SIZE,) * 3,
            MeshOrigin=HEELED_ORIGIN,
            Material="Simple/Blue",
        )
    ]


def _heeled_ship_elements() -> list[ElementSpec]:
    return [
        BuoyancyElement(kind="buoyancy", body="Ship"),
        DamperElement(kind="damper", body="Ship", linear=HEELED_DAMPING),
    ]


def _drifting() -> list[BodySpec]:
    barge = _barge("Barge", BARGE_KG, 0.0, 0.0, "Simple/Orange")
    barge.Pos = (0.0, 0.0, BARGE_DRAFT - BARGE_KG)  # at rest, at its draft
    return [barge]


def _drifting_elements() -> list[ElementSpec]:
    return [
        BuoyancyElement(kind="buoyancy", body="Barge"),
        AddedMassElement(
            kind="added_mass", body="Barge", diagonal=(DRIFT_ADDED, DRIFT_ADDED, 0, 0, 0, 0)
        ),
        DamperElement(
            kind="damper",
            body="Barge",
            linear=(DRIFT_C, DRIFT_C, 2000.0, 300.0, 600.0, 300.0),
        ),
    ]


def _current() -> WaterSpec:
    return WaterSpec(density=RHO, current=DRIFT_CURRENT)


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
        "Free symmetric top: torque-free precession",
        "Weightless and held by nothing, the disc spins about its axis, tilted from its angular "
        "momentum. With no torque the angular momentum stays fixed and the axis sweeps a cone of "
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
    Preset(
        "compound_pendulum",
        "Compound pendulum",
        f"The {PEND_BAR[2]:g} m bar swings about a pivot at its top end like a simple pendulum "
        f"of length I_o/(m d) = {PEND_LENGTH:.2f} m, not {PEND_BAR[2]:g} m: period "
        f"2π √(I_o/(m g d)) = {PEND_SMALL_PERIOD:.2f} s for small swings, and "
        f"4 K(sin²(θ₀/2)) √(I_o/(m g d)) = {PEND_PERIOD:.3f} s released at θ₀ = "
        f"{math.degrees(PEND_ANGLE):.0f}°.",
        _pendulum,
        question=(
            f"A {PEND_BAR[2]:g} m bar and a ball on a {PEND_BAR[2]:g} m string are released "
            "side by side: which one swings back first?"
        ),
        elements=_pendulum_elements,
    ),
    Preset(
        "heavy_top",
        "Heavy symmetric top: precession and nutation",
        f"Spun at ω₃ = {HEAVY_SPIN:g} rad/s on the centre of its base, tilted "
        f"{math.degrees(HEAVY_TILT):.0f}°, the top does not fall: gravity turns its axis round "
        f"the vertical at Ω ≈ m g d / (I₃ ω₃) = {HEAVY_PRECESSION:.2f} rad/s (once every "
        f"{2 * math.pi / HEAVY_PRECESSION:.1f} s). Released with no precession to start "
        f"with, it also nods (nutation), its axis dipping about {math.degrees(HEAVY_DIP):.0f}° "
        f"and back {HEAVY_NUTATION / (2 * math.pi):.1f} times a second.",
        _heavy_top,
        question=(
            "The spinning top stands tilted on its point, and gravity pulls it over: will it "
            "fall, and if not, what will its axis do?"
        ),
        elements=_heavy_top_elements,
    ),
    Preset(
        "gyroscope",
        "Gyroscope held at one end of its axle",
        f"The wheel spins at {GYRO_SPIN:g} rad/s on a light {GYRO_AXLE:g} m axle held only at "
        "its far end, level: instead of dropping, the axle swings round the vertical at "
        f"Ω = m g ℓ / (I₃ ω₃) = {GYRO_PRECESSION:.2f} rad/s, once every "
        f"{2 * math.pi / GYRO_PRECESSION:.2f} s, and stays level. Since Ω ∝ 1/ω₃, a slower wheel "
        "goes round faster (and, started off its steady rate, nods).",
        _gyroscope,
        question=(
            "The spinning wheel is held only at one end of its axle. What will the free end do: "
            "drop, stay, or something else?"
        ),
        elements=_gyroscope_elements,
    ),
    Preset(
        "two_masses_spring",
        "Two masses on a spring: normal modes",
        f"Weightless, a {_duo_m1:g} kg and a {_duo_m2:g} kg ball on a spring (k = {DUO_K:g} N/m) "
        f"oscillate in opposition at ω = √(k(m₁+m₂)/(m₁m₂)) = {DUO_OMEGA:.2f} rad/s, period "
        f"{2 * math.pi / DUO_OMEGA:.3f} s, the light one moving {_duo_m2 / _duo_m1:g} times as far "
        f"while their CG stays put (the other mode, both moving together, has frequency 0). "
        f"The light ball alone on the spring tied to a wall would take {DUO_ALONE:.2f} s.",
        _two_masses,
        5.0,
        question=(
            "Stretched and let go: which ball moves more, and is the swing quicker or slower than "
            "the light ball's alone on the spring tied to a wall?"
        ),
        elements=_two_masses_elements,
    ),
    Preset(
        "bouncing_ball",
        "Ball bouncing and rolling on the ground",
        f"Dropped from {BALL_DROP:g} m while moving at {BALL_V:g} m/s, the ball rebounds to "
        f"e² = {BALL_RESTITUTION**2:.2f} of its height each bounce (restitution e = "
        f"{BALL_RESTITUTION:g}), and friction (μ = {BALL_FRICTION:g}) sets it spinning until it "
        f"rolls without slipping at 5/7 of its speed, {5 * BALL_V / 7:.3f} m/s.",
        _ball,
        6.0,
        question=(
            "The ball is dropped while moving sideways, without spin. How high is its next "
            "bounce, and how fast will it roll in the end?"
        ),
        elements=_ball_elements,
    ),
    Preset(
        "spring_mount",
        "Damped spring mount: mass, inertia and period",
        f"Two damped springs (k = {MOUNT_K:g} N/m, c = {MOUNT_C:g} N·s/m each, "
        f"{2 * _mount_l:g} m apart) hold the {MOUNT_MASS:g} kg box: it bobs with period "
        f"2π/(√(2k/m) √(1−ζ²)) = {MOUNT_HEAVE_PERIOD:.2f} s and rocks with "
        f"2π/(√(2kℓ²/I_y) √(1−ζ²)) = {MOUNT_PITCH_PERIOD:.2f} s. Double the Mass and both periods "
        "grow by √2; raise InertiaRadi y and only the rocking slows.",
        _mount,
        question=(
            "Make the box twice as heavy: will it bob faster, slower, or the same? And if only "
            "its inertia grows?"
        ),
        elements=_mount_elements,
    ),
    Preset(
        "floating_box",
        "Box barge: draft, heave and roll",
        f"The {BARGE_MASS:g} kg, 2 × 1 × 1 m box floats at draft m/(ρ L B) = {BARGE_DRAFT:g} m and "
        f"heaves with period 2π√(m/(ρ g A_wp)) = {BARGE_HEAVE_PERIOD:.3f} s; with its CG "
        f"{BARGE_KG:g} m above the keel, GM = KB + BM − KG = {barge_gm(BARGE_KG):.3f} m and it "
        f"rolls with 2π r₄₄/√(g GM) = {barge_roll_period(BARGE_KG):.2f} s.",
        _floating_box,
        question=(
            "Raise the CG (MeshOrigin z towards 0): will the box roll faster, slower, or capsize?"
        ),
        elements=_buoyancy("Barge"),
        water=_still_water,
    ),
    Preset(
        "stiff_and_tender",
        "Stiff and tender: high and low GM",
        f"Two barges alike but for the CG: {BARGE_KG:g} m above the keel (GM "
        f"{barge_gm(BARGE_KG):.3f} m) rolls in {barge_roll_period(BARGE_KG):.2f} s, "
        f"{TENDER_KG:g} m (GM {barge_gm(TENDER_KG):.3f} m) in "
        f"{barge_roll_period(TENDER_KG):.2f} s: a low GM rolls slowly, as T ∝ 1/√GM.",
        _stiff_and_tender,
        question="Both start heeled alike. Which one comes back upright first?",
        elements=_buoyancy("Stiff", "Tender"),
        water=_still_water,
    ),
    Preset(
        "buoy_in_waves",
        "Buoy in waves",
        f"The ballasted buoy (heave period {BUOY_HEAVE_PERIOD:.2f} s, draft {BUOY_DRAFT:.2f} m) "
        f"in a {BUOY_WAVE:g} m, {BUOY_PERIOD:g} s wave {BUOY_WAVELENGTH:.0f} m long rides up and "
        f"down by a RAO = e^(−k T)/(1 − (T_n/T)²) = {BUOY_RAO:.3f} of the wave: the pressure's "
        "decay with depth and the dynamic amplification nearly cancel.",
        _buoy,
        20.0,
        question="Will the buoy move up and down more than the water surface, or less?",
        elements=_buoy_elements,
        water=_waves,
    ),
    Preset(
        "heeled_ship",
        "Ship heeled by a steady moment: GZ",
        f"A steady {HEELED_MOMENT:g} N·m Moment about x leans the {HEELED_MASS / 1000:g} t, "
        f"{HEELED_SIZE:g} m ship (GM {HEELED_GM:.3f} m) over until its righting lever balances "
        f"it, ρ g ∇ GZ(φ) = M, at φ = {HEELED_HEEL:.1f}° by the hull's GZ curve; GM alone, "
        f"φ ≈ M/(m g GM), would say {HEELED_LINEAR:.1f}°.",
        _heeled_ship,
        15.0,
        question=(
            "A steady moment leans the ship over. Will it keep heeling, rock for ever, or "
            "settle, and at what angle?"
        ),
        elements=_heeled_ship_elements,
        water=_still_water,
    ),
    Preset(
        "drift_in_current",
        "Drifting in a current",
        f"Released at rest in a current of {DRIFT_CURRENT[0]:g} m/s north and "
        f"{DRIFT_CURRENT[1]:g} m/s east, the barge is dragged along by a damper "
        f"(c = {DRIFT_C:g} N·s/m) on its velocity relative to the water until it drifts with "
        f"the current at {math.hypot(*DRIFT_CURRENT):g} m/s, the difference falling as "
        f"e^(−t/τ), τ = (m + A₁₁)/c = {DRIFT_TAU:.2f} s.",
        _drifting,
        20.0,
        question=(
            "Released at rest in a current: how fast will the barge end up drifting, and what "
            "sets how soon it gets there?"
        ),
        elements=_drifting_elements,
        water=_current,
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
