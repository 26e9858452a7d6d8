"""The joint tests' bodies (test_joints.py, test_joint_tree.py): thin rods, a planar double
compound pendulum and a double pendulum of point-like bobs hung from the world, and the worst
gap of their joints."""

from __future__ import annotations

import math

import numpy as np

from sixdof.dynamics import Bodies, BodyParams, make_state
from sixdof.dynamics.elements import Joint
from sixdof.dynamics.kinds.joint import gaps
from sixdof.dynamics.kinds.poses import Poses
from sixdof.dynamics.quaternion import multiply

G = 9.81
Quat = tuple[float, float, float, float]


def about_y(angle: float) -> Quat:
    return (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)


def rod(mass: float, length: float, gravity: float = G) -> BodyParams:
    """A thin rod along body z, CG at its middle (the reference point)."""
    radius = length / math.sqrt(12.0)
    return BodyParams.from_radii(mass, (radius, radius, 1e-3), gravity=gravity)


def worst_gap(joints: list[Joint], bodies: Bodies, x: np.ndarray) -> float:
    poses = Poses.of(bodies, x)
    return max(max(gaps(j, poses)) for j in joints)


# -- a planar double compound pendulum, hinged at the top of each rod ----------------------
L1, L2, M1, M2 = 1.0, 0.8, 1.0, 1.5
I1, I2 = M1 * L1**2 / 12.0, M2 * L2**2 / 12.0


def double(theta1: float, theta2: float) -> tuple[Bodies, list[Joint], np.ndarray]:
    """Rods of L1, L2 hanging from the world origin, angles from the downward vertical
    about +y (x = N forward)."""
    d1 = np.array([math.sin(theta1), 0.0, math.cos(theta1)])
    d2 = np.array([math.sin(theta2), 0.0, math.cos(theta2)])
    c1, c2 = 0.5 * L1 * d1, L1 * d1 + 0.5 * L2 * d2
    x = np.array(
        [
            make_state(tuple(c1), about_y(theta1), (0, 0, 0), (0, 0, 0)),
            make_state(tuple(c2), about_y(theta2), (0, 0, 0), (0, 0, 0)),
        ]
    )
    turn = tuple(multiply(np.array(about_y(-theta1)), np.array(about_y(theta2))))
    joints = [
        Joint(0, "hinge", (0.0, 0.0, -0.5 * L1), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
        Joint(1, "hinge", (0.0, 0.0, -0.5 * L2), (0.0, 0.0, 0.5 * L1), (0.0, 1.0, 0.0), 0, turn),  # type: ignore[arg-type]
    ]
    return Bodies.of([rod(M1, L1), rod(M2, L2)]), joints, x


def bobs(theta1: float, theta2: float) -> tuple[Bodies, list[Joint], np.ndarray]:
    """Two 1 kg point-like bobs on light 1 m links (each bob's body reaches to its hinge)."""
    bob = BodyParams.from_radii(1.0, (1e-5, 1e-5, 1e-5), gravity=G)
    p1 = np.array([math.sin(theta1), 0.0, math.cos(theta1)])
    p2 = p1 + np.array([math.sin(theta2), 0.0, math.cos(theta2)])
    x = np.array(
        [
            make_state(tuple(p1), about_y(theta1), (0, 0, 0), (0, 0, 0)),
            make_state(tuple(p2), about_y(theta2), (0, 0, 0), (0, 0, 0)),
        ]
    )
    turn = tuple(multiply(np.array(about_y(-theta1)), np.array(about_y(theta2))))
    joints = [
        Joint(0, "hinge", (0.0, 0.0, -1.0), (0.0, 0.0, 0.0)),
        Joint(1, "hinge", (0.0, 0.0, -1.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0, turn),  # type: ignore[arg-type]
    ]
    return Bodies.of([bob, bob]), joints, x
