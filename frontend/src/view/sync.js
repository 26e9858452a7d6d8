// @ts-check
// The body views kept in step with the server's hello: one BodyView per body of the scenario
// (and a translucent one per body of a ghost run), and the banners that say what could not be
// drawn as given (an unknown mesh or material, a quaternion that is not unit).

import { BACKGROUND } from './scene.js';
import { BodyView } from './body.js';
import { num, t } from '../core/i18n.js';

/** @typedef {import('../net/messages.gen.js').Hello} Hello */

export class BodyViews {
  /**
   * @param {object} deps
   * @param {import('./scene.js').Stage} deps.stage
   * @param {import('./meshes.js').MeshLibrary} deps.library
   * @param {import('./hud.js').Hud} deps.hud
   */
  constructor({ stage, library, hud }) {
    this.stage = stage;
    this.library = library;
    this.hud = hud;
    /** @type {Map<string, BodyView>} body Name -> its view */
    this.views = new Map();
    /** @type {Map<string, BodyView>} body Name -> the translucent view of the ghost run */
    this.ghosts = new Map();
    /** @type {import('../net/messages.gen.js').BodySpec[]} the specs of the last hello */
    this.specs = [];
  }

  /** @param {string | null | undefined} name  the view of this body, else the first, or null */
  get(name) {
    return (name != null ? this.views.get(name) : undefined) ?? this.views.values().next().value ?? null;
  }

  /** Views for the hello's bodies (new ones made, gone ones disposed), and its banners. @param {Hello} msg */
  fromHello(msg) {
    this.specs = msg.scenario.bodies;
    const names = this.specs.map((b) => b.Name);
    for (const [map, keep] of [[this.views, false], [this.ghosts, true]]) {
      for (const [name, view] of /** @type {Map<string, BodyView>} */ (map)) {
        if (!names.includes(name)) {
          view.dispose();
          /** @type {Map<string, BodyView>} */ (map).delete(name);
        } else if (keep) view.setSpec(this.specs[names.indexOf(name)]);
      }
    }
    for (const spec of this.specs) {
      let view = this.views.get(spec.Name);
      if (!view) this.views.set(spec.Name, (view = new BodyView(this.stage.ned, this.library, BACKGROUND)));
      view.setSpec(spec);
    }
    this.checkLooks();
    this.checkQuaternions(msg);
  }

  clearTrails() {
    for (const v of this.views.values()) v.trail.clear();
  }

  /**
   * The ghost run's bodies, translucent, where the server's ghost is (or none).
   * @param {import('../net/interp.js').Sample['ghost']} ghost
   * @param {{triad: boolean, velocity: boolean, trail: boolean}} show
   */
  drawGhosts(ghost, show) {
    if (!ghost) {
      for (const v of this.ghosts.values()) v.group.visible = false;
      return;
    }
    ghost.forEach((g, k) => {
      const spec = this.specs[k];
      if (!spec) return;
      let view = this.ghosts.get(spec.Name);
      if (!view) {
        view = new BodyView(this.stage.ned, this.library, BACKGROUND, { ghost: true });
        view.setSpec(spec);
        this.ghosts.set(spec.Name, view);
      }
      view.group.visible = true;
      view.update({ Pos: g.Pos, quat: g.quat, frame: { CGVel: [0, 0, 0] } }, show);
    });
  }

  /** Warn about meshes and materials the catalogue does not know (they are drawn with a fallback). */
  checkLooks() {
    const hud = this.hud;
    const problems = [];
    for (const [name, v] of this.views) {
      if (!v.status.meshKnown) problems.push(t('banner.mesh', { name, mesh: String(v.status.mesh) }));
      if (!v.status.materialKnown) problems.push(t('banner.material', { name, material: String(v.status.material) }));
    }
    hud.banner('looks', problems.join(' '), 'warn');
    Promise.all([...this.views.values()].map((v) => v.loading)).then(() => {
      const failed = [...this.views].filter(([, v]) => v.status.error).map(([n, v]) => `${n}: ${v.status.error}`);
      if (failed.length) hud.banner('load', t('banner.load', { failed: failed.join(' ') }), 'warn');
      else hud.banner('load', null);
    });
  }

  /**
   * An initial Quater that is not unit is kept as given: say so (the norm term pulls |q| back
   * to 1 within a few hundredths of a second, which the plots then show).
   * @param {Hello} msg
   */
  checkQuaternions(msg) {
    const off = msg.scenario.bodies
      .map((b) => /** @type {[string, number]} */ ([b.Name, Math.hypot(...(b.Quater ?? [1, 0, 0, 0]))]))
      .filter(([, n]) => Math.abs(n - 1) > 1e-9)
      .map(([name, n]) => `${name}: |Quater| = ${num(n, null, { minimumSignificantDigits: 4, maximumSignificantDigits: 4 })}`);
    const text = off.length ? t('banner.quater', { list: off.join(', ') }) : null;
    this.hud.banner('quater', text, 'info');
  }
}
