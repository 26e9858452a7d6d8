// @ts-check
// The free-body diagram (Show → Forces): the weight m·g at the CG, every applied force at its
// point of application (the frame's Loads: the constant input, the push, the drag spring at
// the grabbed point), the net force at the CG, and the net moment about the CG as a curved
// arrow about its axis. Lengths are linear in the force with one scale for the whole diagram
// (the legend's N per m), at least MIN_LENGTH of the body so small forces stay visible and
// at most MAX_LENGTH so a hard pull stays on screen; each arrow carries its magnitude.

import { ConeGeometry, Group, Mesh, MeshLambertMaterial, Quaternion, TorusGeometry, Vector3 } from 'three';
import { Arrow } from '../view/glyphs.js';
import { TextLabel, magnitude, niceStep } from '../view/labels.js';
import { VIEW } from '../net/protocol.gen.js';
import { t } from '../core/i18n.js';
import { KINDS } from '../core/kinds.gen.js';

/** @typedef {import('../view/body.js').BodyView} BodyView */
/** @typedef {import('../net/interp.js').BodySample} BodySample */

const TEACH_COLOURS = VIEW.GLYPH_COLOURS;

const MIN_LENGTH = 0.12; // × body extent
const MAX_LENGTH = 5; // × body extent
const Z = new Vector3(0, 0, 1);
const NET = t('label.net');
/** @type {Record<import('../net/messages.gen.js').AppliedLoad['source'], string | undefined>} */
const SOURCE_NAMES = { constant: 'F', push: t('label.push'), spring: t('label.pull') };
/** An element's force is labelled with its kind (elements.js draws the elements). */
const KIND_NAMES = Object.fromEntries(Object.keys(KINDS).map((k) => [k, t(`elements.kind.${k}`)]));

const arcGeometry = new TorusGeometry(1, 0.05, 8, 48, 1.5 * Math.PI);
const arcHead = new ConeGeometry(0.14, 0.32, 16).translate(0, 0.16, 0);

/**
 * A curved arrow about an axis: three quarters of a circle, counter-clockwise seen from the
 * tip of the axis (the right-hand rule), with a head at its end.
 */
export class MomentArc extends Group {
  /** @param {import('three').ColorRepresentation} color */
  constructor(color) {
    super();
    const material = new MeshLambertMaterial({ color, emissive: color, emissiveIntensity: 0.35 });
    this.add(new Mesh(arcGeometry, material));
    const head = new Mesh(arcHead, material);
    head.position.set(0, -1, 0); // the arc ends at angle 3π/2, moving along +x
    head.rotation.z = -Math.PI / 2; // the cone's +y onto +x
    this.add(head);
    this.visible = false;
    this.renderOrder = 2;
  }

  /**
   * About the unit `axis` (NED) at `origin`, with radius `radius` (m).
   * @param {Vector3} origin
   * @param {Vector3} axis
   * @param {number} radius
   */
  set(origin, axis, radius) {
    this.visible = true;
    this.position.copy(origin);
    this.quaternion.setFromUnitVectors(Z, axis);
    this.scale.setScalar(radius);
  }
}

/** One labelled force arrow. */
class ForceGlyph {
  /**
   * @param {import('three').Object3D} parent
   * @param {string} color  CSS colour
   * @param {'left' | 'right'} side  of the label
   * @param {number} [chars]  the longest label (an element's kind in German is long)
   */
  constructor(parent, color, side = 'right', chars = 14) {
    this.arrow = new Arrow(color);
    this.label = new TextLabel(color, 0.2, side, chars);
    parent.add(this.arrow, this.label);
    this.length = 0;
  }

  hide() {
    this.arrow.visible = false;
    this.label.visible = false;
    this.length = 0;
  }
}

export class FreeBodyDiagram {
  /** @param {import('three').Object3D} root  the NED root */
  constructor(root) {
    this.group = new Group();
    root.add(this.group);
    this.weight = new ForceGlyph(this.group, TEACH_COLOURS.weight);
    // the net force is drawn thinner, over the others, its label on the other side: with the
    // weight alone the two coincide and both must stay readable
    this.net = new ForceGlyph(this.group, TEACH_COLOURS.net, 'left');
    this.loads = [0, 1, 2].map(() => new ForceGlyph(this.group, TEACH_COLOURS.force));
    this.moment = new MomentArc(TEACH_COLOURS.moment);
    this.momentLabel = new TextLabel(TEACH_COLOURS.moment);
    this.group.add(this.moment, this.momentLabel);
    /** @type {import('../view/elements.js').ElementInput} the scenario's elements and what each does in the frame drawn (elements.js sets them) */
    this.elementInput = { specs: [], frames: null };
    /** @type {ForceGlyph[]} one per element force drawn, made when first needed */
    this.elementGlyphs = [];
    /** @type {{arc: MomentArc, label: TextLabel}[]} one per joint reaction moment drawn (a hinge's, a weld's), made when first needed */
    this.elementArcs = [];
    /** @type {Vector3 | null} where the buoyancy of the selected body was drawn last (tests read it) */
    this.buoyancyAt = null;
    this.buoyancyPoint = new Vector3();
    this.scale = 1; // N per m of arrow
    this.visible = false;
    // reused every frame
    this.scratch = {
      v: new Vector3(), dir: new Vector3(), origin: new Vector3(), tip: new Vector3(), net: new Vector3(),
      qFrame: new Quaternion(), qRel: new Quaternion(),
    }; // prettier-ignore
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.visible = on;
    this.group.visible = on;
  }

  /**
   * Draw for one body: `view` (BodyView: its drawn CG and extent), `body` the interpolated
   * sample {quat, frame}, `spec` its BodySpec, `weight` its m·g (N, the scale's reference),
   * `thick` a line-width factor (the projector), `labels` whether to rewrite the texts now.
   * @param {BodyView} view
   * @param {BodySample} body
   * @param {import('../net/messages.gen.js').BodySpec | null} spec
   * @param {number} weightN
   * @param {number} thick
   * @param {boolean} labels
   */
  update(view, body, spec, weightN, thick, labels) {
    if (!this.visible) return;
    const s = this.scratch;
    const extent = view.extent();
    this.scale = niceStep(weightN / (1.2 * extent));
    const frame = body.frame;
    const g = spec?.Gravity ?? 0;
    const m = spec?.Mass ?? 1;
    const radius = Math.max(0.008, 0.028 * extent) * thick;
    const textHeight = Math.max(0.05, 0.16 * extent) * (0.7 + 0.3 * thick);
    // where each load acts relative to the CG at the frame's state, turned onto the drawn pose
    s.qFrame.set(frame.Quater[1], frame.Quater[2], frame.Quater[3], frame.Quater[0]).normalize();
    s.qRel.copy(body.quat).multiply(s.qFrame.invert());
    s.net.set(0, 0, m * g);
    this.place(this.weight, view.cg, s.v.set(0, 0, m * g), 'W', 'N', extent, radius, textHeight, labels);
    const loads = frame.Loads ?? [];
    for (let k = 0; k < this.loads.length; k++) {
      const glyph = this.loads[k];
      const load = loads[k];
      if (!load) {
        glyph.hide();
        continue;
      }
      s.origin.fromArray(load.At).sub(s.tip.fromArray(frame.CGPos)).applyQuaternion(s.qRel).add(view.cg);
      s.v.fromArray(load.Force);
      s.net.add(s.v);
      this.place(glyph, s.origin, s.v, SOURCE_NAMES[load.source] ?? 'F', 'N', extent, radius, textHeight, labels);
    }
    this.drawElements(spec?.Name, frame, view, extent, radius, textHeight, labels);
    this.place(this.net, view.cg, s.net, NET, 'N', extent, radius * 0.55, textHeight, labels);
    const M = s.v.fromArray(frame.Moment);
    const size = M.length();
    if (size > 1e-9) {
      this.moment.set(view.cg, s.dir.copy(M).divideScalar(size), 0.55 * extent);
      this.momentLabel.visible = true;
      this.momentLabel.setHeight(textHeight);
      this.momentLabel.position.copy(view.cg).addScaledVector(s.tip.set(0, 0, -1), 0.7 * extent);
      if (labels) this.momentLabel.setText(`M ${magnitude(size)} N·m`);
    } else {
      this.moment.visible = false;
      this.momentLabel.visible = false;
    }
  }

  /**
   * Each element's force on the body `name` at its point (a spring between two bodies: minus
   * its force at its other end on the other body), labelled with its kind, added to the net.
   * @param {string | undefined} name @param {import('../net/messages.gen.js').BodyFrame} frame @param {BodyView} view  drawn
   * @param {number} extent @param {number} radius @param {number} textHeight @param {boolean} labels
   */
  drawElements(name, frame, view, extent, radius, textHeight, labels) {
    const s = this.scratch;
    const cg = view.cg;
    this.buoyancyAt = null;
    const { specs, frames } = this.elementInput;
    let n = 0;
    let arcs = 0;
    for (let k = 0; frames && k < specs.length; k++) {
      const e = specs[k];
      // an element between two bodies (its `to` a point on another body) acts on that one too
      const other = 'to' in e && e.to != null && !Array.isArray(e.to) && e.to.body === name;
      if (e.body !== name && !other) continue;
      const f = frames[k];
      // where it acts relative to the CG at the frame's state, turned onto the drawn pose
      s.origin.fromArray(other ? f.other : f.point).sub(s.tip.fromArray(frame.CGPos)).applyQuaternion(s.qRel).add(cg);
      s.v.fromArray(f.force).multiplyScalar(other ? -1 : 1);
      s.net.add(s.v);
      const glyph = (this.elementGlyphs[n] ??= new ForceGlyph(this.group, TEACH_COLOURS.force, 'right', 20));
      // the server gives the buoyancy at the centre of buoyancy (hydro.place_buoyancy): shown
      // through the hull, where it always is
      const buoyancy = e.kind === 'buoyancy';
      if (buoyancy) this.buoyancyAt = this.buoyancyPoint.copy(s.origin);
      // drawn after the water and over the hull (x-ray) when it is the buoyancy
      const material = /** @type {Mesh} */ (glyph.arrow.shaft).material;
      if (material instanceof MeshLambertMaterial && material.depthTest === buoyancy) {
        Object.assign(material, { depthTest: !buoyancy, transparent: buoyancy, needsUpdate: true });
      }
      this.place(glyph, s.origin, s.v, KIND_NAMES[e.kind], 'N', extent, radius, textHeight, labels);
      n++;
      // a joint's reaction moment about its point (a hinge's across its axis, a weld's): an
      // arc there, the other body feeling the opposite one
      const moment = /** @type {{moment?: number[] | null}} */ (f).moment;
      const size = moment ? Math.hypot(moment[0], moment[1], moment[2]) : 0;
      if (!moment || !(size > 1e-9)) continue;
      const m = (this.elementArcs[arcs] ??= { arc: new MomentArc(TEACH_COLOURS.moment), label: new TextLabel(TEACH_COLOURS.moment) });
      if (!m.arc.parent) this.group.add(m.arc, m.label);
      s.dir.fromArray(moment).multiplyScalar((other ? -1 : 1) / size);
      m.arc.set(s.origin, s.dir, 0.25 * extent);
      m.label.visible = true;
      m.label.setHeight(textHeight);
      m.label.position.copy(s.origin).addScaledVector(s.dir, 0.35 * extent);
      if (labels) m.label.setText(`${KIND_NAMES[e.kind]} M ${magnitude(size)} N·m`);
      arcs++;
    }
    for (; n < this.elementGlyphs.length; n++) this.elementGlyphs[n].hide();
    for (; arcs < this.elementArcs.length; arcs++) this.elementArcs[arcs].arc.visible = this.elementArcs[arcs].label.visible = false;
  }

  /**
   * Draw `glyph` for the force `vec` at `origin`, labelled `name`, its magnitude and `unit`.
   * @param {ForceGlyph} glyph
   * @param {Vector3} origin
   * @param {Vector3} vec
   * @param {string} name
   * @param {string} unit
   * @param {number} extent  the body's, m
   * @param {number} radius  the arrow's, m
   * @param {number} textHeight  m
   * @param {boolean} labels  rewrite the text now
   */
  place(glyph, origin, vec, name, unit, extent, radius, textHeight, labels) {
    const size = vec.length();
    if (!(size > 1e-9)) return glyph.hide();
    const length = Math.min(MAX_LENGTH * extent, Math.max(MIN_LENGTH * extent, size / this.scale));
    glyph.arrow.radius = radius;
    glyph.arrow.set(origin, this.scratch.dir.copy(vec).divideScalar(size), length);
    glyph.length = length;
    glyph.label.visible = true;
    glyph.label.setHeight(textHeight);
    glyph.label.position.copy(origin).addScaledVector(this.scratch.dir, length + 0.05 * extent);
    if (labels) glyph.label.setText(`${name} ${magnitude(size)} ${unit}`);
  }
}
