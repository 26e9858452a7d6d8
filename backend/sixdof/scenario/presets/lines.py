"""The numbers the line and control presets' captions quote (issue 44: cables and
controllers), computed from their scenarios: numbers.caption_values reaches them through
`BY_NAME`.

A mooring line is the elastic catenary resting on a frictionless seabed (the cable kind's
own reference, tests/unit/test_cable.py): with w its weight in water per metre, EA its axial
stiffness, L its unstretched length, H and V the fairlead's horizontal and vertical pull,

    x = L_b (1 + H/EA) + (H/w) asinh(V/H) + H V/(w EA),   L_b = L − V/w on the seabed
    z = (H/w) (√(1 + (V/H)²) − 1) + V²/(2 EA w)

for the fairlead x across and z above the anchor. Solved by Newton's method here (the
scenario layer has no scipy), each line's (H, V) for where the buoy floats, and the buoy
where its buoyancy carries its weight and the lines' V (a wall-sided waterplane).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..elements import DamperElement
from ..kinds.cable import CableElement
from ..model import BodySpec, Scenario

Values = dict[str, float | str]
Vec3 = tuple[float, float, float]

#: The cylinder mesh's waterplane at Size 1, m² (numbers.HULL has the same figure; repeated
#: so that this module stays below numbers).
CYLINDER_WATERPLANE = 0.78217
#: Run figures (tests/unit/test_presets_lines.py runs the preset and checks them): the moored
#: buoy's mean offset downstream (m) and its lines' mean tensions (N, the upstream line and
#: each of the two downstream ones) over the last 20 s of its 60, waves and current acting.
#: The current drags the lines as well as the buoy (as much again), which no closed form here
#: holds, so these are measured.
MEASURED = {"buoy_offset": 0.926, "buoy_up": 324.8, "buoy_down": 221.9}


#: The cart-pole's regulator as `sixdof.lqr` designs it (the analysis sits above the scenario:
#: its gains are in the preset's file, its weights and closed-loop eigenvalues here, and
#: tests/unit/test_presets_lines.py designs it again and compares both): Q on the pole's
#: signals Pos.x, Pitch, Vel.x, AngVel.y (the cart's x, the pole's angle and their rates), R
#: on the force at the hinge, and the eigenvalues' (decay rate, angular frequency) pairs.
CART_POLE_Q, CART_POLE_R = (10.0, 100.0, 1.0, 1.0), 0.1
CART_POLE_EIGENVALUES = ((4.96286234, 2.06567789), (1.21083158, 0.96391002))


def weight_in_water(e: CableElement, density: float, gravity: float) -> float:
    """w, N/m: the line's weight less its buoyancy."""
    return (e.mass_per_length - density * math.pi * e.diameter**2 / 4.0) * gravity


def catenary(span: float, height: float, e: CableElement, w: float) -> tuple[float, float]:
    """(H, V) at the fairlead of line `e` reaching `span` across and `height` up from its
    anchor, part of it on the seabed (ValueError when the solution lifts it all off)."""
    ea, length = e.ea(), e.length

    def gap(h: float, v: float) -> tuple[float, float]:
        lb = length - v / w
        x = lb * (1 + h / ea) + h / w * math.asinh(v / h) + h * v / (w * ea)
        z = h / w * (math.sqrt(1 + (v / h) ** 2) - 1) + v * v / (2 * ea * w)
        return x - span, z - height

    h, v = w * height, w * height  # a start on the right side of the solution
    for _ in range(100):
        fx, fz = gap(h, v)
        dh, dv = 1e-7 * h, 1e-7 * v
        a, c = ((p - q) / dh for p, q in zip(gap(h + dh, v), (fx, fz), strict=True))
        b, d = ((p - q) / dv for p, q in zip(gap(h, v + dv), (fx, fz), strict=True))
        det = a * d - b * c
        sh, sv = (d * fx - b * fz) / det, (a * fz - c * fx) / det
        scale = min(1.0, 0.5 * h / abs(sh) if sh else 1.0, 0.5 * v / abs(sv) if sv else 1.0)
        h, v = h - scale * sh, v - scale * sv
        if abs(sh) < 1e-12 * h and abs(sv) < 1e-12 * v:
            break
    if v >= w * length:
        raise ValueError("the line lifts off the seabed: no resting catenary")
    return h, v


def _world(body: BodySpec, point: Vec3, pos: Vec3) -> Vec3:
    """A point of an upright body (its Quater the identity) at reference position `pos`."""
    return (pos[0] + point[0], pos[1] + point[1], pos[2] + point[2])


def moored_equilibrium(s: Scenario, push: float = 0.0) -> tuple[Vec3, list[tuple[float, float]]]:
    """Where the first body floats on its cables at rest pushed by `push` N north, and each
    line's (H, V) there: Newton's method on its north offset and its heave."""
    b = s.bodies[0]
    assert s.water is not None and s.water.depth is not None
    rho, g, depth, level = s.water.density, b.Gravity, s.water.depth, s.water.level
    lines = [e for e in s.elements if isinstance(e, CableElement)]
    area = CYLINDER_WATERPLANE * b.Size[0] * b.Size[1]
    stiffness = rho * g * area
    # where it floats unloaded: its bottom (the mesh's, below the CG) at its draft m/(ρ A)
    free = level + b.Mass / (rho * area) - (b.MeshOrigin[2] + b.Size[2] / 2)

    def forces(x: float, z: float) -> tuple[float, float, list[tuple[float, float]]]:
        fx, fz, pulls = push, 0.0, []
        for e in lines:
            assert isinstance(e.to, tuple)
            fair = _world(b, e.point, (b.Pos[0] + x, b.Pos[1], z))
            dx, dy = e.to[0] - fair[0], e.to[1] - fair[1]
            span = math.hypot(dx, dy)
            h, v = catenary(span, level + depth - fair[2], e, weight_in_water(e, rho, g))
            fx += h * dx / span
            fz += v
            pulls.append((h, v))
        # the wall-sided body's buoyancy beyond its weight, against the lines' pull down
        return fx, fz - stiffness * (z - free), pulls

    x, z = 0.0, b.Pos[2]
    for _ in range(60):
        fx, fz, _ = forces(x, z)
        a, c, _ = forces(x + 1e-6, z)
        bb, d, _ = forces(x, z + 1e-6)
        a, c, bb, d = (a - fx) / 1e-6, (c - fz) / 1e-6, (bb - fx) / 1e-6, (d - fz) / 1e-6
        det = a * d - bb * c
        sx, sz = (d * fx - bb * fz) / det, (a * fz - c * fx) / det
        x, z = x - sx, z - sz
        if abs(sx) + abs(sz) < 1e-12:
            break
    return (b.Pos[0] + x, b.Pos[1], z), forces(x, z)[2]


def _moored_buoy(s: Scenario) -> Values:
    """Pretension at rest, and the offset the current's pull on the buoy alone (its damper's
    c U) would give; the measured offset and tensions with the lines' drag and the waves."""
    b = s.bodies[0]
    assert s.water is not None and s.water.depth is not None
    lines = [e for e in s.elements if isinstance(e, CableElement)]
    damper = next(e for e in s.elements if isinstance(e, DamperElement))
    current = s.water.current[0]
    _, rest = moored_equilibrium(s)
    pushed, _ = moored_equilibrium(s, damper.linear[0] * current)
    return {"mass": b.Mass, "lines": float(len(lines)), "length": lines[0].length,
            "w": weight_in_water(lines[0], s.water.density, b.Gravity),
            "depth": s.water.depth, "pretension": math.hypot(*rest[0]), "current": current,
            "offset0": pushed[0] - b.Pos[0], "offset": MEASURED["buoy_offset"],
            "up": MEASURED["buoy_up"], "down": MEASURED["buoy_down"]}  # fmt: skip


def _rotated(q: tuple[float, float, float, float], v: Vec3) -> Vec3:
    """v turned by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz,
            v[2] + w * tz + x * ty - y * tx)  # fmt: skip


def _crane_lowering(s: Scenario) -> Values:
    """The load lowered at the winch's speed, its cable stretched by its pull (L T/EA), and
    the tip raised as the water takes the load's buoyancy ΔF = ρ V g off the barge (less
    the weight of the line paid out, its buoyancy left out: 1 %), a
    wall-sided box's heave ΔF/(ρ g A_wp) and trim ΔF x/(ρ g ∇ GM_L) at the tip's x, the
    load's weight at the tip in the KG (it hangs from there)."""
    barge, boom, load = (
        next(b for b in s.bodies if b.Name == n) for n in ("Barge", "Boom", "Load")
    )
    cable = next(e for e in s.elements if isinstance(e, CableElement))
    assert s.water is not None
    rho, g, level = s.water.density, load.Gravity, s.water.level
    turned = _rotated(boom.Quater, cable.point)
    tip = (boom.Pos[0] + turned[0], boom.Pos[2] + turned[2])  # x, z
    volume = CYLINDER_WATERPLANE * load.Size[0] * load.Size[1] * load.Size[2]
    air, water = load.Mass * g, (load.Mass - rho * volume) * g
    length, beam, height = barge.Size
    mass = barge.Mass + boom.Mass + load.Mass
    draft = mass / (rho * length * beam)
    keel = barge.Pos[2] + height / 2  # the box's centre is its reference point
    kg = sum(
        m * (keel - z)
        for m, z in (
            (barge.Mass, barge.Pos[2] + barge.CGOffset[2]),
            (boom.Mass, boom.Pos[2]),
            (load.Mass, tip[1]),
        )
    )
    gm = draft / 2 + length**2 / (12 * draft) - kg / mass
    time = float(s.integration.output_times()[-1])
    paid = cable.pay_out_speed * time
    lift = rho * volume * g - cable.mass_per_length * paid * g  # less the line paid out
    rise = lift / (rho * g * length * beam) + lift * tip[0] ** 2 / (mass * g * gm)
    ea = cable.ea()
    stretch = ((cable.length + paid) * water - cable.length * air) / ea
    return {"speed": cable.pay_out_speed, "time": time, "lowered": paid,
            "mass": load.Mass, "depth": load.Pos[2] + paid + stretch - rise - level,
            "rise": rise * 100, "air": air, "water": water}  # fmt: skip


def _cart_pole(s: Scenario) -> Values:
    """The pole alone on a free cart falls as e^(λ t), λ² = m g l (M + m) / ((M + m)(I + m l²)
    − m² l²) (l: hinge to CG, I about the CG); under the regulator its lean dies away as its
    slowest pair's e^(−σ t), to a tenth in ln 10/σ."""
    cart, pole = (next(b for b in s.bodies if b.Name == n) for n in ("Cart", "Pole"))
    big, m, g = cart.Mass, pole.Mass, pole.Gravity
    arm = math.sqrt(sum(c * c for c in pole.CGOffset))
    inertia = m * pole.InertiaRadi[1] ** 2
    fall = math.sqrt(
        m * g * arm * (big + m) / ((big + m) * (inertia + m * arm**2) - (m * arm) ** 2)
    )
    q, ((fast, fast_w), (slow, slow_w)) = CART_POLE_Q, CART_POLE_EIGENVALUES
    return {"cart": big, "pole": pole.Size[2], "push": pole.AngVel[1], "fall": fall,
            "q_x": q[0], "q_th": q[1], "q_v": q[2], "q_w": q[3], "r": CART_POLE_R,
            "fast": fast, "fast_w": fast_w, "slow": slow, "slow_w": slow_w,
            "tenth": math.log(10.0) / slow}  # fmt: skip


BY_NAME: dict[str, Callable[[Scenario], Values]] = {
    "moored_buoy": _moored_buoy,
    "crane_lowering": _crane_lowering,
    "cart_pole": _cart_pole,
}
