// @ts-check
// The Hydrodynamics card (issue 43): for a body with a radiation element, the BEM file's A(ω)
// and B(ω) (dots) against the fitted state-space model's (lines), the radiation memory K(t) of
// the file against the fit's, and the fit's reported error, per pair of degrees of freedom the
// fit realises (a selector). The numbers are the server's (GET /api/rooms/{room}/hydrodynamics,
// server/hydro.py): the page draws them and computes nothing. Opened from the Water folder's
// Hydrodynamics (BEM) part (bempanel.js).

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { followWidths } from '../core/dom.js';
import { num, t } from '../core/i18n.js';
import './hydrocard.css';

/** @typedef {import('../net/messages.gen.js').Hydrodynamics} Hydrodynamics */

const DOFS = ['surge', 'sway', 'heave', 'roll', 'pitch', 'yaw'];
const FILE = '#2660c9';
const FIT = '#d0312d';

/** `x` to 4 significant digits, in the page's language. @param {number} x */
const sig = (x) => num(x, null, { maximumSignificantDigits: 4 });

/** The mass unit of a pair: kg moving–moving, kg·m moving–turning, kg·m² turning–turning. @param {number[]} pair */
const massUnit = ([i, j]) => ['kg', 'kg·m', 'kg·m²'][Number(i >= 3) + Number(j >= 3)];

/**
 * Where a memory has died out: past the last time either curve exceeds 1 % of its largest
 * value (and a half of that again), so that the chart shows its shape, not its long zero tail.
 * @param {number[]} t @param {number[][]} curves
 */
function memorySpan(t, curves) {
  let last = 1;
  for (const c of curves) {
    const top = Math.max(...c.map(Math.abs));
    for (let k = c.length - 1; k > last; k--) if (Math.abs(c[k]) > 0.01 * top) { last = k; break; }
  }
  return Math.min(t[t.length - 1], 1.5 * t[last]);
}

/** "heave" for [2, 2], "surge–pitch" for [0, 4]. @param {number[]} pair */
export function pairName([i, j]) {
  return i === j ? t(`hydro.dof.${DOFS[i]}`) : `${t(`hydro.dof.${DOFS[i]}`)}–${t(`hydro.dof.${DOFS[j]}`)}`;
}

/** A chart's width in `cell`: the cell's, at least 240 px (480 while the card is hidden). @param {HTMLElement} cell */
const chartWidth = (cell) => Math.max(240, cell.clientWidth || 480);

export class HydroCard {
  /**
   * @param {HTMLElement} view  where the card goes
   * @param {{room: string}} where
   */
  constructor(view, { room }) {
    this.room = room;
    /** @type {Hydrodynamics | null} the server's last answer (tests read it) */
    this.data = null;
    /** @type {Record<'A' | 'B' | 'K', uPlot | null>} the charts (tests read their data) */
    this.charts = { A: null, B: null, K: null };
    this.pair = 0;
    this.el = document.createElement('section');
    this.el.id = 'hydro-card';
    this.el.className = 'dialog';
    this.el.hidden = true;
    this.el.setAttribute('aria-label', t('hydro.title'));
    this.el.innerHTML = `
      <h2></h2>
      <label class="hydro-pair">${t('hydro.pair')} <select></select></label>
      <p class="hydro-summary" aria-live="polite"></p>
      <div class="hydro-plot" data-chart="A"></div>
      <div class="hydro-plot" data-chart="B"></div>
      <div class="hydro-plot" data-chart="K"></div>
      <p class="hydro-legend">${t('hydro.legend')}</p>
      <div><button type="button" data-act="close">${t('hydro.close')}</button></div>`;
    view.append(this.el);
    this.title = /** @type {HTMLElement} */ (this.el.querySelector('h2'));
    this.select = /** @type {HTMLSelectElement} */ (this.el.querySelector('select'));
    this.summary = /** @type {HTMLElement} */ (this.el.querySelector('.hydro-summary'));
    this.select.addEventListener('change', () => {
      this.pair = Number(this.select.value);
      this.draw();
    });
    this.el.querySelector('[data-act=close]')?.addEventListener('click', () => this.toggle(false));
    followWidths(this.el, () => Object.entries(this.charts).map(([key, chart]) => [chart, chartWidth(this.cell(key))]));
  }

  /** The cell chart `key` is drawn in. @param {string} key */
  cell(key) {
    return /** @type {HTMLElement} */ (this.el.querySelector(`[data-chart=${key}]`));
  }

  toggle(open = this.el.hidden) {
    this.el.hidden = !open;
  }

  /** Open the card for `body` and fetch its numbers. @param {string} body */
  async open(body) {
    this.toggle(true);
    this.title.textContent = t('hydro.title_body', { body });
    this.summary.textContent = t('hydro.loading');
    this.summary.classList.remove('error');
    const api = new URL(`api/rooms/${encodeURIComponent(this.room)}/hydrodynamics`, window.location.href);
    api.searchParams.set('body', body);
    try {
      const reply = await fetch(api);
      const answer = await reply.json();
      if (!reply.ok) throw new Error(typeof answer.detail === 'string' ? answer.detail : reply.statusText);
      this.show(/** @type {Hydrodynamics} */ (answer));
    } catch (err) {
      this.data = null;
      this.summary.textContent = t('hydro.failed', { error: err instanceof Error ? err.message : String(err) });
      this.summary.classList.add('error');
    }
  }

  /** @param {Hydrodynamics} d */
  show(d) {
    this.data = d;
    this.pair = Math.max(0, d.pairs.findIndex(([i, j]) => i === 2 && j === 2)); // heave first: what floats bobs
    this.select.replaceChildren(...d.pairs.map((p, k) => Object.assign(document.createElement('option'), { value: String(k), textContent: pairName(p) })));
    this.select.value = String(this.pair);
    this.draw();
  }

  /** The selected pair's three charts and its summary line. */
  draw() {
    const d = this.data;
    if (!d) return;
    const k = this.pair;
    const unit = massUnit(d.pairs[k]);
    const error = { error: num(100 * d.error, 2), scale: `${sig(d.scale)} ${unit}/s`, states: d.states };
    const extra = [
      d.passive_damping[k] > 0 ? t('hydro.passive', { d: `${sig(d.passive_damping[k])} ${unit}/s` }) : '',
      d.extrapolated ? t('hydro.extrapolated') : '',
    ].filter(Boolean);
    this.summary.textContent = [t('hydro.summary', { ...error, inf: `${sig(d.infinite[k])} ${unit}` }), ...extra].join(' ');
    this.chart('A', d.omega, d.added_mass[k], d.fit_added_mass[k], 'ω (rad/s)', `${t('hydro.added_mass')} (${unit})`);
    this.chart('B', d.omega, d.damping[k], d.fit_damping[k], 'ω (rad/s)', `${t('hydro.damping')} (${unit}/s)`);
    const span = memorySpan(d.t, [d.kernel[k], d.fit_kernel[k]]);
    this.chart('K', d.t, d.kernel[k], d.fit_kernel[k], 't (s)', `${t('hydro.kernel')} (${unit}/s²)`, true, span);
  }

  /**
   * One chart: the file's values (dots, or a line for K(t)) and the fit's (a line).
   * @param {'A' | 'B' | 'K'} key @param {number[]} x @param {number[]} file @param {number[]} fit
   * @param {string} xLabel @param {string} yLabel @param {boolean} [fileLine]
   * @param {number} [xMax]  the end of the x axis shown (all of x when left out)
   */
  chart(key, x, file, fit, xLabel, yLabel, fileLine = false, xMax = undefined) {
    const cell = this.cell(key);
    this.charts[key]?.destroy();
    const dots = { width: 0, paths: () => null, points: { show: true, size: 4, fill: FILE } };
    /** @type {uPlot.Options} */
    const opts = {
      width: chartWidth(cell),
      height: 150,
      scales: { x: { time: false, ...(xMax === undefined ? {} : { range: /** @type {uPlot.Range.MinMax} */ ([x[0], xMax]) }) } },
      axes: [{ label: xLabel, size: 30, labelSize: 14 }, { label: yLabel, size: 64, labelSize: 14 }],
      legend: { show: false },
      cursor: { show: false },
      series: [
        {},
        { label: t('hydro.file'), stroke: FILE, ...(fileLine ? { width: 1.5 } : dots) },
        { label: t('hydro.fit'), stroke: FIT, width: 1.5 },
      ],
    };
    this.charts[key] = new uPlot(opts, [x, file, fit], cell);
  }
}
