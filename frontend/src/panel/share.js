// @ts-check
// Share: a link that recreates this room in a new room on the same server. The server keeps a
// snapshot of the room (POST /api/rooms/{room}/share) and the link opens a fresh room name
// with it, so opening a link never overwrites anyone's room (server/snapshots.py).

import { mustFind } from '../core/dom.js';
import { t } from '../core/i18n.js';

const WHAT = { start: t('share.scenario'), now: t('share.moment'), recording: t('share.past') };

export class Share {
  /**
   * @param {HTMLElement} el  the #share dialog
   * @param {object} opts
   * @param {string} opts.room
   * @param {string|null} opts.token
   * @param {(text: string) => void} opts.onError
   */
  constructor(el, { room, token, onError }) {
    this.el = el;
    this.room = room;
    this.token = token;
    this.onError = onError;
    /** @type {string | null} The last link made (tests read it). */
    this.url = null;
    const form = mustFind(el, 'form', HTMLFormElement);
    this.output = mustFind(el, 'input[readonly]', HTMLInputElement);
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
      this.url = link.toString();
      this.output.value = this.url;
      this.output.hidden = false;
      this.output.select();
    } catch (err) {
      this.onError(`${t('share.label')}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  copy() {
    if (!this.url) return;
    this.output.select();
    if (navigator.clipboard) navigator.clipboard.writeText(this.url).catch(() => document.execCommand('copy'));
    else document.execCommand('copy');
  }
}
