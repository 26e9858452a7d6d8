"""What the joints on a body measure: its JointGap, JointGapAngle, JointForce and JointMoment
outputs (output_table.py; docs/physics.md, "Joint").

A joint's reaction is what its multipliers put on its first body (`body`; the other end
feels the opposite) at the current state and loads: the force (global, N) and the moment
about its point (global, N·m; zero for a ball joint), from the same solve the integrator's
stages make (kernel.element_records). Its gap is how far it is from holding (m, rad:
kinds/joint.gaps). Per body, over the joints that name it as `body` (one in a chain, a
pendulum, a linkage listed link by link): the largest gaps and the summed reaction. The
largest JointGap over the bodies is a mechanism's drift.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .elements import Joint, System
from .params import Bodies
from .quaternion import Array

#: (name, width) of the outputs this module fills, all zero on a body without joints.
JOINT_OUTPUTS = (("JointGap", 1), ("JointGapAngle", 1), ("JointForce", 3), ("JointMoment", 3))


def has_joints(system: System | None) -> bool:
    return system is not None and any(isinstance(e, Joint) for e in system.elements)


def zero_joint_outputs(n: int) -> dict[str, Array]:
    return {name: np.zeros(n) if w == 1 else np.zeros((n, w)) for name, w in JOINT_OUTPUTS}


def joint_gaps(system: System, bodies: Bodies, x: Array) -> Array:
    """(M, 2): each element's gap (m, rad) in the order given; zeros for other kinds
    (kinds/joint.gaps, compiled: kernel.joint_gaps)."""
    from . import kernel  # the compiled kernels load on the first use

    assert len(bodies) == system.n_bodies
    return kernel.joint_gaps(system, x)


def joint_outputs(
    system: System | None, bodies: Bodies, x: ArrayLike, u: ArrayLike, t: float = 0.0,
    h: float = 1e-3,
) -> dict[str, Array]:  # fmt: skip
    """The four outputs (N, …) of `bodies` at states x (N, 13) under loads u (N, 6 or load
    rows), with the elements `system` packed for these bodies alone."""
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    out = zero_joint_outputs(len(xs))
    if system is None or not has_joints(system):
        return out
    from . import kernel  # the compiled kernels load on the first use

    records = kernel.element_records(kernel.packed(bodies, system), xs, u, t, h)
    found = joint_gaps(system, bodies, xs)
    for j, e in enumerate(system.elements):
        if not isinstance(e, Joint):
            continue
        b = e.body
        out["JointGap"][b] = max(out["JointGap"][b], found[j, 0])
        out["JointGapAngle"][b] = max(out["JointGapAngle"][b], found[j, 1])
        out["JointForce"][b] += records[j, 3:6]
        out["JointMoment"][b] += records[j, 9:12]
    return out


__all__ = ["JOINT_OUTPUTS", "has_joints", "joint_gaps", "joint_outputs", "zero_joint_outputs"]
