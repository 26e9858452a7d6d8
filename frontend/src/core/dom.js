// @ts-check
// Looking up the elements the page cannot work without (index.html's, or ones a module made
// itself): a missing one, or one of another kind, is a clear error where it is looked up, not
// a null that fails later somewhere else.

/**
 * The first element under `root` that matches `selector`, which must exist and be a `type`.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} type  e.g. HTMLElement, HTMLButtonElement
 * @returns {T}
 */
export function mustFind(root, selector, type) {
  const el = root.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`sixdof: the page has no ${type.name} ${selector}${el ? ` (found a ${el.tagName})` : ''}`);
  return el;
}

/**
 * The element of the page with this id, which must exist and be a `type`.
 * @template {Element} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function mustGet(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`sixdof: the page has no ${type.name} #${id}${el ? ` (found a ${el.tagName})` : ''}`);
  return el;
}

// The writes below change the page only when the value differs: writing the same text again
// still replaces the text node, and the browser then restyles, lays out and repaints the
// page (a readout rewritten for every state frame cost a third of a core, issue 38).

/** `el`'s text, written only if it differs. @param {Node} el @param {string} text */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** `el`'s attribute `name`, written only if it differs. @param {Element} el @param {string} name @param {string} value */
export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** `el` hidden or shown, written only if it differs. @param {HTMLElement} el @param {boolean} hidden */
export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

/**
 * Keep charts as wide as their cells while `box` changes size: a uPlot chart keeps the width
 * it was drawn at (projector mode widens a card, and its charts stayed the laptop's width).
 * `widths()` gives each chart (null: not drawn yet) and the width it should have now.
 * @param {Element} box
 * @param {() => Iterable<[{ width: number, height: number, setSize(size: { width: number, height: number }): void } | null, number]>} widths
 */
export function followWidths(box, widths) {
  new ResizeObserver(() => {
    for (const [chart, width] of widths()) {
      if (chart && chart.width !== width) chart.setSize({ width, height: chart.height });
    }
  }).observe(box);
}
