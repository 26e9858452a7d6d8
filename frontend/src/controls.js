// @ts-check
// What the panel knows about its lil-gui controllers beyond lil-gui: the protocol field each one
// edits (a server error naming that field is shown under it) and the error line it shows. Kept
// in a WeakMap keyed by controller, not as properties stuck onto lil-gui's objects.

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
