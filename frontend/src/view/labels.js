// @ts-check
// A text label whose text changes while the page runs (a magnitude beside an arrow): one
// canvas and one texture for its whole life, redrawn only when the text differs, so a
// steady value costs nothing per frame and a changing one no new GPU objects.

import { CanvasTexture, Sprite, SpriteMaterial, SRGBColorSpace } from 'three';
import { num } from '../core/i18n.js';

const PX = 48; // font size on the canvas
const CHAR_PX = 0.62 * PX; // a generous mean advance: the canvas is as wide as `chars` need

export class TextLabel extends Sprite {
  /**
   * @param {string} color  CSS colour of the text
   * @param {number} height  drawn height, m (the world units of the parent)
   * @param {'left' | 'right'} side  which side of its point the text lies on
   * @param {number} chars  the longest text it will show: the quad is no wider than that
   *   (a software renderer pays for every blended pixel, transparent or not)
   */
  constructor(color, height = 0.2, side = 'right', chars = 14) {
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(chars * CHAR_PX + PX * 0.3);
    canvas.height = Math.ceil(PX * 1.3);
    const texture = new CanvasTexture(canvas);
    texture.colorSpace = SRGBColorSpace;
    super(new SpriteMaterial({ map: texture, depthTest: false, transparent: true }));
    this.canvas = canvas;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('sixdof: this browser gives no 2-D canvas context for a label');
    this.ctx = ctx;
    this.texture = texture;
    this.color = color;
    this.text = '';
    /** the share of the canvas's width the text takes, from its anchored side (declutter.js) */
    this.inkShare = 1;
    this.side = side;
    // anchored at the point: the text starts there (right) or ends there (left)
    this.center.set(side === 'right' ? 0 : 1, 0.5);
    this.renderOrder = 11;
    this.setHeight(height);
  }

  /** @param {number} height  drawn height, m */
  setHeight(height) {
    this.scale.set((height * this.canvas.width) / this.canvas.height, height, 1);
  }

  /**
   * Show `text` (redrawn only when it changed).
   * @param {string} text
   */
  setText(text) {
    if (text === this.text) return;
    this.text = text;
    const { ctx, canvas } = this;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = `bold ${PX}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = this.side === 'right' ? 'left' : 'right';
    const x = this.side === 'right' ? PX * 0.1 : canvas.width - PX * 0.1;
    ctx.lineWidth = PX * 0.16;
    ctx.strokeStyle = 'rgba(255,255,255,0.92)';
    ctx.strokeText(text, x, canvas.height / 2);
    ctx.fillStyle = this.color;
    ctx.fillText(text, x, canvas.height / 2);
    this.inkShare = Math.min(1, (ctx.measureText(text).width + PX * 0.3) / canvas.width);
    this.texture.needsUpdate = true;
  }

  dispose() {
    this.texture.dispose();
    this.material.dispose();
  }
}

/**
 * "9.81", "0.052", "1234": three significant digits without exponent noise.
 * @param {number} x
 */
export function magnitude(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a >= 100) return num(x, 0); // in the page's language (a decimal comma in de, nb)
  if (a >= 10) return num(x, 1);
  if (a >= 1) return num(x, 2);
  if (a >= 0.001) return num(x, null, { maximumSignificantDigits: 2, minimumSignificantDigits: 2 });
  return a === 0 ? '0' : num(x, null, { notation: 'scientific', maximumFractionDigits: 1 });
}

const MANTISSAS = [1, 2, 5, 10]; // one array: niceStep runs every frame

/**
 * 1, 2 or 5 × 10^k, the smallest not below x: grid cells, force scales, ruler ticks.
 * @param {number} x  > 0
 */
export function niceStep(x) {
  const p = 10 ** Math.floor(Math.log10(x));
  for (let k = 0; k < MANTISSAS.length; k++) if (MANTISSAS[k] * p >= x * (1 - 1e-12)) return MANTISSAS[k] * p;
  return 10 * p;
}
