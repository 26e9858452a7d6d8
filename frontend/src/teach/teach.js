// @ts-check
// The teaching overlays (the panel's Show folder), drawn for the selected body: free-body
// diagram, ω and L, Poinsot's construction, energy bars, ground and height, the principal
// axes and inertia ellipsoid (principal.js), and the flip
// counter of presets that count flips. Texts are rewritten LABEL_HZ times a second; the
// arrows and traces every frame, from reused objects (nothing is allocated per frame).

import { weightScale } from '../core/rigid.js';
import { num, t } from '../core/i18n.js';
import { EnergyBars, FlipCounter } from './energy.js';
import { FreeBodyDiagram } from './fbd.js';
import { HeightGuide } from './height.js';
import { OmegaAndL, Poinsot } from './rotation.js';
import { PrincipalAxes } from './principal.js';
import { Declutter } from '../view/declutter.js';

const LABEL_HZ = 5;

/** The overlays, by the key the panel and the keys use, with their labels in the Show folder. */
export const OVERLAYS = [
  ['forces', 'Forces', 'Digit1'],
  ['omegaL', 'ω and L', 'Digit2'],
  ['poinsot', 'Poinsot', 'Digit3'],
  ['energy', 'Energy', 'Digit4'],
  ['ground', 'Ground and height', 'Digit5'],
  ['triad', 'Body axes', 'Digit6'],
  ['worldAxes', 'World axes', 'Digit7'],
  ['inertia', 'Inertia ellipsoid', 'Digit8'],
];

export class Teaching {
  /**
   * @param {import('three').Object3D} root  the NED root
   * @param {{energy: HTMLElement, flips: HTMLElement, legend: HTMLElement}} els
   */
  constructor(root, els) {
    this.fbd = new FreeBodyDiagram(root);
    this.omegaL = new OmegaAndL(root);
    this.poinsot = new Poinsot(root);
    this.height = new HeightGuide(root);
    this.principal = new PrincipalAxes();
    this.declutter = new Declutter(root);
    this.posed = false; // the overlays were posed this frame: their labels are at their tips
    /** @type {() => import('../view/labels.js').TextLabel[]} other labels placed with these (the elements', main.js) */
    this.moreLabels = () => [];
    this.energy = new EnergyBars(els.energy);
    this.flips = new FlipCounter(els.flips);
    this.legend = els.legend;
    this.thick = 1; // line-width factor (the projector: thicker)
    this.lastLabels = -Infinity;
    this.shownScale = NaN;
    this.set({ forces: false, omegaL: false, poinsot: false, energy: false, ground: false, inertia: false });
  }

  /**
   * Show or hide overlays: {forces, omegaL, poinsot, energy, ground, inertia} (booleans).
   * @param {{forces?: boolean, omegaL?: boolean, poinsot?: boolean, energy?: boolean, ground?: boolean, inertia?: boolean}} show
   */
  set(show) {
    this.fbd.setVisible(!!show.forces);
    this.omegaL.setVisible(!!show.omegaL);
    this.poinsot.setVisible(!!show.poinsot);
    this.energy.setVisible(!!show.energy);
    document.body.classList.toggle('energy-open', !!show.energy); // a phone makes room for it
    this.height.setVisible(!!show.ground);
    this.principal.setVisible(!!show.inertia);
    this.legend.hidden = !show.forces;
    this.lastLabels = -Infinity; // write the texts of what just appeared at once
  }

  /**
   * A new scenario or a changed parameter: new scales, traces, energy reference.
   * @param {import('../view/body.js').BodyView | null | undefined} view  the selected body's
   * @param {import('../net/messages.gen.js').BodySpec | null | undefined} spec  its spec
   * @param {import('../net/messages.gen.js').PresetInfo | undefined} preset  the scenario's, unless changed since
   */
  restart(view, spec, preset) {
    this.omegaL.rescale();
    if (view && spec) {
      this.poinsot.setSpec(view, spec);
      this.principal.setSpec(view, spec);
    }
    this.poinsot.clear();
    this.energy.restart();
    const axis = preset?.flip_axis ?? null;
    this.flips.start(axis, axis === null ? 0 : (spec?.AngVel?.[axis] ?? 0));
  }

  /** The state went back (a reset) or jumped: start the traces, drift and count again. */
  discontinuity() {
    this.poinsot.clear();
    this.energy.restart();
    this.flips.restart();
  }

  /**
   * Every received frame of the selected body (the counter must see each one), and all
   * bodies' (the energy's drift is the whole system's when several bodies trade energy).
   * @param {import('../net/messages.gen.js').BodyFrame | null | undefined} body
   * @param {import('../net/messages.gen.js').BodyFrame[]} [bodies]
   */
  frame(body, bodies) {
    this.flips.update(body);
    if (!bodies) return;
    this.energy.system(bodies);
    const specs = this.fbd.elementInput.specs; // the scenario's elements (elements.js sets them)
    let joints = false;
    for (let k = 0; k < specs.length && !joints; k++) joints = specs[k].kind === 'joint';
    this.energy.jointGaps(bodies, joints);
  }

  /**
   * Every rendered frame: `view` the selected BodyView, `body` its interpolated sample.
   * (A distinct name: benchmarks/bench_overlays.py finds the overlays' allocations by it.)
   * @param {import('../view/body.js').BodyView | null | undefined} view
   * @param {import('../net/interp.js').BodySample | undefined} body
   * @param {number} nowMs
   */
  drawOverlays(view, body, nowMs) {
    if (!view || !body?.frame?.CGPos) return;
    const labels = nowMs - this.lastLabels >= 1000 / LABEL_HZ;
    if (labels) this.lastLabels = nowMs;
    const spec = view.spec;
    this.fbd.update(view, body, spec, weightScale(spec), this.thick, labels);
    this.omegaL.update(view, body, this.thick, labels);
    this.poinsot.update(view, body, this.thick);
    this.height.update(view, labels);
    this.energy.update(body.frame, labels);
    this.posed = true;
    if (labels && this.fbd.visible && this.fbd.scale !== this.shownScale) {
      this.shownScale = this.fbd.scale;
      this.legend.textContent = t('legend.fbd', { scale: num(this.fbd.scale) });
    }
  }

  /** The labels drawn now, in the order they are placed (the net force and the weight first). */
  labels() {
    const f = this.fbd;
    const o = this.omegaL;
    /** @type {import('../view/labels.js').TextLabel[]} */
    const out = [];
    if (f.visible) {
      out.push(f.weight.label, f.net.label, ...f.loads.map((g) => g.label), ...f.elementGlyphs.map((g) => g.label));
      out.push(f.momentLabel, ...f.elementArcs.map((a) => a.label));
    }
    if (o.visible) out.push(o.omegaLabel, o.LLabel);
    out.push(...this.moreLabels());
    return out.filter((l) => l.visible);
  }

  /**
   * After drawOverlays, with the camera as it will draw: size the labels for the screen and move
   * those that would overlap each other or cover a body (view/declutter.js).
   * @param {import('three').PerspectiveCamera} camera
   * @param {Iterable<import('three').Object3D>} meshes  the bodies'
   * @param {number} width @param {number} height  the view's, CSS px
   * @param {{left: number, top: number, right: number, bottom: number}} [insets]  what the page's cards cover of it
   */
  placeLabels(camera, meshes, width, height, insets) {
    if (!this.posed) return;
    this.posed = false;
    this.declutter.place(this.labels(), meshes, camera, width, height, this.thick > 1, insets);
  }
}
