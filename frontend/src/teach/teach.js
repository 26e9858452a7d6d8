// @ts-check
// The teaching overlays (the panel's Show folder), drawn for the selected body: free-body
// diagram, ω and L, Poinsot's construction, energy bars, ground and height, and the flip
// counter of presets that count flips. Texts are rewritten LABEL_HZ times a second; the
// arrows and traces every frame, from reused objects (nothing is allocated per frame).

import { weightScale } from '../core/rigid.js';
import { num, t } from '../core/i18n.js';
import { EnergyBars, FlipCounter } from './energy.js';
import { FreeBodyDiagram } from './fbd.js';
import { HeightGuide } from './height.js';
import { OmegaAndL, Poinsot } from './rotation.js';

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
    this.energy = new EnergyBars(els.energy);
    this.flips = new FlipCounter(els.flips);
    this.legend = els.legend;
    this.thick = 1; // line-width factor (the projector: thicker)
    this.lastLabels = -Infinity;
    this.shownScale = NaN;
    this.set({ forces: false, omegaL: false, poinsot: false, energy: false, ground: false });
  }

  /**
   * Show or hide overlays: {forces, omegaL, poinsot, energy, ground} (booleans).
   * @param {{forces?: boolean, omegaL?: boolean, poinsot?: boolean, energy?: boolean, ground?: boolean}} show
   */
  set(show) {
    this.fbd.setVisible(!!show.forces);
    this.omegaL.setVisible(!!show.omegaL);
    this.poinsot.setVisible(!!show.poinsot);
    this.energy.setVisible(!!show.energy);
    document.body.classList.toggle('energy-open', !!show.energy); // a phone makes room for it
    this.height.setVisible(!!show.ground);
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
    if (view && spec) this.poinsot.setSpec(view, spec);
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
    if (bodies) this.energy.system(bodies);
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
    if (labels && this.fbd.visible && this.fbd.scale !== this.shownScale) {
      this.shownScale = this.fbd.scale;
      this.legend.textContent = t('legend.fbd', { scale: num(this.fbd.scale) });
    }
  }
}
