// @ts-check
// A joint in the view (issue 41), by its type: a ball at the joined point (ball), a short pin
// along the hinge's axis through it (hinge), a rail along the slider's axis, fixed where the
// other end is, with a collar at the sliding point (slider), a small block (fixed: a weld).
//
// The axis is in the joint's own body's axes; the pin and collar turn with that body as drawn
// (interpolated), and the rail, which the other body (or the world) holds, keeps the line the
// axis has now: a slider does not let the two turn relative to each other, so the same line is
// fixed in both. Sizes follow the body's extent so a joint reads at any scale. Nothing is
// allocated per frame.

import { BoxGeometry, CylinderGeometry, Group, Mesh, MeshLambertMaterial, Quaternion, SphereGeometry, Vector3 } from 'three';

/** @typedef {import('./body.js').BodyView} BodyView */
/** @typedef {{kind: string, body: string, type?: string, point?: number[] | null, to?: number[] | {body: string, point?: number[] | null} | null, axis?: number[]}} JointSpec */

export const JOINT_COLOURS = { joint: '#343a40', pin: '#495057', rail: '#868e96', weld: '#c92a2a' };
const sphere = new SphereGeometry(1, 20, 14);
const pin = new CylinderGeometry(1, 1, 1, 16); // along three's +y, unit length and radius
const block = new BoxGeometry(1, 1, 1);
const Y = new Vector3(0, 1, 0);

/**
 * `point` (body axes from Pos) of the body `name` as drawn now, into `out` (NED); null when
 * the body has no view.
 * @param {Map<string, BodyView>} views @param {string} name @param {ArrayLike<number>} point @param {Vector3} out
 */
export function bodyPoint(views, name, point, out) {
  const v = views.get(name);
  if (!v) return null;
  return out.set(point[0], point[1], point[2]).applyQuaternion(v.group.quaternion).add(v.group.position);
}

export class JointGlyph {
  /** @param {JointSpec} spec @param {Group} group  the elements' group (NED) */
  constructor(spec, group) {
    this.spec = spec;
    this.type = spec.type ?? 'ball';
    this.group = group;
    this.root = new Group();
    const c = JOINT_COLOURS;
    const lambert = (/** @type {string} */ color) => new MeshLambertMaterial({ color, emissive: color, emissiveIntensity: 0.2 });
    /** @type {Mesh} the mark at the joined point: a ball, a pin, a collar or a block */
    this.mark = new Mesh(this.type === 'hinge' || this.type === 'slider' ? pin : this.type === 'fixed' ? block : sphere, lambert(this.type === 'fixed' ? c.weld : c.joint));
    /** @type {Mesh | null} a slider's rail */
    this.rail = this.type === 'slider' ? new Mesh(pin, lambert(c.rail)) : null;
    this.root.add(this.mark);
    if (this.rail) this.root.add(this.rail);
    group.add(this.root);
    /** the rail's anchor in the world when the other end is a world point left out: where the first frame puts it */
    this.anchor = /** @type {Vector3 | null} */ (null);
    this.scratch = { at: new Vector3(), far: new Vector3(), axis: new Vector3(), q: new Quaternion() };
  }

  /**
   * Place it on the bodies as drawn. `other`: the other end the server reports in the element
   * frame (NED), or null.
   * @param {Map<string, BodyView>} views @param {number[] | null} other
   */
  place(views, other) {
    const e = this.spec;
    const { at, far, axis, q } = this.scratch;
    const view = views.get(e.body);
    const found = view ? bodyPoint(views, e.body, e.point ?? [0, 0, 0], at) : null;
    this.root.visible = !!found;
    if (!view || !found) return;
    const size = Math.max(0.02, 0.06 * view.extent());
    const a = e.axis ?? [0, 1, 0];
    axis.set(a[0], a[1], a[2]).normalize().applyQuaternion(view.group.quaternion);
    q.setFromUnitVectors(Y, axis);
    this.mark.position.copy(at);
    if (this.type === 'ball') this.mark.scale.setScalar(size);
    else if (this.type === 'fixed') {
      this.mark.scale.setScalar(1.6 * size);
      this.mark.quaternion.copy(view.group.quaternion);
    } else {
      // a hinge's pin sticks out either side of the joint; a slider's collar is short and fat
      const long = this.type === 'hinge' ? 6 * size : 1.5 * size;
      const thick = this.type === 'hinge' ? 0.3 * size : 0.8 * size;
      this.mark.scale.set(thick, long, thick);
      this.mark.quaternion.copy(q);
    }
    if (this.rail) {
      const to = e.to;
      let end = null;
      if (Array.isArray(to)) end = far.fromArray(to);
      else if (to && to.point) end = bodyPoint(views, to.body, to.point, far);
      else if (other) end = far.fromArray(other);
      if (!end && !this.anchor) this.anchor = at.clone();
      if (!end && this.anchor) end = far.copy(this.anchor);
      this.rail.position.copy(end ?? at);
      this.rail.quaternion.copy(q);
      this.rail.scale.set(0.25 * size, 30 * size, 0.25 * size);
    }
  }

  /** What is drawn, for the tests. */
  describe() {
    return {
      type: this.type,
      visible: this.root.visible,
      at: this.mark.position.toArray(),
      axis: new Vector3(0, 1, 0).applyQuaternion(this.mark.quaternion).toArray(),
      length: this.mark.scale.y,
      rail: this.rail ? this.rail.position.toArray() : null,
    };
  }

  dispose() {
    this.group.remove(this.root);
    for (const m of [this.mark, this.rail]) if (m) /** @type {MeshLambertMaterial} */ (m.material).dispose();
  }
}
