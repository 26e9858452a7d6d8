// @ts-check
// What the panel knows about its lil-gui controllers beyond lil-gui: the protocol field each one
// edits (a server error naming that field is shown under it) and the error line it shows. Kept
// in a WeakMap keyed by controller, not as properties stuck onto lil-gui's objects.

import { errorText } from '../net/errors.js';
import { num } from '../core/i18n.js';

/** @typedef {import('lil-gui').Controller} Controller */
/** @typedef {{field: string, errorEl: HTMLElement | null}} ControlMeta */

/** @type {WeakMap<Controller, ControlMeta>} */
const META = new WeakMap();

/** @param {Controller} ctl @returns {ControlMeta} */
function metaOf(ctl) {
  let m = META.get(ctl);
  if (!m) META.set(ctl, (m = { field: String(ctl.property), errorEl: null }));
  return m;
}

/** The protocol field `ctl` edits (its property unless said otherwise). @param {Controller} ctl */
export function fieldOf(ctl) {
  return metaOf(ctl).field;
}

/** Say which protocol field `ctl` edits. @param {Controller} ctl @param {string} field */
export function setField(ctl, field) {
  metaOf(ctl).field = field;
}

/** Whether `ctl` shows an error line. @param {Controller} ctl */
export function hasError(ctl) {
  return !!META.get(ctl)?.errorEl;
}

/** Show `text` as an error line under `ctl` (and open its folder). @param {Controller} ctl @param {string} text */
export function showError(ctl, text) {
  const m = metaOf(ctl);
  let div = m.errorEl;
  if (!div) {
    div = document.createElement('div');
    div.className = 'sixdof-error';
    div.setAttribute('role', 'alert');
    div.dataset.field = m.field;
    ctl.domElement.after(div); // a row of its own under the controller
    m.errorEl = div;
  }
  div.textContent = text;
  ctl.domElement.classList.add('has-error');
  ctl.parent.open();
}

/** Remove `ctl`'s error line, if it shows one. @param {Controller} ctl */
export function clearError(ctl) {
  const m = META.get(ctl);
  m?.errorEl?.remove();
  if (m) m.errorEl = null;
  ctl.domElement.classList.remove('has-error');
}

/** The error lines a set of controllers shows (a panel's): shown, cleared one by one or all. */
export class ControlErrors {
  constructor() {
    /** @type {Set<Controller>} controllers showing an error line */
    this.shown = new Set();
  }

  /** @param {Controller | undefined} ctl @param {string} text */
  show(ctl, text) {
    if (!ctl) return;
    showError(ctl, text);
    this.shown.add(ctl);
  }

  /** @param {Controller | undefined} ctl */
  clear(ctl) {
    if (!ctl) return;
    clearError(ctl);
    this.shown.delete(ctl);
  }

  clearAll() {
    for (const ctl of [...this.shown]) this.clear(ctl);
  }

  /**
   * A server's refusal, under the controller of the field it names (else the first).
   * @param {Controller[]} ctls @param {import('../net/messages.gen.js').ErrorMessage} err
   */
  showServer(ctls, err) {
    const segments = String(err.field ?? '').split(/[.[\]/]+/);
    const target = ctls.find((ctl) => segments.includes(fieldOf(ctl))) ?? ctls[0];
    this.show(target, errorText(err));
  }
}

/**
 * The first of `value`'s numbers outside `range` (one of hello.limits' [low, high]), or
 * undefined when all are within; an end `open` marks (hello.limits.exclusive) is itself outside.
 * @param {number | readonly number[]} value @param {readonly [number, number]} range @param {readonly [boolean, boolean]} [open]
 */
export function outside(value, range, open = [false, false]) {
  const [lo, hi] = range;
  return (Array.isArray(value) ? value : [value]).find((x) => (open[0] ? x <= lo : x < lo) || (open[1] ? x >= hi : x > hi));
}

/**
 * A range as the server's messages write it, in the page's numbers: "[1, 20000]", "(0, 100000]"
 * ("(0; 100000]" where the decimal mark is a comma).
 * @param {readonly [number, number]} range @param {readonly [boolean, boolean]} [open]
 */
export function rangeText(range, open = [false, false]) {
  const sep = num(0.5).includes(',') ? '; ' : ', ';
  return `${open[0] ? '(' : '['}${num(range[0])}${sep}${num(range[1])}${open[1] ? ')' : ']'}`;
}

/** "1, 2, 3" or "[1 2 3]" → [1, 2, 3]; null when it is not `n` finite numbers. @param {unknown} text @param {number} n */
export function parseVector(text, n) {
  const parts = String(text).replace(/[[\]()]/g, ' ').split(/[\s,;]+/).filter(Boolean);
  if (parts.length !== n) return null;
  const v = parts.map(Number);
  return v.every(Number.isFinite) ? v : null;
}

/** [1, 2, 3] → "1, 2, 3" (to 6 decimals); '' for no vector. @param {readonly number[] | null | undefined} v */
export function formatVector(v) {
  if (!Array.isArray(v)) return '';
  return v.map((x) => String(Math.round(x * 1e6) / 1e6)).join(', ');
}

/**
 * The panel's values as the server has them (a hello, its body `b`), keyed like Panel.p; the
 * Force and Moment only while the panel types them in the global frame, as the server keeps them.
 * @param {import('../net/messages.gen.js').Hello} hello
 * @param {import('../net/messages.gen.js').BodySpec} b
 * @param {Record<string, any>} p  the panel's values (what the server does not say stays)
 * @param {number | undefined} shownTimeScale
 * @returns {Record<string, any>}
 */
export function serverValues(hello, b, p, shownTimeScale) {
  /** @type {Record<string, any>} */
  const v = {
    preset: hello.presets.some((x) => x.name === hello.scenario.name) ? hello.scenario.name : '',
    integrator: hello.integrator ?? hello.status?.integrator ?? p.integrator,
    step: hello.step ?? hello.status?.step ?? p.step,
    time_scale: shownTimeScale ?? hello.status?.time_scale ?? p.time_scale,
    Mass: b.Mass, Gravity: b.Gravity, model: b.model ?? 'full',
    InertiaRadi: formatVector(b.InertiaRadi), Inertia: b.Inertia ? formatVector(b.Inertia) : '',
    CGOffset: formatVector(b.CGOffset), MeshScale: formatVector(b.MeshScale), Size: formatVector(b.Size),
    MeshOrigin: formatVector(b.MeshOrigin), Mesh: b.Mesh, Material: b.Material,
    MeshUnits: b.MeshUnits ?? 'm', InertiaFrom: b.InertiaFrom ?? 'given', Density: b.Density == null ? '' : String(b.Density),
  }; // prettier-ignore
  if (/^#[0-9a-f]{6}$/i.test(b.Material)) v.colour = b.Material;
  if (p.frame === 'global') {
    [v.Fx, v.Fy, v.Fz] = b.Force;
    [v.Mx, v.My, v.Mz] = b.Moment;
  }
  return v;
}
