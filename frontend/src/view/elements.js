// @ts-check
// The scenario's elements in the view (issue 27), each by its kind's drawing (the registry's,
// core/kinds.gen.js): a "ball" at its held point (a pivot), a "coil" between its two ends that
// stretches and thins with its length (a spring), a "line" through the nodes the state frame
// gives (a cable: view/cableline.js), a "floor" at its height (the ground), a
// "tag", a labelled glyph at the CG (a damper), a "joint" by its type (view/joints.js). Loads ("arrow") and every element's force are
// the free-body diagram's (fbd.js): this module hands it the element frames each render.
//
// Points on a body are body axes from its reference point Pos (DESIGN.md section 8), so each is
// placed from the drawn, interpolated pose: a pivot stays on the body's point and a coil's ends
// stay on the bodies while frames are interpolated. Everything lives in the NED root; the
// ground plane z = height is NED's own x-y plane moved down by `height`. Nothing is allocated
// per frame: the coil's vertices are rewritten in place.

import {
  BufferAttribute,
  BufferGeometry,
  CylinderGeometry,
  DoubleSide,
  GridHelper,
  Group,
  Mesh,
  MeshLambertMaterial,
  PlaneGeometry,
  SphereGeometry,
  Vector3,
} from 'three';
import { TextLabel } from './labels.js';
import { t } from '../core/i18n.js';
import { KINDS } from '../core/kinds.gen.js';
import { JointGlyph, bodyPoint } from './joints.js';
import { CableLine } from './cableline.js';

/** @typedef {import('../net/messages.gen.js').Hello['scenario']['elements'][number]} ElementSpec */
/** @typedef {import('../net/messages.gen.js').ElementFrame} ElementFrame */
/** @typedef {import('./body.js').BodyView} BodyView */
/**
 * What the free-body diagram (teach/fbd.js) is handed to draw the elements' forces: the
 * scenario's elements and what each does in the frame drawn.
 * @typedef {{specs: ElementSpec[], frames: ElementFrame[] | null}} ElementInput
 */
/** What a drawing reads of its element, whatever its kind. */
/** @typedef {{kind: string, body: string, point?: number[], to?: number[] | {body: string, point: number[]}, height?: number, rest_length?: number, segments?: number}} Drawn */

export const ELEMENT_COLOURS = { ball: '#343a40', coil: '#1c7ed6', line: '#e8590c', floor: '#b5a77f', floorLines: '#7d7152', tag: '#5f3dc4' };
const FLOOR_CELLS = 30; // lines across the floor, one per body extent
const TURNS = 10; // of a coil
const ALONG = TURNS * 12; // coil samples along its length
const AROUND = 6; // vertices round the wire
const ball = new SphereGeometry(1, 20, 14);
// a pivot's rod or string to the body's CG (a unit cylinder along y from 0 to 1): drawn through
// the mesh, so only a point held away from the body shows it (a ball on a string, an axle)
const rod = new CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0);
const Y = new Vector3(0, 1, 0);

/**
 * A helical tube from the origin along +y, rewritten in place for each length: its coil radius
 * and wire shrink as it stretches (a spring's wire keeps its volume), within limits.
 */
export class Coil extends Group {
  /** @param {string} color */
  constructor(color) {
    super();
    const n = (ALONG + 1) * AROUND;
    this.positions = new Float32Array(n * 3);
    this.normals = new Float32Array(n * 3);
    /** @type {number[]} */
    const index = [];
    for (let i = 0; i < ALONG; i++) {
      for (let j = 0; j < AROUND; j++) {
        const a = i * AROUND + j;
        const b = i * AROUND + ((j + 1) % AROUND);
        index.push(a, a + AROUND, b, b, a + AROUND, b + AROUND);
      }
    }
    this.geometry = new BufferGeometry();
    this.geometry.setAttribute('position', new BufferAttribute(this.positions, 3));
    this.geometry.setAttribute('normal', new BufferAttribute(this.normals, 3));
    this.geometry.setIndex(index);
    const material = new MeshLambertMaterial({ color, emissive: color, emissiveIntensity: 0.25 });
    this.mesh = new Mesh(this.geometry, material);
    this.mesh.frustumCulled = false; // its bounds change every frame
    this.ends = [new Mesh(ball, material), new Mesh(ball, material)];
    this.add(this.mesh, ...this.ends);
    this.length = 0;
    this.coilRadius = 0;
    this.scratch = { dir: new Vector3(), up: new Vector3(0, 1, 0) };
  }

  /**
   * Between `a` and `b` (NED, m): `relaxed` the length at which it has radius `radius` (m).
   * @param {Vector3} a @param {Vector3} b @param {number} relaxed @param {number} radius
   */
  set(a, b, relaxed, radius) {
    const dir = this.scratch.dir.subVectors(b, a);
    const L = dir.length();
    this.visible = true;
    this.position.copy(a);
    if (L > 1e-9) this.quaternion.setFromUnitVectors(this.scratch.up, dir.divideScalar(L));
    const stretch = Math.sqrt(Math.max(relaxed, 1e-6) / Math.max(L, 1e-6));
    const R = radius * Math.min(1.4, Math.max(0.6, stretch));
    const w = 0.16 * radius * Math.min(1.4, Math.max(0.5, stretch));
    for (const end of this.ends) end.scale.setScalar(1.8 * w);
    this.ends[1].position.set(0, L, 0);
    this.length = L;
    this.coilRadius = R;
    const P = this.positions;
    const N = this.normals;
    const dTheta = 2 * Math.PI * TURNS; // per unit of s
    for (let i = 0; i <= ALONG; i++) {
      const s = i / ALONG;
      const th = dTheta * s;
      const c = Math.cos(th);
      const sn = Math.sin(th);
      // centre line (R cos θ, s L, R sin θ); tangent T ∝ (−Rθ' sin θ, L, Rθ' cos θ); the
      // normal n = (−cos θ, 0, −sin θ) points at the axis, the binormal is T × n
      let tx = -R * dTheta * sn;
      let ty = L;
      let tz = R * dTheta * c;
      const tl = Math.hypot(tx, ty, tz) || 1;
      tx /= tl;
      ty /= tl;
      tz /= tl;
      const nx = -c;
      const nz = -sn;
      const bx = ty * nz;
      const by = tz * nx - tx * nz;
      const bz = -ty * nx;
      for (let j = 0; j < AROUND; j++) {
        const phi = (2 * Math.PI * j) / AROUND;
        const cp = Math.cos(phi);
        const sp = Math.sin(phi);
        const ox = cp * nx + sp * bx;
        const oy = sp * by;
        const oz = cp * nz + sp * bz;
        const k = 3 * (i * AROUND + j);
        P[k] = R * c + w * ox;
        P[k + 1] = s * L + w * oy;
        P[k + 2] = R * sn + w * oz;
        N[k] = ox;
        N[k + 1] = oy;
        N[k + 2] = oz;
      }
    }
    this.geometry.attributes.position.needsUpdate = true;
    this.geometry.attributes.normal.needsUpdate = true;
  }
}

/** One element's drawing: what set() and draw() share. */
class ElementGlyph {
  /** @param {ElementSpec} spec @param {Group} group */
  constructor(spec, group) {
    this.spec = spec;
    this.group = group;
    /** @type {Coil | null} */ this.coil = null;
    /** @type {CableLine | null} */ this.line = null;
    /** @type {Mesh | null} */ this.marker = null;
    /** @type {Mesh | null} a pivot's string from its held point to the CG */ this.string = null;
    /** @type {TextLabel | null} */ this.label = null;
    /** @type {Mesh | null} */ this.floor = null;
    /** @type {JointGlyph | null} */ this.joint = null;
    this.drawing = KINDS[spec.kind].drawing;
    /** the coil's length when relaxed, for its thickness (0: the first length seen) */
    this.relaxed = this.drawing === 'coil' ? /** @type {Drawn} */ (spec).rest_length ?? 0 : 0;
    const c = ELEMENT_COLOURS;
    if (this.drawing === 'ball') {
      this.marker = new Mesh(ball, new MeshLambertMaterial({ color: c.ball, emissive: c.ball, emissiveIntensity: 0.2 }));
      this.label = new TextLabel(c.ball, 0.1, 'right', 11);
      this.label.setText(t(`elements.kind.${spec.kind}`));
      this.string = new Mesh(rod, new MeshLambertMaterial({ color: c.ball }));
    } else if (this.drawing === 'coil') {
      this.coil = new Coil(c.coil);
    } else if (this.drawing === 'line') {
      this.line = new CableLine(c.line, /** @type {Drawn} */ (spec).segments ?? 1);
    } else if (this.drawing === 'floor') {
      const material = new MeshLambertMaterial({ color: c.floor, transparent: true, opacity: 0.8, side: DoubleSide });
      // behind the grid's lines where the two coincide (a ground at height 0)
      Object.assign(material, { polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 4 });
      this.floor = new Mesh(new PlaneGeometry(1, 1), material);
      // its own lines, one per FLOOR_CELLS of its side: the floor reads as a floor at any height
      const lines = new GridHelper(1, FLOOR_CELLS, c.floorLines, c.floorLines);
      lines.rotation.x = Math.PI / 2; // three's grid lies in x-z; the floor is NED's x-y
      lines.position.z = -1e-3; // just above it (NED z is down)
      this.floor.add(lines);
    } else if (this.drawing === 'tag') {
      this.label = new TextLabel(c.tag, 0.1, 'left', 11);
      this.label.setText(t(`elements.kind.${spec.kind}`));
    } else if (this.drawing === 'joint') {
      this.joint = new JointGlyph(/** @type {import('./joints.js').JointSpec} */ (spec), group);
    }
    for (const o of [this.coil, this.line, this.marker, this.string, this.label, this.floor]) if (o) group.add(o);
  }

  dispose() {
    for (const o of [this.coil, this.marker, this.string, this.label, this.floor]) {
      if (!o) continue;
      this.group.remove(o);
      if (o instanceof Mesh && o.geometry !== ball && o.geometry !== rod) o.geometry.dispose();
    }
    if (this.string) /** @type {MeshLambertMaterial} */ (this.string.material).dispose();
    this.coil?.geometry.dispose();
    if (this.line) this.group.remove(this.line);
    this.line?.dispose();
    this.label?.dispose();
    this.joint?.dispose();
  }
}

export class ElementViews {
  /**
   * @param {import('three').Object3D} root  the NED root
   * @param {{elementInput: ElementInput}} fbd  the free-body diagram: draws each element's force at its point
   */
  constructor(root, fbd) {
    this.group = new Group();
    root.add(this.group);
    this.fbd = fbd;
    /** @type {ElementGlyph[]} in the order of the scenario's elements */
    this.glyphs = [];
    /** @type {ElementSpec[]} */
    this.specs = [];
    this.key = '';
    this.scratch = { a: new Vector3(), b: new Vector3() };
  }

  /** The elements of a hello: glyphs rebuilt when the list changed. @param {ElementSpec[] | undefined} specs */
  setElements(specs) {
    const list = specs ?? [];
    const key = JSON.stringify(list);
    if (key === this.key) return;
    this.key = key;
    for (const g of this.glyphs) g.dispose();
    this.specs = list;
    this.glyphs = list.map((spec) => new ElementGlyph(spec, this.group));
    this.fbd.elementInput.specs = list;
    this.fbd.elementInput.frames = null;
  }

  /**
   * `point` (body axes from Pos) of the body `name` as drawn now, into `out` (NED); null
   * when the body has no view.
   * @param {Map<string, BodyView>} views @param {string} name @param {ArrayLike<number>} point @param {Vector3} out
   */
  static bodyPoint(views, name, point, out) {
    return bodyPoint(views, name, point, out);
  }

  /**
   * Every rendered frame, after the bodies are posed: place the glyphs and give the free-body
   * diagram the element frames of the state drawn (null: a past frame, which carries none).
   * @param {Map<string, BodyView>} views  the bodies, posed
   * @param {ElementFrame[] | null | undefined} frames  what each element does now
   * @param {BodyView | null} selected  the selected body's view (the floor spreads round it)
   */
  draw(views, frames, selected) {
    this.fbd.elementInput.frames = frames && frames.length === this.specs.length ? frames : null;
    const { a, b } = this.scratch;
    this.glyphs.forEach((g, k) => {
      const e = /** @type {Drawn} */ (g.spec);
      const view = views.get(e.body);
      const extent = view ? view.extent() : 1;
      if (g.drawing === 'ball' && g.marker && g.label && e.point) {
        const at = ElementViews.bodyPoint(views, e.body, e.point, a);
        g.marker.visible = g.label.visible = !!at;
        if (g.string) g.string.visible = !!(at && view);
        if (!at) return;
        g.marker.position.copy(at);
        g.marker.scale.setScalar(Math.max(0.015, 0.06 * extent));
        g.label.position.copy(at).add(b.set(0, 0, -0.12 * extent));
        g.label.setHeight(Math.max(0.04, 0.12 * extent));
        if (g.string && view) {
          b.copy(view.cg).sub(at);
          const length = b.length();
          g.string.visible = length > 1e-6;
          g.string.position.copy(at);
          g.string.quaternion.setFromUnitVectors(Y, b.divideScalar(length || 1));
          const r = Math.max(0.003, 0.04 * g.marker.scale.x);
          g.string.scale.set(r, length, r);
        }
      } else if (g.drawing === 'coil' && g.coil && e.point && e.to) {
        const from = ElementViews.bodyPoint(views, e.body, e.point, a);
        const to = Array.isArray(e.to) ? b.fromArray(e.to) : ElementViews.bodyPoint(views, e.to.body, e.to.point, b);
        g.coil.visible = !!(from && to);
        if (!from || !to) return;
        if (!(g.relaxed > 0)) g.relaxed = Math.max(from.distanceTo(to), 0.2 * extent);
        g.coil.set(from, to, g.relaxed, Math.max(0.04, 0.12 * extent, 0.1 * g.relaxed));
      } else if (g.drawing === 'line' && g.line && e.point && e.to) {
        const from = ElementViews.bodyPoint(views, e.body, e.point, a);
        const to = Array.isArray(e.to) ? b.fromArray(e.to) : ElementViews.bodyPoint(views, e.to.body, e.to.point, b);
        g.line.visible = !!(from && to);
        if (!from || !to) return;
        g.line.setNodes(this.fbd.elementInput.frames?.[k]?.nodes);
        g.line.place(from, to, Math.max(0.02, 0.04 * extent));
      } else if (g.drawing === 'floor' && g.floor) {
        const cell = Math.max(0.5, extent);
        const centre = selected ?? view;
        // round the body, moved by whole cells so its lines stay put in the world
        const snap = (/** @type {number} */ x) => Math.round(x / cell) * cell;
        g.floor.scale.set(FLOOR_CELLS * cell, FLOOR_CELLS * cell, 1);
        g.floor.position.set(centre ? snap(centre.cg.x) : 0, centre ? snap(centre.cg.y) : 0, e.height ?? 0);
      } else if (g.drawing === 'tag' && g.label) {
        g.label.visible = !!view;
        if (!view) return;
        g.label.position.copy(view.cg).add(a.set(0, 0, 0.55 * extent));
        g.label.setHeight(Math.max(0.04, 0.12 * extent));
      } else if (g.drawing === 'joint' && g.joint) {
        g.joint.place(views, this.fbd.elementInput.frames?.[k]?.other ?? null);
      }
    });
  }

  /** The elements' labels drawn now (a pivot's, a damper's tag): placed with the overlays' (teach.js). */
  labels() {
    /** @type {TextLabel[]} */
    const out = [];
    for (const g of this.glyphs) if (g.label?.visible && g.label.parent?.visible !== false) out.push(g.label);
    return out;
  }

  /** What is drawn, for the tests: [{kind, body, visible, at?, from?, to?, length?, radius?, height?, nodes?}]. */
  describe() {
    return this.glyphs.map((g) => {
      const e = g.spec;
      /** @type {Record<string, unknown>} */
      const out = { kind: e.kind, body: e.body };
      if (g.marker) Object.assign(out, { visible: g.marker.visible, at: g.marker.position.toArray() });
      if (g.string) Object.assign(out, { string: g.string.visible ? g.string.scale.y : 0 });
      if (g.coil) {
        const end = g.coil.localToWorld(new Vector3(0, g.coil.length, 0));
        const root = this.group.parent;
        Object.assign(out, { visible: g.coil.visible, from: g.coil.position.toArray(), to: (root ? root.worldToLocal(end) : end).toArray(), length: g.coil.length, radius: g.coil.coilRadius });
      }
      if (g.line) Object.assign(out, { visible: g.line.visible, nodes: g.line.nodes() });
      if (g.floor) Object.assign(out, { visible: g.floor.visible, height: g.floor.position.z, size: g.floor.scale.x });
      if (g.label && !g.marker) Object.assign(out, { visible: g.label.visible, label: g.label.text });
      if (g.joint) Object.assign(out, g.joint.describe());
      return out;
    });
  }
}
