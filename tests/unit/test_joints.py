"""Joints against closed forms and an independent reduced-coordinate solution (issue 41):
a double compound pendulum, the normal modes of an equal double pendulum, a tumbling pair
(momentum and energy), a slider on an incline, a hinge on a tilted axis, a weld, two
hinges on one axis and a four-bar linkage (redundant constraints, a closed loop)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from jointkit import I1, I2, L1, L2, M1, M2, G, Quat, about_y, bobs, double, rod, worst_gap
from scipy.integrate import solve_ivp
from scipy.special import ellipk

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Joint
from sixdof.dynamics.quaternion import multiply, to_rotmat


def energy(bodies: Bodies, x: np.ndarray, g: float = G) -> float:
    """Kinetic + potential (z down), reference points at the CGs."""
    total = 0.0
    for i in range(len(x)):
        m, v, w = bodies.mass[i], x[i, 7:10], x[i, 10:13]
        total += 0.5 * m * v @ v + 0.5 * w @ bodies.inertia_cg[i] @ w - m * g * x[i, 2]
    return float(total)


def reduced(t: float, s: np.ndarray) -> list[float]:
    """Lagrange's equations of the double compound pendulum in its two angles."""
    a, b, wa, wb = s
    k = M2 * L1 * L2 / 2.0
    mass = np.array(
        [
            [M1 * L1**2 / 4 + I1 + M2 * L1**2, k * math.cos(a - b)],
            [k * math.cos(a - b), M2 * L2**2 / 4 + I2],
        ]
    )
    rhs = np.array(
        [
            -k * math.sin(a - b) * wb**2 - (M1 * L1 / 2 + M2 * L1) * G * math.sin(a),
            k * math.sin(a - b) * wa**2 - M2 * L2 / 2 * G * math.sin(b),
        ]
    )
    acc = np.linalg.solve(mass, rhs)
    return [wa, wb, acc[0], acc[1]]


@pytest.mark.closed_form("joint")
def test_a_double_pendulum_follows_the_reduced_coordinate_solution() -> None:
    """Released at 2.0 and 2.5 rad: CG positions to 1e-6 m over 3 s (RK4, 1e-4 s) against
    DOP853 at rtol 1e-12 in the two angles; the hinges' gaps stay below 1e-8 m."""
    a0, b0 = 2.0, 2.5
    bodies, joints, x = double(a0, b0)
    pk = K.pack(bodies, joints)
    u = np.zeros((2, 6))
    times = np.arange(1, 31) * 0.1
    ref = solve_ivp(reduced, (0, 3.0), [a0, b0, 0, 0], "DOP853", times, rtol=1e-12, atol=1e-12)
    worst = gap = 0.0
    for k in range(len(times)):
        K.advance(pk, x, u, 1e-4, 1000, "rk4")
        a, b = ref.y[0, k], ref.y[1, k]
        d1 = np.array([math.sin(a), 0.0, math.cos(a)])
        d2 = np.array([math.sin(b), 0.0, math.cos(b)])
        worst = max(worst, np.abs(x[0, :3] - 0.5 * L1 * d1).max())
        worst = max(worst, np.abs(x[1, :3] - (L1 * d1 + 0.5 * L2 * d2)).max())
        gap = max(gap, worst_gap(joints, bodies, x))
    assert ref.success and abs(ref.y[0]).max() > 1.0
    assert worst < 1e-6, worst
    assert gap < 1e-8, gap


def test_a_double_pendulum_keeps_its_energy_over_10_s() -> None:
    """RK4 at 1e-3 s: energy drift ≤ 1e-6 of its size, gaps ≤ 1e-8 m throughout."""
    bodies, joints, x = double(2.0, 2.5)
    pk = K.pack(bodies, joints)
    u = np.zeros((2, 6))
    e0 = energy(bodies, x)
    drift = gap = 0.0
    for _ in range(100):
        K.advance(pk, x, u, 1e-3, 100, "rk4")
        drift = max(drift, abs(energy(bodies, x) - e0) / abs(e0))
        gap = max(gap, worst_gap(joints, bodies, x))
    assert drift < 1e-6, drift
    assert gap < 1e-8, gap


def period(pk: K.PackedBodies, x: np.ndarray, h: float, crossings: int) -> float:
    """Twice the mean time between the upper bob's crossings of the vertical."""
    u = np.zeros((len(x), 6))
    times, t, last = [], 0.0, x[0, 0]
    while len(times) < crossings:
        K.advance(pk, x, u, h, 1, "rk4")
        t += h
        if (last < 0.0) != (x[0, 0] < 0.0):
            times.append(t - h * x[0, 0] / (x[0, 0] - last))
        last = x[0, 0]
    return 2.0 * (times[-1] - times[0]) / (len(times) - 1)


@pytest.mark.parametrize(("ratio", "want"), [(math.sqrt(2.0), 2.62105), (-math.sqrt(2.0), 1.08568)])
def test_an_equal_double_pendulum_swings_at_its_normal_mode_periods(
    ratio: float, want: float
) -> None:
    """Started in a normal mode at 1e-3 rad: T = 2π / √((2 ∓ √2) g/L), to 1e-5."""
    bodies, joints, x = bobs(1e-3, 1e-3 * ratio)
    exact = 2 * math.pi / math.sqrt((2.0 - math.copysign(math.sqrt(2.0), ratio)) * G)
    assert exact == pytest.approx(want, abs=5e-6)
    got = period(K.pack(bodies, joints), x, 1e-3, 21)
    assert got == pytest.approx(exact, rel=1e-5)


def momenta(bodies: Bodies, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total linear and angular momentum (about the origin), world."""
    lin, ang = np.zeros(3), np.zeros(3)
    for i in range(len(x)):
        r = to_rotmat(x[i, 3:7] / np.linalg.norm(x[i, 3:7]))
        p = bodies.mass[i] * r @ x[i, 7:10]
        lin += p
        ang += np.cross(x[i, :3], p) + r @ bodies.inertia_cg[i] @ x[i, 10:13]
    return lin, ang


def test_a_weightless_pair_on_a_ball_joint_keeps_its_momenta_and_energy() -> None:
    """Tumbling 5 s (RK4, 5e-4 s): the reactions are internal."""
    a = BodyParams.from_radii(2.0, (0.3, 0.25, 0.2), gravity=0.0)
    b = BodyParams.from_radii(1.0, (0.22, 0.25, 0.15), gravity=0.0)
    bodies = Bodies.of([a, b])
    qa = np.array([0.9, 0.1, -0.3, 0.2])
    qb = np.array([0.7, -0.4, 0.1, 0.5])
    qa, qb = qa / np.linalg.norm(qa), qb / np.linalg.norm(qb)
    ra, rb = to_rotmat(qa), to_rotmat(qb)
    pa, pb = np.array([0.0, 0.0, 0.4]), np.array([0.1, -0.2, -0.3])  # body points joined
    wa, wb = np.array([1.0, -2.0, 3.0]), np.array([-2.0, 1.5, 0.5])
    va = np.array([0.2, 0.1, -0.3])
    meet = ra @ pa  # A's point in the world (A at the origin)
    vmeet = ra @ (va + np.cross(wa, pa))
    xb = meet - rb @ pb
    vb = rb.T @ vmeet - np.cross(wb, pb)  # B's reference point, its axes
    x = np.array(
        [make_state((0, 0, 0), tuple(qa), tuple(va), tuple(wa)),
         make_state(tuple(xb), tuple(qb), tuple(vb), tuple(wb))]
    )  # fmt: skip
    turn = tuple(multiply(np.array([qb[0], *-qb[1:]]), qa))
    joints = [Joint(0, "ball", tuple(pa), tuple(pb), other=1, turn=turn)]  # type: ignore[arg-type]
    pk = K.pack(bodies, joints)
    lin0, ang0 = momenta(bodies, x)
    e0 = energy(bodies, x, 0.0)
    for _ in range(10):
        K.advance(pk, x, np.zeros((2, 6)), 5e-4, 1000, "rk4")
        lin, ang = momenta(bodies, x)
        assert np.abs(lin - lin0).max() < 1e-9 * max(1.0, np.abs(lin0).max())
        assert np.abs(ang - ang0).max() < 1e-9 * max(1.0, np.abs(ang0).max())
        assert abs(energy(bodies, x, 0.0) - e0) < 1e-8 * e0
        assert worst_gap(joints, bodies, x) < 1e-9


def test_a_slider_on_an_incline_accelerates_at_g_sin_alpha() -> None:
    """A box on a frictionless 30° rail to the world, from rest: s = ½ g sin α t², exact
    for RK4 (a quadratic in t); the rail holds its turn."""
    alpha = math.radians(30.0)
    axis = (math.cos(alpha), 0.0, math.sin(alpha))
    box = BodyParams.from_radii(3.0, (0.3, 0.25, 0.2), gravity=G)
    x = np.array([make_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))])
    joints = [Joint(0, "slider", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), axis)]
    pk = K.pack(Bodies.of([box]), joints)
    K.advance(pk, x, np.zeros((1, 6)), 1e-3, 2000, "rk4")
    s = 0.5 * G * math.sin(alpha) * 2.0**2
    assert np.abs(x[0, :3] - s * np.array(axis)).max() < 1e-10
    assert np.abs(x[0, 3:7] - (1, 0, 0, 0)).max() < 1e-12
    assert np.abs(x[0, 10:13]).max() < 1e-12


def _tilted(beta: float, theta0: float, d: float) -> tuple[np.ndarray, Quat]:
    """A body whose y axis is the hinge axis (0, cos β, sin β), swung θ0 about it, CG at d
    from the hinge at the origin: its state's position and quaternion."""
    q_beta = np.array([math.cos(beta / 2), math.sin(beta / 2), 0.0, 0.0])  # about x
    q = multiply(q_beta, np.array(about_y(theta0)))
    return to_rotmat(q) @ np.array([0.0, 0.0, d]), tuple(q)  # type: ignore[return-value]


def test_a_hinge_on_a_tilted_axis_swings_with_the_elliptic_period() -> None:
    """The axis tilted β = 40° from level: gravity across it is g cos β, so released at
    90° the body swings with T = 4 √(I / (m g cos β d)) K(sin²(θ0/2)), I about the axis
    through the hinge. A ball joint would swing in the vertical plane instead."""
    beta, theta0, d, m = math.radians(40.0), math.pi / 2, 0.6, 2.0
    radii = (0.3, 0.25, 0.2)
    pos, q = _tilted(beta, theta0, d)
    x = np.array([make_state(tuple(pos), q, (0, 0, 0), (0, 0, 0))])
    joints = [Joint(0, "hinge", (0.0, 0.0, -d), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), None, q)]
    pk = K.pack(Bodies.of([BodyParams.from_radii(m, radii, gravity=G)]), joints)
    inertia = m * (radii[1] ** 2 + d**2)
    exact = (
        4 * math.sqrt(inertia / (m * G * math.cos(beta) * d)) * ellipk(math.sin(theta0 / 2) ** 2)
    )
    got = period(pk, x, 1e-3, 9)  # x[0, 0] is N: the CG crosses the plane x = 0 below the axis
    assert got == pytest.approx(exact, rel=1e-6)


def test_a_welded_pair_and_a_door_on_two_hinges_swing_as_one_body() -> None:
    """A rod welded under a rod hinged to the world swings as their sum, T = 2π √(I/(m g
    d)) for small swings; so does the upper rod with its hinge doubled 0.5 m along the
    axis (a redundant constraint: the regularised solve takes it)."""
    bodies, joints, x = double(1e-3, 1e-3)
    weld = Joint(1, "fixed", (0.0, 0.0, -0.5 * L2), (0.0, 0.0, 0.5 * L1), other=0)
    inertia = I1 + M1 * (L1 / 2) ** 2 + I2 + M2 * (L1 + L2 / 2) ** 2
    md = M1 * L1 / 2 + M2 * (L1 + L2 / 2)
    exact = 2 * math.pi * math.sqrt(inertia / (md * G))
    assert period(K.pack(bodies, [joints[0], weld]), x, 1e-3, 9) == pytest.approx(exact, rel=1e-5)
    one = Bodies.of([rod(M1, L1)])
    y = x[:1].copy()
    door = [joints[0], Joint(0, "hinge", (0.0, 0.5, -0.5 * L1), (0.0, 0.5, 0.0))]
    exact = 2 * math.pi * math.sqrt((I1 + M1 * L1**2 / 4) / (M1 * L1 / 2 * G))
    assert period(K.pack(one, door), y, 1e-3, 9) == pytest.approx(exact, rel=1e-5)


# -- a four-bar linkage: a closed loop, its out-of-plane rows redundant --------------------
CRANK, COUPLER, ROCKER, GROUND = 0.3, 1.0, 0.8, 1.0
MARK = np.array([0.2, 0.0, 0.1])  # a point on the coupler, its axes (off its line)


def _closing(b: np.ndarray) -> np.ndarray:
    """Where the coupler meets the rocker for the crank's end at b: the two circles'
    intersection, on the branch the linkage is assembled in."""
    o2 = np.array([GROUND, 0.0, 0.0])
    d = float(np.linalg.norm(o2 - b))
    e = (o2 - b) / d
    along = (COUPLER**2 - ROCKER**2 + d**2) / (2 * d)
    return b + along * e + math.sqrt(COUPLER**2 - along**2) * np.array([e[2], 0.0, -e[0]])


def _rod_state(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    u = (end - start) / np.linalg.norm(end - start)
    return make_state(
        tuple(0.5 * (start + end)), about_y(math.atan2(u[0], u[2])), (0, 0, 0), (0, 0, 0)
    )


def _coupler_mark(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The coupler's point MARK in the world, from its ends alone."""
    u = (c - b) / COUPLER
    return 0.5 * (b + c) + MARK[0] * np.array([u[2], 0.0, -u[0]]) + MARK[2] * u


def test_a_four_bar_linkage_s_coupler_point_follows_its_closed_form_path() -> None:
    """Crank 0.3 m, coupler 1 m, rocker 0.8 m, ground 1 m (a crank-rocker) swinging under
    gravity 3 s: 4 hinges, 20 rows on 18 coordinates (3 redundant). At every 0.1 s the
    coupler's point, from the loop's closure at the crank's angle, to 1e-6 m; gaps, energy."""
    o1, o2 = np.zeros(3), np.array([GROUND, 0.0, 0.0])
    b = CRANK * np.array([math.sin(1.0), 0.0, math.cos(1.0)])
    c = _closing(b)
    x = np.array([_rod_state(o1, b), _rod_state(b, c), _rod_state(o2, c)])
    ends = [(0.0, 0.0, -0.5 * L) for L in (CRANK, COUPLER, ROCKER)]

    def turn(i: int, o: int) -> tuple[float, ...]:
        return tuple(multiply(np.array([x[o, 3], *-x[o, 4:7]]), x[i, 3:7]))

    joints = [
        Joint(0, "hinge", ends[0], (0.0, 0.0, 0.0), turn=tuple(x[0, 3:7])),  # type: ignore[arg-type]
        Joint(1, "hinge", ends[1], (0.0, 0.0, 0.5 * CRANK), other=0, turn=turn(1, 0)),  # type: ignore[arg-type]
        Joint(2, "hinge", (0.0, 0.0, 0.5 * ROCKER), (0.0, 0.0, 0.5 * COUPLER), other=1,
              turn=turn(2, 1)),  # type: ignore[arg-type]
        Joint(2, "hinge", ends[2], tuple(o2), turn=tuple(x[2, 3:7])),  # type: ignore[arg-type]
    ]  # fmt: skip
    bodies = Bodies.of([rod(1.0, CRANK), rod(1.0, COUPLER), rod(1.0, ROCKER)])
    pk = K.pack(bodies, joints)
    e0 = energy(bodies, x)
    worst = drift = 0.0
    for _ in range(30):
        K.advance(pk, x, np.zeros((3, 6)), 1e-3, 100, "rk4")
        crank_end = x[0, :3] + to_rotmat(x[0, 3:7]) @ np.array([0.0, 0.0, 0.5 * CRANK])
        want = _coupler_mark(crank_end, _closing(crank_end))
        got = x[1, :3] + to_rotmat(x[1, 3:7] / np.linalg.norm(x[1, 3:7])) @ MARK
        worst = max(worst, float(np.abs(got - want).max()))
        drift = max(drift, abs(energy(bodies, x) - e0) / abs(e0))
        assert worst_gap(joints, bodies, x) < 1e-8
    assert worst < 1e-6, worst
    assert drift < 1e-6, drift
    assert abs(x[0, 0] - 0.5 * CRANK * math.sin(1.0)) > 0.01  # it moved


def test_a_chain_keeps_its_energy_and_any_order_of_its_joints_gives_the_same_motion() -> None:
    """8 links on hinges released from level, 2 s: energy to 1e-6 of the drop, gaps to 1e-8 m; the
    joints listed from the top (a narrow envelope) or shuffled (a wide one) agree to 1e-9 m."""
    n, length = 8, 0.2
    link = rod(0.5, length)
    x0 = np.array(
        [make_state((length * (i + 0.5), 0.0, 0.0), about_y(math.pi / 2), (0, 0, 0), (0, 0, 0))
         for i in range(n)]
    )  # fmt: skip
    joints = [Joint(0, "hinge", (0.0, 0.0, -0.5 * length), (0.0, 0.0, 0.0))]
    joints += [
        Joint(i, "hinge", (0.0, 0.0, -0.5 * length), (0.0, 0.0, 0.5 * length), other=i - 1)
        for i in range(1, n)
    ]
    bodies = Bodies.of([link] * n)
    scale = n * 0.5 * G * n * length  # J: the energy it has to give, hanging
    ends = []
    for order in (joints, [joints[k] for k in (5, 0, 7, 2, 6, 1, 4, 3)]):
        x = x0.copy()
        pk = K.pack(bodies, order)
        e0 = energy(bodies, x)
        for _ in range(20):
            K.advance(pk, x, np.zeros((n, 6)), 1e-3, 100, "rk4")
            assert abs(energy(bodies, x) - e0) < 1e-6 * scale
            assert worst_gap(joints, bodies, x) < 1e-8
        ends.append(x)
    assert np.abs(ends[0][:, :3] - ends[1][:, :3]).max() < 1e-9
    assert np.abs(ends[0][-1, :3] - x0[-1, :3]).max() > 0.1  # it fell
