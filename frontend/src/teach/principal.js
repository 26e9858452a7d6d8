// @ts-check
// Show → "Inertia ellipsoid": the body's principal axes and its equivalent inertia ellipsoid,
// drawn on the body about its CG. The principal axes are the eigenvectors of the hello's
// inertia tensor about the CG (Inertia, or diag(m r²) from InertiaRadi); the ellipsoid is the
// uniform solid one with the body's mass and the same principal moments (MuJoCo draws the same
// "equivalent inertia" shape), so it has the body's size and follows every change of the shape
// when Mass and Inertia come from it:
//
//     I_1 = m (a_2² + a_3²) / 5, …   ⇒   a_1² = 5 (I_2 + I_3 − I_1) / (2 m), …
//
// Its semi-axes are metres in body axes, unlike Poinsot's ellipsoid, which lives in ω-space.
// An axis the triangle inequality leaves no room for (a flat disc's I_3 = I_1 + I_2) is drawn
// thin, not imaginary.

import { BufferGeometry, Float32BufferAttribute, Group, LineBasicMaterial, LineSegments, Matrix4 } from 'three';
import { ellipsoidLines, symmetricEigen } from './rotation.js';
import { inertiaTensor } from '../core/rigid.js';

/** One colour per principal axis, smallest moment first (the body triad's x, y, z colours). */
const AXIS_COLOURS = ['#d0312d', '#2e9d4a', '#2660c9'];
/** The principal axes reach this far past the ellipsoid, as a fraction of its largest semi-axis. */
const REACH = 1.35;

/**
 * Semi-axes (m) of the uniform solid ellipsoid with mass `m` and principal moments `moments`.
 * @param {number} m  kg
 * @param {readonly number[]} moments  kg·m², in any order
 * @returns {number[]} in the same order
 */
export function equivalentSemiAxes(m, moments) {
  const [a, b, c] = moments;
  const sq = [b + c - a, a + c - b, a + b - c].map((x) => (5 * x) / (2 * m));
  const largest = Math.max(...sq, 0);
  return sq.map((x) => Math.sqrt(Math.max(x, 1e-6 * largest)));
}

export class PrincipalAxes {
  constructor() {
    this.group = new Group(); // in the body, at the CG
    this.frame = new Group(); // the principal frame: its columns are the eigenvectors
    this.ellipsoid = new LineSegments(ellipsoidLines(48), new LineBasicMaterial({ color: '#6c4ab6' }));
    this.frame.add(this.ellipsoid);
    this.axes = AXIS_COLOURS.map((color) => {
      const g = new BufferGeometry();
      g.setAttribute('position', new Float32BufferAttribute([-1, 0, 0, 1, 0, 0], 3));
      const line = new LineSegments(g, new LineBasicMaterial({ color }));
      this.frame.add(line);
      return line;
    });
    this.group.add(this.frame);
    this.group.visible = false;
    /** @type {import('../view/body.js').BodyView | null} the body whose group holds it */
    this.attachedTo = null;
    /** @type {string | null} the inertia it was made for */
    this.specKey = null;
    /** principal moments (ascending, kg·m²) and the semi-axes along them (m): tests read them */
    this.moments = [0, 0, 0];
    this.semiAxes = [0, 0, 0];
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.group.visible = on;
  }

  get visible() {
    return this.group.visible;
  }

  /**
   * Follow the body's mass properties (a hello: Mass, Inertia or InertiaRadi, CGOffset).
   * @param {import('../view/body.js').BodyView} view
   * @param {import('../net/messages.gen.js').BodySpec} spec
   */
  setSpec(view, spec) {
    if (this.attachedTo !== view) {
      this.attachedTo?.group.remove(this.group);
      view.group.add(this.group);
      this.attachedTo = view;
    }
    const cg = spec.CGOffset ?? [0, 0, 0];
    this.group.position.set(cg[0], cg[1], cg[2]);
    const key = JSON.stringify([spec.Mass, spec.InertiaRadi, spec.Inertia]);
    if (key === this.specKey) return;
    this.specKey = key;
    const { values, vectors } = symmetricEigen(inertiaTensor(spec));
    const order = [0, 1, 2].sort((i, j) => values[i] - values[j]);
    this.moments = order.map((i) => values[i]);
    const semi = equivalentSemiAxes(spec.Mass, values);
    this.semiAxes = order.map((i) => semi[i]);
    this.frame.quaternion.setFromRotationMatrix(new Matrix4().setFromMatrix3(vectors));
    this.ellipsoid.scale.set(semi[0], semi[1], semi[2]);
    const reach = REACH * Math.max(...semi);
    // each line lies along its own column of `vectors` (x, y, z of the principal frame)
    order.forEach((i, rank) => {
      const line = this.axes[rank];
      line.quaternion.identity();
      line.scale.set(reach, reach, reach);
      if (i === 1) line.rotation.set(0, 0, Math.PI / 2);
      if (i === 2) line.rotation.set(0, -Math.PI / 2, 0);
    });
  }
}
