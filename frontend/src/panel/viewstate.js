// @ts-check
// The view of a scenario (issue 45): what its file's `view` asks for (follow, overlays, plots,
// a camera) applied when it loads, the camera framed on the bodies when it gives none, and the
// view as it is now, for a Share link to carry (?view=, read once by the page that opens it).

import { nedToThree, threeToNed } from '../core/frames.js';
import { VIEW } from '../net/protocol.gen.js';
import { OVERLAYS } from '../teach/teach.js';
import { CHANNELS } from './plots.js';
import { bodyBoxes, frameBest, frameBoxes } from '../view/framing.js';

/** @typedef {import('../net/messages.gen.js').ViewSpec} ViewSpec */

/** @param {number[]} v @returns {[number, number, number]} rounded to the millimetre */
const mm = (v) => [Math.round(v[0] * 1000) / 1000, Math.round(v[1] * 1000) / 1000, Math.round(v[2] * 1000) / 1000];

/**
 * A view from a Share link's `view` parameter (JSON), or null when it has none or it does not
 * read as one. @param {string | null} text @returns {ViewSpec | null}
 */
export function parseView(text) {
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export class ViewState {
  /**
   * @param {object} d
   * @param {import('../view/scene.js').Stage} d.stage
   * @param {import('../view/sync.js').BodyViews} d.bodies
   * @param {import('./panel.js').Panel} d.panel
   * @param {import('./plots.js').Plots} d.plots
   * @param {(on: boolean) => void} d.setFollow
   * @param {() => void} d.showChanged  the Show folder's values changed: draw what they say
   * @param {ViewSpec | null} [d.linked]  a Share link's view: it replaces the first scenario's
   */
  constructor(d) {
    this.d = d;
    /** @type {ViewSpec | null} the view of the scenario shown, as its file gives it */
    this.view = null;
    /** @type {ViewSpec | null} */
    this.linked = d.linked ?? null;
  }

  /**
   * A new scenario is shown: its view's follow, overlays and plots now (the camera once its
   * bodies are posed: `reset`). A Share link's view stands in for the first one.
   * @param {ViewSpec | null | undefined} view
   */
  load(view) {
    this.view = this.linked ?? view ?? null;
    this.linked = null;
    const v = this.view;
    if (!v) return;
    if (v.follow != null) this.d.setFollow(v.follow);
    if (v.overlays) {
      /** @type {Set<string>} */
      const on = new Set(v.overlays);
      for (const [key] of OVERLAYS) {
        this.d.panel.p[key] = on.has(key);
        this.d.panel.c[key]?.updateDisplay();
      }
      this.d.showChanged();
    }
    if (v.plots) {
      /** @type {Set<string>} */
      const on = new Set(v.plots);
      for (const key of Object.keys(CHANNELS)) if (on.has(key) !== this.d.plots.chosen.has(key)) this.d.plots.choose(key, on.has(key));
    }
  }

  /** The view's camera if it gives one, else the bodies framed from the default direction. */
  reset() {
    const cam = this.view?.camera;
    if (cam) return this.look(nedToThree(cam.position), nedToThree(cam.target));
    // the default direction, or the same from the east or west when it shows the bodies far
    // taller (a phone held upright and the double pendulum's level arms)
    const [n, e, d] = VIEW.VIEW_FROM;
    const dirs = [[n, e, d], [-e, n, d], [e, -n, d]].map((v) => nedToThree(v));
    const { stage } = this.d;
    const target = frameBest(stage.camera, bodyBoxes(this.d.bodies.views.values()), dirs, stage.freeNdc(), stage.avoidNdc());
    if (target) this.look(stage.camera.position.clone(), target);
  }

  /** Frame the bodies from where the camera looks from now (the Frame key, the projector). */
  frame() {
    const { stage } = this.d;
    const dir = stage.camera.position.clone().sub(stage.controls.target);
    if (dir.lengthSq() < 1e-12) dir.copy(nedToThree(VIEW.VIEW_FROM));
    const target = frameBoxes(stage.camera, bodyBoxes(this.d.bodies.views.values()), dir, stage.freeNdc(), stage.avoidNdc());
    if (target) this.look(stage.camera.position.clone(), target);
  }

  /** @param {import('three').Vector3} position @param {import('three').Vector3} target  three world */
  look(position, target) {
    const { stage } = this.d;
    stage.camera.position.copy(position);
    stage.controls.target.copy(target);
    stage.lastCg = null;
    stage.controls.update();
  }

  /** The view as it is now: what a Share link carries. @returns {ViewSpec} */
  current() {
    const { stage, panel, plots } = this.d;
    return {
      camera: { position: mm(threeToNed(stage.camera.position)), target: mm(threeToNed(stage.controls.target)) },
      follow: stage.follow,
      overlays: /** @type {ViewSpec['overlays']} */ (OVERLAYS.map(([key]) => key).filter((key) => panel.p[key])),
      plots: /** @type {ViewSpec['plots']} */ (Object.keys(CHANNELS).filter((key) => plots.chosen.has(key))),
    };
  }
}
