// @ts-check
// Drawn helpers that are not the body itself: thick arrows (force, moment, velocity, drag),
// the body's axes triad, a fading trail, and text labels. All are placed in NED coordinates
// (children of the NED root or of a body group).

import {
  BufferGeometry,
  CanvasTexture,
  Color,
  ConeGeometry,
  CylinderGeometry,
  Group,
  Material,
  Mesh,
  MeshLambertMaterial,
  Quaternion,
  Sprite,
  SpriteMaterial,
  SRGBColorSpace,
  Texture,
  Vector3,
} from 'three';
import { VIEW } from '../net/protocol.gen.js';
import { Line2 } from 'three/addons/lines/Line2.js';
import { LineGeometry } from 'three/addons/lines/LineGeometry.js';
import { LineMaterial } from 'three/addons/lines/LineMaterial.js';

const UP = new Vector3(0, 1, 0);
const shaftGeometry = new CylinderGeometry(1, 1, 1, 16).translate(0, 0.5, 0); // base at origin
const headGeometry = new ConeGeometry(1, 1, 20).translate(0, 0.5, 0);

/**
 * A solid arrow from a point along a vector; `double` draws two heads (a moment vector).
 * Lambert shading: a software renderer (SwiftShader) pays per pixel for the physically based
 * material, and arrows gain nothing from it.
 */
export class Arrow extends Group {
  /**
   * @param {import('three').ColorRepresentation} color
   * @param {{double?: boolean, radius?: number}} [options]  radius: the shaft's, m
   */
  constructor(color, { double = false, radius = 0.03 } = {}) {
    super();
    const material = new MeshLambertMaterial({ color, emissive: color, emissiveIntensity: 0.35 });
    this.shaft = new Mesh(shaftGeometry, material);
    this.head = new Mesh(headGeometry, material);
    this.head2 = double ? new Mesh(headGeometry, material) : null;
    this.add(this.shaft, this.head);
    if (this.head2) this.add(this.head2);
    this.radius = radius;
    this.visible = false;
    this.renderOrder = 2;
  }

  /**
   * Show the arrow from `origin` along unit `dir` with `length` (all NED, m).
   * @param {Vector3} origin
   * @param {Vector3} dir
   * @param {number} length
   */
  set(origin, dir, length) {
    if (!(length > 1e-6) || !Number.isFinite(length)) {
      this.visible = false;
      return;
    }
    this.visible = true;
    this.position.copy(origin);
    this.quaternion.setFromUnitVectors(UP, dir);
    const r = this.radius;
    const head = Math.min(length * 0.45, r * 6);
    const heads = this.head2 ? 2 : 1;
    const shaft = Math.max(length - heads * head * 0.8, 1e-4);
    this.shaft.scale.set(r, shaft, r);
    this.head.scale.set(r * 2.6, head, r * 2.6);
    this.head.position.set(0, length - head, 0);
    if (this.head2) {
      this.head2.scale.set(r * 2.6, head, r * 2.6);
      this.head2.position.set(0, length - 1.8 * head, 0);
    }
  }
}

/**
 * The body's own axes: x (forward) red, y (starboard) green, z (down) blue, thick and
 * labelled x, y, z (the world's axes are thin, grey and labelled N, E, D).
 */
export function makeTriad(length = 1) {
  const g = new Group();
  /** @type {Array<['x' | 'y' | 'z', Vector3]>} */
  const axes = [['x', new Vector3(1, 0, 0)], ['y', new Vector3(0, 1, 0)], ['z', new Vector3(0, 0, 1)]];
  for (const [name, dir] of axes) {
    const color = VIEW.BODY_AXIS_COLOURS[name];
    const a = new Arrow(color, { radius: 0.022 });
    a.set(new Vector3(), dir, 1);
    g.add(a);
    const label = makeLabel(name, color, 0.16);
    label.position.copy(dir).multiplyScalar(1.12);
    g.add(label);
  }
  g.scale.setScalar(length);
  return g;
}

/**
 * A text label that always faces the camera; `height` in metres.
 * @param {string} text
 * @param {string} color  CSS colour
 * @param {number} [height]
 */
export function makeLabel(text, color, height = 0.35) {
  const canvas = document.createElement('canvas');
  const px = 96;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('sixdof: this browser gives no 2-D canvas context for a label');
  ctx.font = `bold ${px}px system-ui, sans-serif`;
  const w = Math.ceil(ctx.measureText(text).width + px * 0.5);
  canvas.width = w;
  canvas.height = Math.ceil(px * 1.3);
  ctx.font = `bold ${px}px system-ui, sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineWidth = px * 0.14;
  ctx.strokeStyle = 'rgba(255,255,255,0.9)';
  ctx.strokeText(text, w / 2, canvas.height / 2);
  ctx.fillStyle = color;
  ctx.fillText(text, w / 2, canvas.height / 2);
  const tex = new CanvasTexture(canvas);
  tex.colorSpace = SRGBColorSpace;
  const sprite = new Sprite(new SpriteMaterial({ map: tex, depthTest: false, transparent: true }));
  sprite.scale.set((height * w) / canvas.height, height, 1);
  sprite.renderOrder = 10;
  return sprite;
}

/** A trail of the CG path: a thick line whose old end fades into the background. */
export class Trail {
  /**
   * @param {import('three').Object3D} parent  where the line goes (the NED root)
   * @param {import('three').ColorRepresentation} color  of the newest end
   * @param {import('three').ColorRepresentation} background  the old end fades into it
   * @param {number} [capacity]  points kept
   */
  constructor(parent, color, background, capacity = 900) {
    this.capacity = capacity;
    /** @type {number[][]} NED points, oldest first */
    this.points = [];
    this.color = new Color(color);
    this.background = new Color(background);
    this.material = new LineMaterial({ linewidth: 3, vertexColors: true, worldUnits: false });
    /** @type {Line2 | null} */
    this.line = null;
    this.parent = parent;
    this.dirty = false;
    /** @type {number[] | null} */
    this.last = null;
    /** @type {boolean | undefined} set by `visible`; the line is shown until then */
    this._visible = undefined;
  }

  /**
   * Add a NED point (array), skipping moves smaller than `minStep` metres.
   * @param {number[]} p
   * @param {number} minStep
   */
  add(p, minStep) {
    if (this.last && Math.hypot(p[0] - this.last[0], p[1] - this.last[1], p[2] - this.last[2]) < minStep) return;
    this.points.push(p);
    this.last = p;
    if (this.points.length > this.capacity) this.points.shift();
    this.dirty = true;
  }

  clear() {
    this.points = [];
    this.last = null;
    this.dirty = true;
  }

  /** @param {boolean} v */
  set visible(v) {
    this._visible = v;
    if (this.line) this.line.visible = v;
  }

  /** Rebuild the line when points were added (call at most a few tens of times a second). */
  flush() {
    if (!this.dirty) return;
    this.dirty = false;
    if (this.line) {
      this.parent.remove(this.line);
      this.line.geometry.dispose();
      this.line = null;
    }
    const n = this.points.length;
    if (n < 2) return;
    const pos = new Float32Array(n * 3);
    const col = new Float32Array(n * 3);
    const c = new Color();
    for (let i = 0; i < n; i++) {
      pos.set(this.points[i], i * 3);
      const age = 1 - i / (n - 1); // 0 newest, 1 oldest
      c.copy(this.color).lerp(this.background, Math.min(1, age * age * 0.95 + age * 0.05));
      col[i * 3] = c.r;
      col[i * 3 + 1] = c.g;
      col[i * 3 + 2] = c.b;
    }
    const geom = new LineGeometry();
    geom.setPositions(pos);
    geom.setColors(col);
    this.line = new Line2(geom, this.material);
    this.line.computeLineDistances();
    this.line.visible = this._visible ?? true;
    this.line.frustumCulled = false;
    this.parent.add(this.line);
  }
}

/**
 * Rotation helper shared by callers that need a quaternion from +y to a direction.
 * @param {Vector3} dir  unit
 */
export function quatFromUp(dir) {
  return new Quaternion().setFromUnitVectors(UP, dir);
}

/**
 * Free the GPU buffers, materials and textures of `object` and everything below it.
 * @param {import('three').Object3D} object
 */
export function disposeTree(object) {
  object.traverse((node) => {
    // meshes, lines, points and sprites have a geometry and a material (or several)
    if ('geometry' in node && node.geometry instanceof BufferGeometry) node.geometry.dispose();
    const material = 'material' in node ? node.material : null;
    const materials = Array.isArray(material) ? material : material ? [material] : [];
    for (const m of materials) {
      if (!(m instanceof Material)) continue;
      if ('map' in m && m.map instanceof Texture) m.map.dispose();
      m.dispose();
    }
  });
}
