// @ts-check
// A gyroscope recording in a room: drop (or open) a phyphox CSV, the server fits the torque-free
// Euler equations to it (POST /api/rooms/{room}/gyro, the same fit as `sixdof fit`) and
// simulates the room's body from the recording's initial ω; the chart shows the measured ω (dots)
// against that simulation (lines), and "Apply" gives the body the fitted inertia (set_params).

import uPlot from 'uplot';
import { isMeshFile } from '../view/meshes.js';
import { followWidths } from '../core/dom.js';
import { num, t, t as tr } from '../core/i18n.js';
import 'uplot/dist/uPlot.min.css';
import './gyro.css';

const COLORS = ['#d0312d', '#2e9d4a', '#2660c9'];
const AXES = ['x', 'y', 'z'];

/**
 * What the server replies (server/gyro.py): the fit and the series, each {t, omega: [x, y, z]}.
 * @typedef {{t: number[], omega: number[][]}} Series
 * @typedef {Object} GyroReply
 * @property {string} body
 * @property {[number, number]} inertia_ratios
 * @property {[number, number]} inertia_ratios_sigma
 * @property {[number, number, number]} initial_ang_vel
 * @property {number} residual_rms
 * @property {number} samples
 * @property {number} duration
 * @property {string | null} intermediate_axis
 * @property {number} flips_measured
 * @property {number | null} flip_period_measured
 * @property {number | null} flip_period_predicted
 * @property {Series} measured
 * @property {Series & {model: string}} simulated
 * @property {Series} simulated_fitted
 * @property {{InertiaRadi: [number, number, number], Inertia: null}} apply
 */

/**
 * Values of series `s` at times `t` by linear interpolation (held at the ends).
 * @param {number[]} st @param {number[]} sv @param {number[]} t
 */
function resample(st, sv, t) {
  const out = new Array(t.length);
  let j = 0;
  for (let i = 0; i < t.length; i++) {
    while (j < st.length - 2 && st[j + 1] < t[i]) j++;
    const span = st[j + 1] - st[j];
    const f = span > 0 ? Math.min(1, Math.max(0, (t[i] - st[j]) / span)) : 0;
    out[i] = sv[j] + f * (sv[j + 1] - sv[j]);
  }
  return out;
}

/** @param {number | null} x @param {number} [digits] */
const fmt = (x, digits = 4) => (x == null ? '–' : x.toPrecision(digits));

/** The chart's width in `cell`: the cell's, at least 240 px (520 while hidden). @param {HTMLElement} cell */
const chartWidth = (cell) => Math.max(240, cell.clientWidth || 520);

export class Gyro {
  /**
   * @param {object} opts
   * @param {HTMLElement} opts.view  where files may be dropped and the dialog goes
   * @param {HTMLElement} opts.toolbar  where its button goes (before the Controls button)
   * @param {string} opts.room
   * @param {string | null} opts.token
   * @param {() => string | null} opts.bodyName  the selected body
   * @param {(msg: import('../net/messages.gen.js').ClientMessage, handlers?: import('../net/connection.js').Handlers) => void} opts.send
   * @param {() => boolean} opts.readOnly
   */
  constructor({ view, toolbar, room, token, bodyName, send, readOnly }) {
    this.room = room;
    this.token = token;
    this.bodyName = bodyName;
    this.send = send;
    this.readOnly = readOnly;
    /** @type {GyroReply | null} the last fit (tests read it) */
    this.reply = null;
    /** @type {string | null} the recording's text, sent again after Apply */
    this.text = null;
    this.fileName = '';
    /** @type {uPlot | null} */
    this.chart = null;
    this.draws = 0;

    this.button = Object.assign(document.createElement('button'), {
      id: 'btn-gyro', type: 'button', textContent: t('gyro.button'), title: t('gyro.button_title'),
    });
    toolbar.insertBefore(this.button, toolbar.querySelector('#btn-panel'));
    this.button.addEventListener('click', () => this.toggle());

    this.el = document.createElement('section');
    this.el.id = 'gyro';
    this.el.className = 'dialog';
    this.el.hidden = true;
    this.el.setAttribute('aria-label', t('gyro.title'));
    this.el.innerHTML = `
      <h2>${t('gyro.title')}</h2>
      <p>${t('gyro.intro')}</p>
      <div class="gyro-drop">${t('gyro.drop')} <input type="file" accept=".csv,.txt,text/csv,text/plain" aria-label="${t('gyro.open')}" /></div>
      <p class="gyro-status" aria-live="polite"></p>
      <div class="gyro-result" hidden></div>
      <div class="gyro-plot"></div>
      <div>
        <button type="button" data-act="apply" disabled title="${t('gyro.apply_title')}">${t('gyro.apply')}</button>
        <button type="button" data-act="spin" disabled title="${t('gyro.spin_title')}">${t('gyro.spin')}</button>
        <button type="button" data-act="close">${t('gyro.close')}</button>
      </div>`;
    view.append(this.el);
    this.status = /** @type {HTMLElement} */ (this.el.querySelector('.gyro-status'));
    this.result = /** @type {HTMLElement} */ (this.el.querySelector('.gyro-result'));
    this.plot = /** @type {HTMLElement} */ (this.el.querySelector('.gyro-plot'));
    this.applyButton = /** @type {HTMLButtonElement} */ (this.el.querySelector('[data-act=apply]'));
    this.spinButton = /** @type {HTMLButtonElement} */ (this.el.querySelector('[data-act=spin]'));
    const input = /** @type {HTMLInputElement} */ (this.el.querySelector('input[type=file]'));
    input.addEventListener('change', () => {
      if (input.files?.[0]) this.open(input.files[0]);
      input.value = '';
    });
    this.applyButton.addEventListener('click', () => this.apply());
    this.spinButton.addEventListener('click', () => this.spin());
    this.el.querySelector('[data-act=close]')?.addEventListener('click', () => this.toggle(false));
    followWidths(this.el, () => [[this.chart, chartWidth(this.plot)]]);

    // a file dragged over the view or the dialog: drop it to fit (other drags are the view's)
    /** @param {DragEvent} ev */
    const carriesFile = (ev) => !!ev.dataTransfer && Array.from(ev.dataTransfer.types).includes('Files');
    for (const target of [view, this.el]) {
      target.addEventListener('dragover', (ev) => {
        if (!carriesFile(ev)) return;
        ev.preventDefault();
        view.classList.add('gyro-over');
      });
      target.addEventListener('dragleave', () => view.classList.remove('gyro-over'));
      target.addEventListener('drop', (ev) => {
        view.classList.remove('gyro-over');
        const file = ev.dataTransfer?.files?.[0];
        if (!file || isMeshFile(file.name)) return; // a mesh is the Look folder's (meshupload.js)
        ev.preventDefault();
        ev.stopPropagation();
        this.open(file);
      });
    }
  }

  toggle(open = this.el.hidden) {
    this.el.hidden = !open;
    this.button.setAttribute('aria-pressed', String(open));
  }

  /** @param {string} text @param {boolean} [error] */
  say(text, error = false) {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
  }

  /** Read a dropped or opened file and fit it. @param {File} file */
  async open(file) {
    this.toggle(true);
    this.fileName = file.name;
    this.text = await file.text();
    await this.analyse();
  }

  /**
   * Send the recording to the server; show the fit and the chart.
   * @param {string} [note]  said before the file's summary
   */
  async analyse(note = '') {
    if (this.text == null) return;
    const api = new URL(`api/rooms/${encodeURIComponent(this.room)}/gyro`, window.location.href);
    const name = this.bodyName();
    if (name) api.searchParams.set('body', name);
    if (this.token) api.searchParams.set('token', this.token);
    this.say(t('gyro.fitting', { file: this.fileName }));
    try {
      const reply = await fetch(api, { method: 'POST', body: this.text, headers: { 'Content-Type': 'text/csv' } });
      /** @type {GyroReply & {detail?: unknown}} */
      const body = await reply.json();
      if (!reply.ok) throw new Error(typeof body.detail === 'string' ? body.detail : reply.statusText);
      this.reply = body;
      this.show(body);
      this.say(note + t('gyro.read', { file: this.fileName, samples: body.samples, seconds: num(body.duration, 2) }));
    } catch (err) {
      this.say(t('gyro.failed', { why: err instanceof Error ? err.message : String(err) }), true);
    }
  }

  /** @param {GyroReply} r */
  show(r) {
    const [a, b] = r.inertia_ratios;
    const [sa, sb] = r.inertia_ratios_sigma;
    const flip = r.intermediate_axis
      ? t('gyro.flips', { measured: fmt(r.flip_period_measured), flips: r.flips_measured, fitted: fmt(r.flip_period_predicted), axis: r.intermediate_axis })
      : t('gyro.no_flip');
    this.result.hidden = false;
    this.result.replaceChildren(
      Object.assign(document.createElement('div'), { textContent: t('gyro.ratios', { a: fmt(a), sa: fmt(sa, 2), b: fmt(b), sb: fmt(sb, 2), residual: fmt(r.residual_rms, 3) }) }),
      Object.assign(document.createElement('div'), { textContent: t('gyro.initial', { w: r.initial_ang_vel.map((v) => num(v, 3)).join('; '), flip }) }),
      Object.assign(document.createElement('div'), { textContent: t('gyro.lines', { body: r.body, model: r.simulated.model }) }),
    );
    this.draw(r);
    const control = !this.readOnly();
    this.applyButton.disabled = !control;
    this.spinButton.disabled = !control;
  }

  /** The measured ω (dots) and the simulated ω (lines) on the measured times. @param {GyroReply} r */
  draw(r) {
    const t = r.measured.t;
    const sim = r.simulated.omega.map((v) => resample(r.simulated.t, v, t));
    /** @type {uPlot.AlignedData} */
    const data = [t, ...r.measured.omega, ...sim];
    const width = chartWidth(this.plot);
    if (this.chart) this.chart.destroy();
    /** @type {uPlot.Options} */
    const opts = {
      width,
      height: 240,
      scales: { x: { time: false } },
      axes: [{ label: 't (s)', size: 30, labelSize: 14 }, { label: 'ω (rad/s)', size: 50, labelSize: 14 }],
      legend: { live: false },
      series: [
        { label: 't' },
        ...AXES.map((k, i) => ({ label: tr('gyro.measured', { axis: k }), stroke: COLORS[i], width: 0, paths: () => null, points: { show: true, size: 3, fill: COLORS[i] } })),
        ...AXES.map((k, i) => ({ label: tr('gyro.simulated', { axis: k }), stroke: COLORS[i], width: 1.8 })),
      ],
      hooks: { draw: [() => (this.draws += 1)] },
    };
    this.chart = new uPlot(opts, data, this.plot);
  }

  /** Give the body the fitted inertia ratios, then fit again: the lines follow the dots. */
  apply() {
    const r = this.reply;
    if (!r) return;
    const msg = /** @type {import('../net/messages.gen.js').SetParams} */ ({ type: 'set_params', body: r.body, ...r.apply });
    this.send(msg, {
      onAck: () => this.analyse(t('gyro.applied', { body: r.body, radii: r.apply.InertiaRadi.map((v) => num(v, 4)).join('; ') }) + ' '),
      onError: (e) => this.say(t('gyro.apply_failed', { why: e.message }), true),
    });
  }

  /** Set the body spinning at the recording's initial ω (reset with that AngVel). */
  spin() {
    const r = this.reply;
    if (!r) return;
    this.send({ type: 'reset', body: r.body, state: { AngVel: r.initial_ang_vel } }, { onError: (e) => this.say(t('gyro.spin_failed', { why: e.message }), true) });
  }
}
