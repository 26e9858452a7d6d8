// @ts-check
// Rotation made visible.
//
// Show → "ω and L": the angular velocity ω and the angular momentum L about the CG, as world-
// frame arrows from the CG. With no moment L is fixed in space while ω wanders around it:
// the L arrow keeps its direction and length, the ω arrow does not.
//
// Show → "Poinsot": Poinsot's construction in ω-space (drawn s metres per rad/s around the
// CG). The energy ellipsoid ωᵀ I ω = 2T is fixed in the body (semi-axes √(2T/I_k) along the
// principal axes); the invariable plane is perpendicular to L at distance 2T/|L| from the
// CG; torque-free, the ellipsoid rolls on the plane without slipping, touching it at the tip
// of ω. The polhode is the path of that tip on the ellipsoid (drawn in the body), the
// herpolhode its path on the plane (drawn in the world, carried with the CG).

import {
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  Line,
  LineBasicMaterial,
  LineLoop,
  LineSegments,
  Matrix3,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Quaternion,
  SphereGeometry,
  Vector3,
} from 'three';
import { Arrow } from '../view/glyphs.js';
import { TextLabel, magnitude } from '../view/labels.js';
import { inertiaTensor } from '../core/rigid.js';
import { VIEW } from '../net/protocol.gen.js';

/** @typedef {import('../view/body.js').BodyView} BodyView */
/** @typedef {import('../net/interp.js').BodySample} BodySample */

const COLOURS = VIEW.GLYPH_COLOURS;
const Z = new Vector3(0, 0, 1);

/**
 * Eigen-decomposition of a symmetric 3×3 matrix by Jacobi rotations: {values, vectors} with
 * the eigenvectors as the columns of `vectors` (a rotation: det +1).
 * @param {Matrix3} m
 */
export function symmetricEigen(m) {
  const a = [0, 1, 2].map((i) => [0, 1, 2].map((j) => m.elements[j * 3 + i])); // row-major copy
  const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]; // prettier-ignore
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2;
    if (off < 1e-24 * (a[0][0] ** 2 + a[1][1] ** 2 + a[2][2] ** 2 + 1e-300)) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]]) {
      if (Math.abs(a[p][q]) < 1e-300) continue;
      const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k][p];
        const akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p][k];
        const aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k][p];
        const vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
      }
    }
  }
  const vectors = new Matrix3().set(v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2]);
  if (vectors.determinant() < 0) {
    for (let k = 0; k < 3; k++) v[k][2] = -v[k][2];
    vectors.set(v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2]);
  }
  return { values: [a[0][0], a[1][1], a[2][2]], vectors };
}

/** ω and L about the CG, as labelled world-frame arrows. */
export class OmegaAndL {
  /** @param {import('three').Object3D} root  the NED root */
  constructor(root) {
    this.group = new Group();
    root.add(this.group);
    this.omega = new Arrow(COLOURS.omega);
    this.L = new Arrow(COLOURS.angular_momentum, { double: true });
    this.omegaLabel = new TextLabel(COLOURS.omega, 0.2, 'left'); // left of its tip: L's label is right of L's
    this.LLabel = new TextLabel(COLOURS.angular_momentum);
    this.group.add(this.omega, this.L, this.omegaLabel, this.LLabel);
    this.visible = false;
    this.group.visible = false;
    /** the direction last drawn for L (NED, unit) and the arrows' lengths: tests read these */
    this.drawn = { L: new Vector3(), omega: new Vector3(), Llength: 0, omegaLength: 0 };
    this.scratch = { v: new Vector3(), dir: new Vector3() };
    this.scaleL = 0; // m per N·m·s, fixed until the scenario or inertia changes
    this.scaleW = 0; // m per rad/s
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.visible = on;
    this.group.visible = on;
  }

  /** Forget the arrows' scales: the next frame picks them again (a new scenario or inertia). */
  rescale() {
    this.scaleL = 0;
    this.scaleW = 0;
  }

  /**
   * Draw for one body: `view` its BodyView, `body` its interpolated sample, `thick` a
   * line-width factor (the projector), `labels` whether to rewrite the texts now.
   * @param {BodyView} view
   * @param {BodySample} body
   * @param {number} thick
   * @param {boolean} labels
   */
  update(view, body, thick, labels) {
    if (!this.visible) return;
    const frame = body.frame;
    const extent = view.extent();
    const s = this.scratch;
    const w = s.v.fromArray(frame.AngVelGlobal);
    const wSize = w.length();
    const Lv = frame.AngularMomentum;
    const LSize = Math.hypot(Lv[0], Lv[1], Lv[2]);
    // Each arrow's scale is chosen once (its first non-zero value drawn 1.5 body lengths) and
    // then kept, so a growing or shrinking ω or L shows as a growing or shrinking arrow.
    if (!this.scaleW && wSize > 1e-9) this.scaleW = (1.5 * extent) / wSize;
    if (!this.scaleL && LSize > 1e-9) this.scaleL = (1.3 * extent) / LSize;
    const radius = Math.max(0.008, 0.03 * extent) * thick;
    const textHeight = Math.max(0.05, 0.16 * extent) * (0.7 + 0.3 * thick);
    const cap = 5 * extent;
    this.omega.radius = radius;
    this.L.radius = radius * 1.2;
    if (wSize > 1e-9) {
      const len = Math.min(cap, Math.max(0.15 * extent, wSize * this.scaleW));
      s.dir.copy(w).divideScalar(wSize);
      this.omega.set(view.cg, s.dir, len);
      this.drawn.omega.copy(s.dir);
      this.drawn.omegaLength = len;
      this.omegaLabel.visible = true;
      this.omegaLabel.setHeight(textHeight);
      this.omegaLabel.position.copy(view.cg).addScaledVector(s.dir, len + 0.05 * extent);
      if (labels) this.omegaLabel.setText(`ω ${magnitude(wSize)} rad/s`);
    } else {
      this.omega.visible = false;
      this.omegaLabel.visible = false;
    }
    if (LSize > 1e-9) {
      const len = Math.min(cap, Math.max(0.15 * extent, LSize * this.scaleL));
      s.dir.fromArray(frame.AngularMomentum).divideScalar(LSize);
      this.L.set(view.cg, s.dir, len);
      this.drawn.L.copy(s.dir);
      this.drawn.Llength = len;
      this.LLabel.visible = true;
      this.LLabel.setHeight(textHeight);
      this.LLabel.position.copy(view.cg).addScaledVector(s.dir, len + 0.05 * extent);
      if (labels) this.LLabel.setText(`L ${magnitude(LSize)} N·m·s`);
    } else {
      this.L.visible = false;
      this.LLabel.visible = false;
    }
  }
}

/** A unit sphere as line segments: the three great circles and four parallels of z. */
export function ellipsoidLines(segments = 64) {
  /** @type {number[]} */
  const pos = [];
  /** @param {(a: number) => number[]} f  a point of the ring at angle a */
  const ring = (f) => {
    for (let k = 0; k < segments; k++) {
      const a = (2 * Math.PI * k) / segments;
      const b = (2 * Math.PI * (k + 1)) / segments;
      pos.push(...f(a), ...f(b));
    }
  };
  ring((a) => [Math.cos(a), Math.sin(a), 0]);
  ring((a) => [Math.cos(a), 0, Math.sin(a)]);
  ring((a) => [0, Math.cos(a), Math.sin(a)]);
  for (const z of [-0.7, -0.35, 0.35, 0.7]) {
    const r = Math.sqrt(1 - z * z);
    ring((a) => [r * Math.cos(a), r * Math.sin(a), z]);
  }
  const g = new BufferGeometry();
  g.setAttribute('position', new Float32BufferAttribute(pos, 3));
  return g;
}

/**
 * A unit circle in the x-y plane, for a LineLoop.
 * @param {number} segments
 */
function circleLine(segments) {
  const pos = [];
  for (let k = 0; k < segments; k++) pos.push(Math.cos((2 * Math.PI * k) / segments), Math.sin((2 * Math.PI * k) / segments), 0);
  const g = new BufferGeometry();
  g.setAttribute('position', new Float32BufferAttribute(pos, 3));
  return g;
}

/** A line of up to `capacity` points whose buffer is allocated once (a ring drawn in order). */
class TraceLine extends Line {
  /**
   * @param {import('three').ColorRepresentation} color
   * @param {number} [capacity]  points
   */
  constructor(color, capacity = 2400) {
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new Float32BufferAttribute(new Float32Array(capacity * 3), 3));
    geometry.setDrawRange(0, 0);
    super(geometry, new LineBasicMaterial({ color }));
    this.capacity = capacity;
    this.count = 0;
    this.frustumCulled = false;
    this.last = new Vector3(Infinity, 0, 0);
  }

  restart() {
    this.count = 0;
    this.last.set(Infinity, 0, 0);
    this.geometry.setDrawRange(0, 0);
  }

  /**
   * Append a point (skipping moves below `minStep`); a full line starts over.
   * @param {Vector3} p
   * @param {number} minStep
   */
  append(p, minStep) {
    if (this.last.distanceToSquared(p) < minStep * minStep) return;
    if (this.count >= this.capacity) this.count = 0;
    const attr = /** @type {import('three').BufferAttribute} */ (this.geometry.getAttribute('position'));
    attr.setXYZ(this.count, p.x, p.y, p.z);
    attr.clearUpdateRanges();
    attr.addUpdateRange(this.count * 3, 3); // upload the new point only, not the whole line
    attr.needsUpdate = true;
    this.count += 1;
    this.last.copy(p);
    this.geometry.setDrawRange(0, this.count);
  }
}

export class Poinsot {
  /** @param {import('three').Object3D} root  the NED root */
  constructor(root) {
    // in the body: the ellipsoid and the polhode, about the CG
    this.bodyPart = new Group();
    // drawn as lines (three principal ellipses and four parallels): a filled translucent
    // surface costs a software renderer more than the rest of the scene together
    this.ellipsoid = new LineSegments(ellipsoidLines(), new LineBasicMaterial({ color: '#b08900' }));
    this.axes = new Group(); // the principal frame: the ellipsoid's scale is along its axes
    this.axes.add(this.ellipsoid);
    this.polhode = new TraceLine(COLOURS.omega);
    this.bodyPart.add(this.axes, this.polhode);
    // in the world, carried with the CG: the invariable plane and the herpolhode
    this.worldPart = new Group();
    this.plane = new LineLoop(circleLine(64), new LineBasicMaterial({ color: COLOURS.angular_momentum }));
    this.herpolhode = new TraceLine(COLOURS.angular_momentum);
    this.contact = new Mesh(new SphereGeometry(1, 12, 8), new MeshBasicMaterial({ color: COLOURS.omega }));
    this.worldPart.add(this.plane, this.herpolhode, this.contact);
    root.add(this.worldPart);
    this.visible = false;
    this.worldPart.visible = false;
    this.bodyPart.visible = false;
    /** @type {BodyView | null} the body whose group holds the ellipsoid */
    this.attachedTo = null;
    /** @type {string | null} the inertia the ellipsoid was made for */
    this.specKey = null;
    this.principal = { values: [1, 1, 1], vectors: new Matrix3() };
    this.s = 0; // m per rad/s
    this.semi = [1, 1, 1]; // rad/s, the ellipsoid's semi-axes now
    this.energy = 0; // the T the scale was set for
    this.scratch = { w: new Vector3(), wb: new Vector3(), n: new Vector3(), q: new Quaternion(), m4: new Matrix4() };
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.visible = on;
    this.worldPart.visible = on;
    this.bodyPart.visible = on;
    if (!on) this.clear();
  }

  clear() {
    this.polhode.restart();
    this.herpolhode.restart();
  }

  /**
   * Follow the body's inertia (Mass, InertiaRadi or Inertia changed: a new ellipsoid).
   * @param {BodyView} view
   * @param {import('../net/messages.gen.js').BodySpec} spec
   */
  setSpec(view, spec) {
    const key = JSON.stringify([spec.Mass, spec.InertiaRadi, spec.Inertia, spec.CGOffset]);
    if (this.attachedTo !== view) {
      this.attachedTo?.group.remove(this.bodyPart);
      view.group.add(this.bodyPart);
      this.attachedTo = view;
    }
    const cg = spec.CGOffset ?? [0, 0, 0];
    this.bodyPart.position.set(cg[0], cg[1], cg[2]);
    if (key === this.specKey) return;
    this.specKey = key;
    this.principal = symmetricEigen(inertiaTensor(spec));
    this.axes.quaternion.setFromRotationMatrix(this.scratch.m4.setFromMatrix3(this.principal.vectors));
    this.s = 0;
    this.clear();
  }

  /**
   * @param {BodyView} view
   * @param {BodySample} body
   * @param {number} thick  line-width factor
   */
  update(view, body, thick) {
    if (!this.visible || !this.attachedTo) return;
    const frame = body.frame;
    const T = frame.RotationalEnergy;
    const Lv = frame.AngularMomentum;
    const Lsize = Math.hypot(Lv[0], Lv[1], Lv[2]);
    if (!(T > 1e-12) || !(Lsize > 1e-12)) {
      this.axes.visible = this.plane.visible = this.contact.visible = false;
      return;
    }
    this.axes.visible = this.plane.visible = this.contact.visible = true;
    const extent = view.extent();
    const semi = this.semi; // reused: nothing allocated per frame
    const values = this.principal.values;
    for (let k = 0; k < 3; k++) semi[k] = Math.sqrt((2 * T) / Math.max(values[k], 1e-300));
    // ω-space drawn at s m per rad/s: the largest semi-axis 0.6 body lengths. Kept while T
    // holds (torque-free it does), so the traces stay on the surfaces they belong to.
    if (!this.s || Math.abs(T - this.energy) > 0.02 * this.energy) {
      this.s = (0.6 * extent) / Math.max(semi[0], semi[1], semi[2]);
      this.energy = T;
      this.clear();
    }
    const s = this.s;
    this.axes.scale.set(semi[0] * s, semi[1] * s, semi[2] * s);
    const sc = this.scratch;
    // polhode: s ω in body axes
    sc.wb.fromArray(frame.AngVel).multiplyScalar(s);
    this.polhode.append(sc.wb, 0.004 * extent);
    // the plane ⟂ L through the tip of s ω (at distance s · 2T/|L| from the CG), about the CG
    this.worldPart.position.copy(view.cg);
    sc.n.fromArray(frame.AngularMomentum).divideScalar(Lsize);
    // ω in the world from the drawn (interpolated) pose keeps the contact point on the
    // drawn ellipsoid
    sc.w.copy(sc.wb).applyQuaternion(body.quat);
    const d = sc.w.dot(sc.n);
    this.plane.position.copy(sc.n).multiplyScalar(d);
    this.plane.quaternion.setFromUnitVectors(Z, sc.n);
    this.plane.scale.setScalar(extent); // small: a software renderer pays for every blended pixel
    this.contact.position.copy(sc.w);
    this.contact.scale.setScalar(0.035 * extent * thick);
    this.herpolhode.append(sc.w, 0.004 * extent);
  }
}
