// @ts-check
// Record clip: the 3-D view with the HUD (and the energy bars and flip counter when shown)
// drawn over it, into a WebM file with the browser's MediaRecorder. The WebGL canvas is copied
// onto a 2-D canvas right after each render (its buffer is still there then), the text panels
// are drawn on top, and the 2-D canvas's stream is recorded. A clip is taken from the live view,
// or from the timeline: the recorded past played forward frame by frame at the chosen speed.

import { t } from '../core/i18n.js';

const PANELS = ['hud', 'energy', 'flips'];

export class Clip {
  /**
   * @param {object} opts
   * @param {HTMLCanvasElement} opts.source  the WebGL canvas
   * @param {(id: string) => HTMLElement | null} opts.$  the page's element of that id
   * @param {(text: string) => void} opts.onError
   * @param {(blob: Blob|null, recording: boolean) => void} opts.onChange
   */
  constructor({ source, $, onError, onChange }) {
    this.source = source;
    this.$ = $;
    this.onError = onError;
    this.onChange = onChange;
    this.canvas = document.createElement('canvas');
    this.ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    /** @type {MediaRecorder | null} */
    this.recorder = null;
    this.chunks = /** @type {Blob[]} */ ([]);
    /** @type {Blob | null} The last clip (tests read it), and how many frames went into it. */
    this.blob = null;
    this.frames = 0;
    /** @type {number | null} */
    this.stopTimer = null;
  }

  get recording() {
    return this.recorder !== null;
  }

  static supported() {
    return typeof MediaRecorder !== 'undefined' && typeof HTMLCanvasElement.prototype.captureStream === 'function';
  }

  /** Start recording; stop after `seconds` of wall time (0: until stop()). */
  start(seconds = 0) {
    if (this.recording) return;
    if (!Clip.supported()) {
      this.onError(t('clip.nomedia'));
      return;
    }
    this.canvas.width = this.source.width;
    this.canvas.height = this.source.height;
    const stream = this.canvas.captureStream(30);
    const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    this.chunks = [];
    this.frames = 0;
    this.blob = null;
    const recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    recorder.ondataavailable = (ev) => ev.data.size && this.chunks.push(ev.data);
    recorder.onstop = () => {
      this.blob = new Blob(this.chunks, { type: 'video/webm' });
      this.recorder = null;
      stream.getTracks().forEach((track) => track.stop());
      this.onChange(this.blob, false);
    };
    recorder.start(250);
    this.recorder = recorder;
    this.onChange(null, true);
    if (seconds > 0) this.stopTimer = setTimeout(() => this.stop(), seconds * 1000);
  }

  stop() {
    clearTimeout(this.stopTimer ?? undefined);
    if (this.recorder && this.recorder.state !== 'inactive') this.recorder.stop();
  }

  /** Called by the render loop right after each render: copy the view and the panels. */
  capture() {
    if (!this.recording) return;
    const { ctx, canvas } = this;
    if (canvas.width !== this.source.width || canvas.height !== this.source.height) {
      canvas.width = this.source.width;
      canvas.height = this.source.height;
    }
    ctx.drawImage(this.source, 0, 0);
    const scale = canvas.width / Math.max(1, this.source.clientWidth);
    const box = this.source.getBoundingClientRect();
    for (const id of PANELS) {
      const el = this.$(id);
      if (!el || el.hidden || el.offsetParent === null) continue;
      const r = el.getBoundingClientRect();
      const x = (r.left - box.left) * scale;
      const y = (r.top - box.top) * scale;
      ctx.fillStyle = 'rgba(255, 255, 255, 0.88)';
      ctx.fillRect(x, y, r.width * scale, r.height * scale);
      ctx.fillStyle = '#1d2430';
      // a line per row of the panel (its children; a child made of rows gives those rows),
      // the cells of a row side by side; the energy bars drawn as they are on the page
      const rows = (el.children.length ? [...el.children] : [el]).flatMap((c) =>
        c.children.length && [...c.children].every((g) => g.tagName === 'DIV') ? [...c.children] : [c]);
      const lines = rows.filter((c) => /** @type {HTMLElement} */ (c).offsetParent !== null)
        .map((c) => /** @type {HTMLElement} */ (c).innerText.replace(/\s*\n\s*/g, '  ').trim())
        .filter((line) => line);
      const size = Math.min(14 * scale, (r.height * scale - 8 * scale) / Math.max(1, lines.length) / 1.25);
      ctx.font = `${Math.round(size)}px sans-serif`;
      lines.forEach((line, i) => ctx.fillText(line, x + 8 * scale, y + 4 * scale + (i + 0.95) * size * 1.25, r.width * scale - 12 * scale));
      for (const bar of el.querySelectorAll('.energy-bar')) {
        const b = bar.getBoundingClientRect();
        ctx.fillStyle = getComputedStyle(bar).backgroundColor;
        ctx.fillRect((b.left - box.left) * scale, (b.top - box.top) * scale, b.width * scale, b.height * scale);
      }
    }
    this.frames += 1;
  }
}
