"""A scenario's elements drawn in the notebook's stage, as the page draws them, by each
kind's drawing (`scenario.kind.Drawing`, the registry's `drawing`):

    NED root
      elements group
        ball       a small sphere at the held point (a pivot)
        coil       a line from its point on the body to its other end (a world point or
                   another body's point), following the bodies every frame (a spring)
        floor      a translucent plane at z = height (NED) (the ground)
        arrow      an arrow at its point along its force, scaled like the page's (1 m per
                   the body's weight) (a timed load)
        joint      a sphere at its point; a hinge's axis through it as a short pin, a
                   slider's as a longer rail (turning with its body)

A "tag" (the page's label at the CG) and "none" draw nothing here.

Positions come from `LiveSimulation.element_records()` (where each element acts now and a
spring's other end), and a joint's axis from its body's pose (`joint_axes`), so the drawing
shows exactly what the physics computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pythreejs as p3

from ..dynamics.elements import Joint, System
from ..dynamics.quaternion import to_rotmat
from ..scenario.elements import ElementSpec
from ..scenario.kinds import BY_NAME

PIVOT_COLOUR = "#f2c14e"
SPRING_COLOUR = "#2a9d8f"
GROUND_COLOUR = "#8d9aa6"
LOAD_COLOUR = "#e76f51"
JOINT_COLOUR = "#6c5ce7"
#: Half lengths of a hinge's pin and a slider's rail, per unit of the scene's size.
PIN, RAIL = 0.15, 0.6
GROUND_SIZE = 40.0  # m: the floor plane's side


class ElementDrawing:
    """The pythreejs objects of one scenario's elements, moved by `update(records)`."""

    def __init__(self, elements: Sequence[ElementSpec], size: float = 1.0) -> None:
        self.elements = list(elements)
        self.group = p3.Group(name="elements")
        self.size = float(size)
        self.objects: list[p3.Object3D | None] = []
        for e in self.elements:
            obj = self._make(e)
            self.objects.append(obj)
            if obj is not None:
                self.group.add(obj)

    def _make(self, e: ElementSpec) -> p3.Object3D | None:
        drawing = BY_NAME[e.kind].drawing
        if drawing == "joint":
            return self._joint()
        if drawing == "ball":
            return p3.Mesh(
                p3.SphereGeometry(radius=0.06 * self.size, widthSegments=16, heightSegments=12),
                p3.MeshStandardMaterial(color=PIVOT_COLOUR, metalness=0.3, roughness=0.4),
                name=e.kind,
            )
        if drawing == "coil" or drawing == "line":  # a cable: its chord (the page: its nodes)
            geometry = p3.BufferGeometry(
                attributes={"position": p3.BufferAttribute(np.zeros((2, 3), dtype=np.float32))}
            )
            return p3.Line(geometry, p3.LineBasicMaterial(color=SPRING_COLOUR, linewidth=3),
                           name=e.kind)  # fmt: skip
        if drawing == "floor":
            plane = p3.Mesh(
                p3.PlaneGeometry(width=GROUND_SIZE, height=GROUND_SIZE),
                p3.MeshStandardMaterial(
                    color=GROUND_COLOUR, transparent=True, opacity=0.45, side="DoubleSide"
                ),
                name=e.kind,
            )
            # PlaneGeometry lies in x-y: NED N-E
            plane.position = (0.0, 0.0, float(getattr(e, "height", 0.0)))
            return plane
        if drawing == "arrow":
            return p3.ArrowHelper(dir=(1, 0, 0), origin=(0, 0, 0), length=1e-6,
                                  color=LOAD_COLOUR, name=e.kind)  # fmt: skip
        return None  # a damper has no place to draw: it acts on the whole body

    def _joint(self) -> p3.Group:
        """A sphere at its point and a line through it (empty for a ball or a weld)."""
        line = p3.Line(
            p3.BufferGeometry(
                attributes={"position": p3.BufferAttribute(np.zeros((2, 3), dtype=np.float32))}
            ),
            p3.LineBasicMaterial(color=JOINT_COLOUR, linewidth=4),
            name="axis",
        )
        ball = p3.Mesh(
            p3.SphereGeometry(radius=0.05 * self.size, widthSegments=16, heightSegments=12),
            p3.MeshStandardMaterial(color=JOINT_COLOUR, metalness=0.3, roughness=0.4),
        )
        return p3.Group(children=[ball, line], name="joint")

    def update(
        self, records: np.ndarray, weight: float = 1.0, axes: np.ndarray | None = None
    ) -> None:
        """Move the objects to `records` (M, 12): point, force, other end (NED), …; `axes`
        (M, 3): each joint's axis in the world now (`joint_axes`; other rows unread)."""
        for k, (e, obj, rec) in enumerate(zip(self.elements, self.objects, records, strict=True)):
            if obj is None:
                continue
            point = tuple(float(c) for c in rec[0:3])
            drawing = BY_NAME[e.kind].drawing
            if drawing == "joint":
                obj.position = point
                half = {"hinge": PIN, "slider": RAIL}.get(getattr(e, "type", ""), 0.0)
                axis = np.zeros(3) if axes is None else np.asarray(axes[k], dtype=float)
                ends = np.array([-axis, axis], dtype=np.float32) * half * self.size
                obj.children[1].geometry.attributes["position"].array = ends
            elif drawing == "ball":
                obj.position = point
            elif drawing == "coil" or drawing == "line":
                ends = np.array([rec[0:3], rec[6:9]], dtype=np.float32)
                obj.geometry.attributes["position"].array = ends
            elif drawing == "arrow":
                force = np.asarray(rec[3:6], dtype=float)
                size = float(np.linalg.norm(force))
                with obj.hold_sync():
                    obj.position = point
                    if size > 0:
                        obj.dir = tuple((force / size).tolist())
                    obj.length = max(1e-6, size / max(weight, 1e-9))

    def positions(self) -> list[tuple[float, ...] | None]:
        """Where each drawn object is (a spring: both ends), for tests and fitting."""
        out: list[tuple[float, ...] | None] = []
        for e, obj in zip(self.elements, self.objects, strict=True):
            if obj is None:
                out.append(None)
            elif BY_NAME[e.kind].drawing in ("coil", "line"):
                out.append(
                    tuple(float(c) for c in obj.geometry.attributes["position"].array.ravel())
                )
            else:
                out.append(tuple(float(c) for c in obj.position))
        return out


def joint_axes(system: System | None, x: np.ndarray) -> np.ndarray:
    """(M, 3): each joint's axis (a hinge's, a slider's) in the world at states x (N, 13),
    turning with its body; zeros for the other elements."""
    if system is None:
        return np.zeros((0, 3))
    out = np.zeros((len(system.elements), 3))
    for k, e in enumerate(system.elements):
        if isinstance(e, Joint):
            q = x[e.body, 3:7] / np.linalg.norm(x[e.body, 3:7])
            axis = np.asarray(e.axis, dtype=float)
            out[k] = to_rotmat(q) @ (axis / np.linalg.norm(axis))
    return out


def body_weight(masses: Sequence[float], gravity: float = 9.81) -> float:
    """The weight the load arrows are scaled by (1 m per the heaviest body's weight)."""
    return max(masses) * (abs(gravity) if gravity else 9.81) if masses else 1.0


__all__ = ["ElementDrawing", "body_weight", "joint_axes"]
