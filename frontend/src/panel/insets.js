// @ts-check
// What the page's cards cover of the view (issue 45: at 1366×800 with Plots open the caption,
// the energy bars and the flip badge covered most of a 500 px view). The insets are the bands
// along the view's edges under the cards: the caption along the top, the timeline, the energy
// bars and the flip badge along the bottom, the HUD's column on the left and the toolbar's on
// the right. The
// stage moves the picture's centre to the middle of the rest and framing fits the bodies there
// (view/scene.js setInsets, view/framing.js). A phone stacks its cards in two rows across the
// view's width (style.css): the HUD, the water card and #corner's column along the top; the
// caption and answer box, the energy strip, the timeline and the toolbar along the bottom.
// The bodies are framed in the band between them, and the push pad flanks them in it: its
// stick and twist buttons are places the framing keeps them out of (`avoid`), the middle
// between them is theirs.

const TOP = ['#top'];
const BOTTOM = ['#timeline', '#energy', '#flips'];
const PHONE_TOP = ['#hud', '#water-card', '#corner', '#version'];
const PHONE_BOTTOM = ['#top', '#energy', '#timeline', '#toolbar'];
const PHONE_AVOID = ['#pad .pad-stick', '#pad .pad-twist'];
/** The insets never leave less than this share of the view's height or width... */
const LEAST = 0.45;
/** ...on a phone, of its height: held upright it is tall, and its cards are many */
const LEAST_PHONE = 0.2;

/**
 * @typedef {{left: number, top: number, right: number, bottom: number, avoid?: number[][]}} Insets
 * CSS px; avoid: rectangles in the free band the bodies keep out of, [left, top, right, bottom]
 * from the view's top left
 */

/** @param {Element | null} el */
function shown(el) {
  if (!(el instanceof HTMLElement) || el.hidden) return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? r : null;
}

/**
 * The view's insets under the page's cards, CSS px.
 * @param {HTMLElement} view  the view's box (the canvas fills it)
 * @returns {Insets}
 */
export function measureInsets(view) {
  const none = { left: 0, top: 0, right: 0, bottom: 0 };
  const v = view.getBoundingClientRect();
  if (!(v.width > 0 && v.height > 0)) return none;
  if (window.matchMedia('(max-width: 900px)').matches) return phoneInsets(v);
  let top = 0;
  let bottom = 0;
  for (const sel of TOP) {
    const r = shown(document.querySelector(sel));
    // the #top column's own box spans its banners and caption; an empty one is 0 tall
    if (r && r.top < v.top + v.height / 2) top = Math.max(top, r.bottom - v.top);
  }
  for (const sel of BOTTOM) {
    const r = shown(document.querySelector(sel));
    if (r && r.bottom > v.top + v.height / 2) bottom = Math.max(bottom, v.bottom - r.top);
  }
  const bar = shown(document.querySelector('#toolbar'));
  const right = bar && bar.height > bar.width ? Math.max(0, v.right - bar.left) : 0;
  const hud = shown(document.querySelector('#hud'));
  const left = hud ? Math.max(0, hud.right - v.left) : 0;
  // a view too short for its cards: they cover the bodies rather than squeeze them away
  const tall = Math.min(1, ((1 - LEAST) * v.height) / Math.max(1, top + bottom));
  const wide = Math.min(1, ((1 - LEAST) * v.width) / Math.max(1, left + right));
  return { left: Math.round(left * wide), top: Math.round(top * tall), right: Math.round(right * wide), bottom: Math.round(bottom * tall) };
}

/**
 * A phone's insets: the rows of cards along the top and the bottom (no columns at the sides).
 * @param {DOMRect} v  the view's box
 * @returns {Insets}
 */
function phoneInsets(v) {
  let top = 0;
  let bottom = 0;
  const middle = v.top + v.height / 2;
  for (const sel of PHONE_TOP) {
    const r = shown(document.querySelector(sel));
    if (r && r.top < middle) top = Math.max(top, r.bottom - v.top);
  }
  for (const sel of PHONE_BOTTOM) {
    const r = shown(document.querySelector(sel));
    if (r && r.bottom > middle) bottom = Math.max(bottom, v.bottom - r.top);
  }
  const tall = Math.min(1, ((1 - LEAST_PHONE) * v.height) / Math.max(1, top + bottom));
  const avoid = [];
  for (const sel of PHONE_AVOID) {
    const r = shown(document.querySelector(sel));
    if (r) avoid.push([r.left - v.left, r.top - v.top, r.right - v.left, r.bottom - v.top]);
  }
  return { left: 0, top: Math.round(top * tall), right: 0, bottom: Math.round(bottom * tall), avoid };
}
