// @ts-check
// Access without a pointer or without sight (issue 29): the language picker, high contrast,
// reduced motion, the live description of the motion (describe.js) and the summary on demand
// (X), the sound of ω (M), the keyboard grab (G: the next marked point of the body, held by
// a spring whose target the push keys move; Esc lets go) and Esc closing the dialogs.
// main.js makes one Access and calls frame() for every state frame and hello() for every hello.

import { Vector3 } from 'three';
import { mustGet } from '../core/dom.js';
import { Describer } from './describe.js';
import { LANGUAGES, lang, languageUrl, num, presetText, t } from '../core/i18n.js';
import { TextLabel } from '../view/labels.js';
import { nedToThree } from '../core/frames.js';
import { Sonifier } from './sound.js';

/** The grab points: a body axis and a sign, at half the body's size from its CG. */
const POINTS = /** @type {const} */ ([['front', 0, 1], ['right', 1, 1], ['bottom', 2, 1], ['back', 0, -1], ['left', 1, -1], ['top', 2, -1]]);
/** push key → the NED direction a grabbed point's target moves */
/** @type {Record<string, [number, number, number]>} */
const NUDGE = {
  ArrowUp: [1, 0, 0], KeyW: [1, 0, 0], ArrowDown: [-1, 0, 0], KeyS: [-1, 0, 0],
  ArrowLeft: [0, -1, 0], KeyA: [0, -1, 0], ArrowRight: [0, 1, 0], KeyD: [0, 1, 0],
  KeyR: [0, 0, -1], KeyF: [0, 0, 1],
}; // prettier-ignore
const DIALOGS = ['help', 'summary', 'share', 'clip'];

/** A key for a text field or a control that uses it itself. @param {KeyboardEvent} ev */
function typing(ev) {
  const el = ev.target;
  return el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/**
 * @typedef {object} AccessDeps
 * @property {import('../panel/panel.js').Panel} panel
 * @property {import('../input/input.js').DragPush} drag
 * @property {import('../view/scene.js').Stage} stage
 * @property {import('../net/session.js').Session} session
 * @property {() => import('../view/body.js').BodyView | null} selectedView
 * @property {() => import('../net/messages.gen.js').BodyFrame | null} selectedFrame
 * @property {import('../input/pushes.js').Pushes} pushes  the hands pushing now (its `by`)
 */

export class Access {
  /** @param {AccessDeps} d */
  constructor(d) {
    this.d = d;
    this.describer = new Describer(mustGet('describe', HTMLElement));
    this.sound = new Sonifier();
    this.summaryEl = mustGet('summary', HTMLElement);
    this.grabIndex = -1;
    this.label = new TextLabel('#0b57d0', 0.15, 'right', 22);
    this.label.visible = false;
    /** @type {boolean | undefined} */ this.running = undefined;
    /** @type {Element | null} where the focus was before a dialog took it */ this.returnFocus = null;
    const c = d.panel.c;
    const contrast = new URLSearchParams(window.location.search).get('contrast') === 'high' || window.matchMedia('(prefers-contrast: more)').matches;
    this.setContrast(contrast);
    c.contrast.onChange((/** @type {boolean} */ on) => this.setContrast(on));
    c.sound.onChange((/** @type {boolean} */ on) => this.sound.set(on));
    c.speak.onChange((/** @type {boolean} */ on) => (this.describer.enabled = on));
    c.summary.onChange(() => this.summary());
    c.grab.onChange(() => this.grabNext());
    c.release.onChange(() => this.release());
    mustGet('btn-describe', HTMLElement).addEventListener('click', () => this.summary());
    const reduce = window.matchMedia('(prefers-reduced-motion: reduce)');
    const motion = () => {
      document.body.classList.toggle('reduced-motion', reduce.matches);
      d.stage.controls.enableDamping = !reduce.matches; // no camera easing
    };
    reduce.addEventListener('change', motion);
    motion();
    this.picker();
    mustGet('skip', HTMLAnchorElement).addEventListener('click', (ev) => {
      ev.preventDefault();
      mustGet('scene', HTMLCanvasElement).focus();
    });
    const help = mustGet('help', HTMLElement);
    help.querySelector('[data-act=close]')?.addEventListener('click', () => this.close('help'));
    new MutationObserver(() => this.helpShown()).observe(help, { attributes: true, attributeFilter: ['hidden'] }); // H or Keys
    window.addEventListener('keydown', (ev) => this.nudge(ev), { capture: true });
    window.addEventListener('keydown', (ev) => this.key(ev));
  }

  picker() {
    const select = mustGet('lang-picker', HTMLSelectElement);
    for (const l of LANGUAGES) select.append(new Option(l.name, l.code, l.code === lang, l.code === lang));
    const panelPicker = this.d.panel.c.lang.domElement;
    panelPicker.setAttribute('translate', 'no');
    for (const o of [...select.options, ...panelPicker.querySelectorAll('option')]) o.lang = o.value; // each name read in its own language
    const go = (/** @type {string} */ code) => window.location.assign(languageUrl(/** @type {'en' | 'de' | 'nb'} */ (code)));
    select.addEventListener('change', () => go(select.value));
    this.d.panel.c.lang.onChange(go); // the same choice in Access (on a phone the toolbar has no room for it)
  }

  /** @param {boolean} on */
  setContrast(on) {
    document.body.classList.toggle('high-contrast', on);
    const p = this.d.panel.p;
    p.contrast = on;
    this.d.panel.c.contrast.updateDisplay();
  }

  /** The keys of this module: X, M, G, Esc (H and the rest are input.js's). @param {KeyboardEvent} ev */
  key(ev) {
    if (ev.key === 'Escape') {
      if (this.d.drag.active?.keys) this.release();
      for (const id of DIALOGS) if (!mustGet(id, HTMLElement).hidden) this.close(id);
      return;
    }
    if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    const act = { KeyX: () => this.summary(), KeyM: () => this.toggleSound(), KeyG: () => this.grabNext() }[ev.code];
    if (!act) return;
    ev.preventDefault();
    act();
  }

  /** Close dialog `id` and give the focus back. @param {string} id */
  close(id) {
    mustGet(id, HTMLElement).hidden = true;
    if (this.returnFocus instanceof HTMLElement && document.contains(this.returnFocus)) this.returnFocus.focus();
    this.returnFocus = null;
  }

  /** The help was opened (H): the focus goes to it, so a screen reader reads it. */
  helpShown() {
    const help = mustGet('help', HTMLElement);
    if (help.hidden) return;
    this.returnFocus = document.activeElement;
    help.focus();
  }

  toggleSound() {
    const p = this.d.panel.p;
    p.sound = !p.sound;
    this.d.panel.c.sound.updateDisplay();
    this.sound.set(p.sound);
  }

  /** Grab the next marked point of the selected body (G). */
  grabNext() {
    const view = this.d.selectedView();
    const spec = view?.spec;
    if (!view || !spec || this.d.panel.conn.readOnly) return this.describer.say(t('describe.grab.none'));
    this.grabIndex = (this.grabIndex + 1) % POINTS.length;
    const [name, axis, sign] = POINTS[this.grabIndex];
    const local = new Vector3().fromArray(spec.CGOffset ?? [0, 0, 0]);
    const half = 0.5 * Math.abs((spec.Size?.[axis] ?? 1) * (spec.MeshScale?.[axis] ?? 1));
    local.setComponent(axis, local.getComponent(axis) + sign * half);
    this.d.drag.stop();
    this.d.drag.begin(view, view.group.localToWorld(local.clone()), false);
    const words = t(`grab.point.${name}`);
    this.label.setText(`● ${words}`);
    this.label.setHeight(0.12 * view.extent());
    this.label.position.copy(local);
    view.group.add(this.label);
    this.label.visible = true;
    this.describer.speak(t('describe.grab', { point: words }));
  }

  release() {
    if (!this.d.drag.active) return;
    this.d.drag.stop();
    this.label.visible = false;
    this.label.removeFromParent();
    this.grabIndex = -1;
    this.describer.speak(t('describe.grab.release'));
  }

  /** While a point is held, the push keys move its target (a tenth of the body per press). @param {KeyboardEvent} ev */
  nudge(ev) {
    const dir = NUDGE[ev.code];
    const a = this.d.drag.active;
    if (!dir || !a?.keys || typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault();
    ev.stopImmediatePropagation(); // not a push as well
    const step = 0.1 * Math.max(0.2, a.view.extent());
    this.d.drag.nudge(nedToThree([dir[0] * step, dir[1] * step, dir[2] * step]));
  }

  /** A hello: the description starts again for this scenario and body. @param {import('../net/messages.gen.js').Hello} hello */
  hello(hello) {
    const spec = this.d.selectedView()?.spec ?? null;
    const kinds = new Set((hello.scenario.elements ?? []).map((e) => e.kind));
    this.describer.restart(spec ? [...spec.InertiaRadi] : null, kinds.has('ground'), kinds.has('buoyancy'));
    this.describer.water(hello.scenario.water?.waves);
  }

  /**
   * Every state frame of the selected body.
   * @param {number} time @param {import('../net/messages.gen.js').Status} status @param {import('../net/messages.gen.js').BodyFrame | null} body
   */
  frame(time, status, body) {
    if (this.running !== undefined && status.running !== this.running) this.describer.running(status.running);
    this.running = status.running;
    if (!body) return;
    this.sound.update(Math.hypot(body.AngVel[0], body.AngVel[1], body.AngVel[2]));
    if (status.running) this.describer.frame(time, body);
  }

  /** The scenario, the forces acting and the state in words, in a dialog that takes the focus (X). */
  summary() {
    const { session, selectedView, selectedFrame, pushes } = this.d;
    const hello = session.hello;
    const spec = selectedView()?.spec;
    const b = selectedFrame();
    /** @type {string[]} */
    const lines = [];
    if (!hello || !spec || !b) lines.push(t('describe.summary.none'));
    else {
      const preset = hello.presets.find((x) => x.name === hello.scenario.name);
      lines.push(t('describe.summary.scenario', { title: preset ? presetText(preset, 'title') : hello.scenario.name }));
      const v = (/** @type {ArrayLike<number>} */ x, /** @type {number} */ d) => Array.from(x, (c) => num(c, d)).join(num(0.5).includes(',') ? '; ' : ', ');
      lines.push(t('describe.summary.body', { name: spec.Name, mass: num(spec.Mass), radi: v(spec.InertiaRadi, 2) }));
      const mag = (/** @type {ArrayLike<number>} */ x) => Math.hypot(x[0], x[1], x[2]);
      // the forces the server applied in this frame: the constant input, the push, the drag's spring
      const hand = Object.entries(pushes.by).find(([, x]) => x)?.[0];
      const names = { constant: t('hud.constant'), push: hand ? t(`hud.source.${hand === 'panel' ? 'held' : hand}`) : t('label.push'), spring: t('label.pull') };
      const inputs = (b.Loads ?? [])
        .filter((load) => mag(load.Force) > 0)
        .map((load) => t('describe.summary.input', { what: names[load.source], size: num(mag(load.Force), 1) }))
        .join('');
      lines.push(t('describe.summary.forces', { weight: num(spec.Mass * spec.Gravity, 2), inputs }));
      if (this.describer.waves) lines.push(this.describer.waves);
      const running = t(hello.status.running && this.running !== false ? 'describe.word.running' : 'describe.word.paused');
      const clean = (/** @type {number} */ x, /** @type {number} */ d) => num(Number(x.toFixed(d)) || 0, d); // no −0
      lines.push(t('describe.summary.state', { t: num(session.lastState?.t ?? 0, 2), running, height: clean(-b.CGPos[2], 2), speed: clean(mag(b.CGVel), 2), omega: clean(mag(b.AngVel), 2) }));
      const deg = b.Euler.map((x) => clean((x * 180) / Math.PI, 0));
      lines.push(t('describe.summary.attitude', { roll: deg[0], pitch: deg[1], yaw: deg[2] }));
      if (this.describer.motion) lines.push(t('describe.summary.motion', { motion: this.describer.motion }));
    }
    const el = this.summaryEl;
    const heading = Object.assign(document.createElement('h2'), { textContent: t('describe.summary.title') });
    const close = Object.assign(document.createElement('button'), { type: 'button', textContent: t('common.close') });
    close.addEventListener('click', () => this.close('summary'));
    el.replaceChildren(heading, ...lines.map((line) => Object.assign(document.createElement('p'), { textContent: line })), close);
    if (el.hidden) this.returnFocus = document.activeElement;
    el.hidden = false;
    el.focus();
  }
}
