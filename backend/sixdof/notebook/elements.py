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

A "tag" (the page's label at the CG) and "none" draw nothing here.

Positions come from `LiveSimulation.element_records()` (where each element acts now and a
spring's other end), so the drawing shows exactly what the physics computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pythreejs as p3

from ..scenario.elements import ElementSpec
from ..scenario.kinds import BY_NAME

PIVOT_COLOUR = "#f2c14e"
SPRING_COLOUR = "#2a9d8f"
GROUND_COLOUR = "#8d9aa6"
LOAD_COLOUR = "#e76f51"
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
        if drawing == "ball":
            return p3.Mesh(
                p3.SphereGeometry(radius=0.06 * self.size, widthSegments=16, heightSegments=12),
                p3.MeshStandardMaterial(color=PIVOT_COLOUR, metalness=0.3, roughness=0.4),
                name=e.kind,
            )
        if drawing == "coil":
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

    def update(self, records: np.ndarray, weight: float = 1.0) -> None:
        """Move the objects to `records` (M, 9): point, force, other end (NED)."""
        for e, obj, rec in zip(self.elements, self.objects, records, strict=True):
            if obj is None:
                continue
            point = tuple(float(c) for c in rec[0:3])
            drawing = BY_NAME[e.kind].drawing
            if drawing == "ball":
                obj.position = point
            elif drawing == "coil":
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
            elif BY_NAME[e.kind].drawing == "coil":
                out.append(
                    tuple(float(c) for c in obj.geometry.attributes["position"].array.ravel())
                )
            else:
                out.append(tuple(float(c) for c in obj.position))
        return out


def body_weight(masses: Sequence[float], gravity: float = 9.81) -> float:
    """The weight the load arrows are scaled by (1 m per the heaviest body's weight)."""
    return max(masses) * (abs(gravity) if gravity else 9.81) if masses else 1.0


__all__ = ["ElementDrawing", "body_weight"]
