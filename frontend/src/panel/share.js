// @ts-check
// Share: a link that recreates this room in a new room on the same server. The server keeps a
// snapshot of the room (POST /api/rooms/{room}/share) and the link opens a fresh room name
// with it, so opening a link never overwrites anyone's room (server/snapshots.py).

import QRCode from 'qrcode';
import { mustFind } from '../core/dom.js';
import { t } from '../core/i18n.js';

const WHAT = { start: t('share.scenario'), now: t('share.moment'), recording: t('share.past') };
/**
 * How the link becomes a QR code: level M survives a projector's glare and a phone's shaky
 * camera; a link with its view (~600 characters) still fits; a quiet zone of 4 modules as the
 * standard asks. Tests re-encode the link with the same options (qrEncode) and compare.
 * @type {import('qrcode').QRCodeOptions}
 */
export const QR_OPTIONS = { errorCorrectionLevel: 'M' };
const QR_MARGIN = 4;

/**
 * The QR code's modules for `text`, as the library encodes it: size × size, row by row, true
 * for dark (tests compare the drawn picture with it; margin: the quiet zone drawn around it).
 * @param {string} text
 */
export function qrEncode(text) {
  const code = QRCode.create(text, QR_OPTIONS);
  return { size: code.modules.size, margin: QR_MARGIN, dark: Array.from(code.modules.data, (d) => d !== 0) };
}

export class Share {
  /**
   * @param {HTMLElement} el  the #share dialog
   * @param {object} opts
   * @param {string} opts.room
   * @param {string|null} opts.token
   * @param {(text: string) => void} opts.onError
   * @param {() => import('../net/messages.gen.js').ViewSpec} opts.view  the view now: the link carries it
   */
  constructor(el, { room, token, onError, view }) {
    this.view = view;
    this.el = el;
    this.room = room;
    this.token = token;
    this.onError = onError;
    /** @type {string | null} The last link made (tests read it). */
    this.url = null;
    const form = mustFind(el, 'form', HTMLFormElement);
    this.output = mustFind(el, 'input[readonly]', HTMLInputElement);
    /** the link as a QR code, for a projector: students point their phones at it */
    this.qr = mustFind(el, 'canvas.share-qr', HTMLCanvasElement);
    const choices = mustFind(el, '.share-what', HTMLElement);
    for (const [value, text] of Object.entries(WHAT)) {
      const label = document.createElement('label');
      const radio = document.createElement('input');
      radio.type = 'radio';
      Object.assign(radio, { name: 'what', value, checked: value === 'now' });
      label.append(radio, ` ${text}`);
      choices.append(label);
    }
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const what = mustFind(form, 'input[name=what]:checked', HTMLInputElement).value;
      this.make(what);
    });
    el.querySelector('[data-act=copy]')?.addEventListener('click', () => this.copy());
    el.querySelector('[data-act=close]')?.addEventListener('click', () => this.toggle(false));
  }

  toggle(open = this.el.hidden) {
    this.el.hidden = !open;
  }

  /**
   * Make a link to a new room with a snapshot of this one.
   * @param {string} what  start, now or recording (WHAT's keys)
   */
  async make(what) {
    const api = new URL(`api/rooms/${encodeURIComponent(this.room)}/share`, window.location.href);
    api.searchParams.set('what', what);
    if (this.token) api.searchParams.set('token', this.token);
    try {
      const reply = await fetch(api, { method: 'POST' });
      /** @type {{id: string, detail?: unknown}} the snapshot made, or FastAPI's error */
      const body = await reply.json();
      if (!reply.ok) throw new Error(typeof body.detail === 'string' ? body.detail : reply.statusText);
      const link = new URL(window.location.pathname, window.location.href);
      const fresh = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');
      link.searchParams.set('room', `${this.room.slice(0, 40)}-${fresh}`);
      link.searchParams.set('snapshot', body.id);
      link.searchParams.set('view', JSON.stringify(this.view())); // camera, overlays, plots (viewstate.js)
      this.url = link.toString();
      this.output.value = this.url;
      this.output.hidden = false;
      this.output.select();
      await this.drawQr(this.url);
    } catch (err) {
      this.onError(`${t('share.label')}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Draw `text` as a QR code by the library's own renderer, one canvas pixel per module (CSS
   * scales it up, pixelated), so the picture is exactly the code at any size the dialog gives it.
   * @param {string} text
   */
  async drawQr(text) {
    await QRCode.toCanvas(this.qr, text, { ...QR_OPTIONS, margin: QR_MARGIN, scale: 1 });
    // it sizes the canvas's style to its pixels: the stylesheet sizes it (larger on a projector)
    this.qr.style.removeProperty('width');
    this.qr.style.removeProperty('height');
    this.qr.hidden = false;
  }

  copy() {
    if (!this.url) return;
    this.output.select();
    if (navigator.clipboard) navigator.clipboard.writeText(this.url).catch(() => document.execCommand('copy'));
    else document.execCommand('copy');
  }
}
