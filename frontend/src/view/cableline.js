// @ts-check
// A cable (issue 44) drawn as it hangs: a polyline through its nodes as the state frame gives
// them (`elements[k].nodes`, NED), a slack line sagging, a taut one straight. Its two ends are
// moved onto the drawn, interpolated body points, so they stay on the bodies between frames;
// its inner nodes are the last frame's (a past frame carries none: the line keeps its shape).
// Nothing is allocated per frame: the vertices are rewritten in place.

import { BufferAttribute, BufferGeometry, Group, Line, LineBasicMaterial, Mesh, MeshLambertMaterial, SphereGeometry } from 'three';

const knot = new SphereGeometry(1, 12, 8);

export class CableLine extends Group {
  /** @param {string} color @param {number} segments  the cable's, so n + 1 nodes */
  constructor(color, segments) {
    super();
    this.count = Math.max(1, Math.round(segments)) + 1;
    this.positions = new Float32Array(3 * this.count);
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(this.positions, 3));
    this.line = new Line(geometry, new LineBasicMaterial({ color }));
    this.line.frustumCulled = false; // its bounds change every frame
    const material = new MeshLambertMaterial({ color, emissive: color, emissiveIntensity: 0.25 });
    this.ends = [new Mesh(knot, material), new Mesh(knot, material)];
    this.add(this.line, ...this.ends);
    this.known = false; // nodes seen in a frame yet
    this.visible = false;
  }

  /**
   * The frame's nodes (n + 1 of them, NED), kept until the next frame that has them.
   * @param {number[][] | null | undefined} nodes
   */
  setNodes(nodes) {
    if (!nodes || nodes.length !== this.count) return;
    const P = this.positions;
    nodes.forEach((p, i) => P.set(p, 3 * i));
    this.known = true;
  }

  /**
   * Its ends on the drawn body points `a`, `b` (NED); before any frame, the chord between them.
   * @param {import('three').Vector3} a @param {import('three').Vector3} b @param {number} size  the knots' radius, m
   */
  place(a, b, size) {
    const P = this.positions;
    const last = 3 * (this.count - 1);
    if (!this.known) {
      for (let i = 0; i < this.count; i++) {
        const s = i / (this.count - 1);
        P[3 * i] = a.x + s * (b.x - a.x);
        P[3 * i + 1] = a.y + s * (b.y - a.y);
        P[3 * i + 2] = a.z + s * (b.z - a.z);
      }
    }
    P[0] = a.x;
    P[1] = a.y;
    P[2] = a.z;
    P[last] = b.x;
    P[last + 1] = b.y;
    P[last + 2] = b.z;
    this.line.geometry.attributes.position.needsUpdate = true;
    this.ends[0].position.copy(a);
    this.ends[1].position.copy(b);
    for (const end of this.ends) end.scale.setScalar(size);
    this.visible = true;
  }

  /** Its nodes as drawn, NED: [[x, y, z], …]. */
  nodes() {
    return Array.from({ length: this.count }, (_, i) => Array.from(this.positions.subarray(3 * i, 3 * i + 3)));
  }

  dispose() {
    this.line.geometry.dispose();
  }
}
