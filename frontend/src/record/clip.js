// @ts-check
// Record clip: the 3-D view with the HUD (and the energy bars and flip counter when shown)
// drawn over it, into a WebM file with the browser's MediaRecorder. The WebGL canvas is copied
// onto a 2-D canvas right after each render (its buffer is still there then), the text panels
// are drawn on top, and the 2-D canvas's stream is recorded. A clip is taken from the live view,
// or from the timeline: the recorded past played forward frame by frame at the chosen speed.

import { t } from '../core/i18n.js';

const PANELS = ['hud', 'energy', 'flips'];
/** How long a clip without any video yet waits for the browser's encoder at its end (ms). */
const FLUSH_MS = 5000;

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
    /** Its frames are all taken: waiting for the encoder's output before it stops. */
    this.closing = false;
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
    this.closing = false;
    const recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    recorder.ondataavailable = (ev) => ev.data.size && this.chunks.push(ev.data);
    recorder.onerror = (ev) => {
      const error = /** @type {{error?: {message?: string}}} */ (ev).error;
      this.onError(t('clip.failed', { error: error?.message ?? 'MediaRecorder' }));
    };
    recorder.onstop = () => {
      // no video at all (the encoder gave nothing): said, and no empty file to download
      this.blob = this.chunks.length ? new Blob(this.chunks, { type: 'video/webm' }) : null;
      this.recorder = null;
      this.closing = false;
      stream.getTracks().forEach((track) => track.stop());
      if (!this.blob) this.onError(t('clip.empty'));
      this.onChange(this.blob, false);
    };
    recorder.start(250);
    this.recorder = recorder;
    this.onChange(null, true);
    if (seconds > 0) this.stopTimer = setTimeout(() => this.stop(), seconds * 1000);
  }

  stop() {
    clearTimeout(this.stopTimer ?? undefined);
    const recorder = this.recorder;
    if (!recorder || recorder.state === 'inactive' || this.closing) return;
    // Chromium drops what its encoder still holds at stop(), and on a busy machine the encoder
    // can be seconds behind (a 3 s clip once came out empty, 8 frames taken): a clip without
    // any video yet takes no more frames and asks for the encoder's output until some comes
    // (or FLUSH_MS pass), then stops.
    this.closing = true;
    const began = performance.now();
    const finish = () => {
      if (recorder.state === 'inactive') return;
      if (this.chunks.length || performance.now() - began > FLUSH_MS) recorder.stop();
      else {
        recorder.requestData();
        setTimeout(finish, 100);
      }
    };
    finish();
  }

  /** Called by the render loop right after each render: copy the view and the panels. */
  capture() {
    if (!this.recording || this.closing) return;
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
