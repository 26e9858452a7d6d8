"""The tree path (dynamics/tree_compiled.py; issue 41's speed): a tree of plain hinges hung
from the world steps in its hinge angles. Which mechanisms take it (the ones tests/unit/
test_joints*.py measure against closed forms and DOP853 do), and that it is the general
solve's mechanism: the same motion, the same reactions (JointForce, JointMoment), gaps 0.

The general path is forced by an element that does nothing (a zero TimedLoad): any element
the tree path does not take keeps a group on the constraint solve."""

from __future__ import annotations

import math

import numpy as np
import pytest
from jointkit import G, about_y, bobs, double, rod, worst_gap

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Element, Joint, TimedLoad


def general(joints: list[Joint]) -> list[Element]:
    return [*joints, TimedLoad(0)]  # a load of zero: the same mechanism, the general path


def chain(n: int, length: float = 0.2) -> tuple[Bodies, list[Joint], np.ndarray]:
    """n rods on hinges hanging from the world origin, released from level, the top one
    turning (a 3-D start: its axis is not the hinges')."""
    x0 = np.array(
        [make_state((length * (i + 0.5), 0.0, 0.0), about_y(math.pi / 2), (0, 0, 0),
                    (0.0, 0.0, 0.0)) for i in range(n)]
    )  # fmt: skip
    joints = [Joint(0, "hinge", (0.0, 0.0, -0.5 * length), (0.0, 0.0, 0.0))]
    joints += [
        Joint(i, "hinge", (0.0, 0.0, -0.5 * length), (0.0, 0.0, 0.5 * length), other=i - 1)
        for i in range(1, n)
    ]
    return Bodies.of([rod(0.5, length)] * n), joints, x0


def test_the_joint_tests_mechanisms_take_the_tree_path_and_the_others_do_not() -> None:
    bodies, joints, _ = double(2.0, 2.5)
    assert K.joint_paths(K.pack(bodies, joints)) == ["tree"]
    assert K.joint_paths(K.pack(*bobs(1e-3, 1e-3 * math.sqrt(2))[:2])) == ["tree"]
    cb, cj, _ = chain(8)
    assert K.joint_paths(K.pack(cb, [cj[k] for k in (5, 0, 7, 2, 6, 1, 4, 3)])) == ["tree"]
    assert K.joint_paths(K.pack(*chain(20)[:2])) == ["tree"]
    one = Bodies.of([rod(1.0, 1.0)])
    assert K.joint_paths(K.pack(one, [joints[0]])) == ["tree"]  # a hinge alone
    others: list[tuple[Bodies, list[Element]]] = [
        (bodies, general(joints)),
        (bodies, [joints[0], Joint(1, "fixed", (0, 0, -0.4), (0, 0, 0.5), other=0)]),
        (bodies, [joints[0], Joint(1, "ball", (0, 0, -0.4), (0, 0, 0.5), other=0)]),
        (bodies, [joints[0], Joint(1, "hinge", (0, 0, -0.4), (0, 0, 0.5), other=0, damping=1)]),
        (bodies, [joints[0], Joint(0, "hinge", (0, 0, 0.5), (0, 0, -0.4), other=1)]),  # B below
        (one, [joints[0], Joint(0, "hinge", (0.0, 0.5, -0.5), (0.0, 0.5, 0.0))]),  # a door
        (one, [Joint(0, "slider", (0, 0, 0), (0, 0, 0))]),
        (Bodies.of([BodyParams.from_radii(1.0, (0.3, 0.3, 0.1), gravity=G, model="fhsim")]),
         [joints[0]]),
    ]  # fmt: skip
    for b, elements in others:
        assert K.joint_paths(K.pack(b, elements)) == ["general"], elements


@pytest.mark.parametrize("case", ["double", "chain"])
def test_the_tree_path_moves_and_reacts_as_the_general_solve(case: str) -> None:
    """Released at large angles under a force and a moment on one link: 1 s at h = 1e-4 s
    by both paths, positions and velocities to 1e-9; at every 0.1 s the joints' reactions
    (the records JointForce and JointMoment sum) to 1e-8 of the links' weight (and of its
    moment on a link's length); the tree's gaps 0 to rounding."""
    if case == "double":
        bodies, joints, x0 = double(2.0, 2.5)
        x0[1, 10:13] = (0.3, -1.0, 0.2)  # off the plane: a 3-D swing
    else:
        bodies, joints, x0 = chain(6)
    n = len(x0)
    u = np.zeros((n, 6))
    u[n - 1] = (1.0, -2.0, 0.5, 0.1, 0.2, -0.3)
    fast, slow = K.pack(bodies, joints), K.pack(bodies, general(joints))
    assert K.joint_paths(fast, u) == ["tree"] and K.joint_paths(slow, u) == ["general"]
    a, b = x0.copy(), x0.copy()
    K.advance(slow, b, u, 1e-4, 0, "rk4")  # both put on their joints as the general path does
    weight = float(sum(bodies.mass)) * G
    worst_force = worst_moment = worst_gap_tree = 0.0
    for _ in range(10):
        K.advance(fast, a, u, 1e-4, 1000, "rk4")
        K.advance(slow, b, u, 1e-4, 1000, "rk4")
        assert np.abs(a[:, :3] - b[:, :3]).max() < 1e-9
        assert np.abs(a[:, 7:] - b[:, 7:]).max() < 1e-9
        assert np.abs(np.abs(np.sum(a[:, 3:7] * b[:, 3:7], axis=1)) - 1.0).max() < 1e-12
        tree = K.element_records(fast, a, u)
        solve = K.element_records(slow, a, u)[: len(joints)]
        worst_force = max(worst_force, np.abs(tree[:, 3:6] - solve[:, 3:6]).max() / weight)
        worst_moment = max(worst_moment, np.abs(tree[:, 9:12] - solve[:, 9:12]).max() / weight)
        assert np.abs(tree[:, :3] - solve[:, :3]).max() < 1e-12  # the same points
        worst_gap_tree = max(worst_gap_tree, worst_gap(joints, bodies, a))
    assert worst_force < 1e-8, worst_force
    assert worst_moment < 1e-8, worst_moment
    assert worst_gap_tree < 1e-12, worst_gap_tree
    assert np.abs(a[:, :3] - x0[:, :3]).max() > 0.1  # it moved


def test_a_long_chain_on_the_tree_path_keeps_its_energy_and_its_joints() -> None:
    """20 links released from level, 1 s at h = 1e-3 s (the live step; after it the tip
    whips at ~14 rad/s, and RK4's h⁴ error grows on either path): energy to 1e-6 of the
    drop, gaps 0 to rounding."""
    bodies, joints, x = chain(20)
    pk = K.pack(bodies, joints)
    assert K.joint_paths(pk) == ["tree"]

    def energy() -> float:
        m, w = bodies.mass, x[:, 10:13]
        spin = sum(w[i] @ bodies.inertia_cg[i] @ w[i] for i in range(len(x)))
        return float(0.5 * (m * (x[:, 7:10] ** 2).sum(axis=1)).sum() + 0.5 * spin
                     - G * (m * x[:, 2]).sum())  # fmt: skip

    e0, scale = energy(), 20 * 0.5 * G * 20 * 0.2
    for _ in range(10):
        K.advance(pk, x, np.zeros((20, 6)), 1e-3, 100, "rk4")
        assert abs(energy() - e0) < 1e-6 * scale
        assert worst_gap(joints, bodies, x) < 1e-12
