// @ts-check
// Live plots (uPlot) of channels the user picks, fed from ring buffers of the state frames of
// one body and redrawn at most 30 times a second.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../core/i18n.js';

/**
 * A body's frame as the plots take it: the ghost run's distance from it added, if any.
 * @typedef {import('../net/messages.gen.js').BodyFrame & {GhostDiff?: import('../net/messages.gen.js').GhostDiff | null}} PlotFrame
 */

/**
 * A plot group: label, unit, series names, and how to read them from a body frame.
 * @typedef {Object} Channel
 * @property {string} label
 * @property {string} unit
 * @property {string[]} series
 * @property {(b: PlotFrame) => number[]} get
 * @property {boolean} [gaps]  NaN means "no value" (drawn as a gap: uPlot's null)
 */

const DEG = 180 / Math.PI;
/** @param {number[]} v */
const norm = (v) => Math.hypot(v[0], v[1], v[2]);

/**
 * The plot groups by key (the chooser's and the menus' values).
 * @type {Record<string, Channel>}
 */
export const CHANNELS = {
  Pos: { label: t('plots.ch.Pos'), unit: 'm', series: ['N', 'E', t('plots.s.down')], get: (b) => b.Pos },
  // NED's z points down: the height above the ground is −D
  Height: { label: t('plots.ch.Height'), unit: 'm', series: [t('plots.s.hPos'), t('plots.s.hCG')], get: (b) => [-b.Pos[2], -b.CGPos[2]] },
  Vel: { label: t('plots.ch.Vel'), unit: 'm/s', series: ['N', 'E', t('plots.s.down')], get: (b) => b.Vel },
  Euler: { label: t('plots.ch.Euler'), unit: '°', series: [t('plots.s.roll'), t('plots.s.pitch'), t('plots.s.yaw')], get: (b) => b.Euler.map((x) => x * DEG) },
  AngVel: { label: t('plots.ch.AngVel'), unit: 'rad/s', series: ['p (x)', 'q (y)', 'r (z)'], get: (b) => b.AngVel },
  OmegaGlobal: { label: t('plots.ch.OmegaGlobal'), unit: 'rad/s', series: ['N', 'E', 'D', '|ω|'],
    get: (b) => [...b.AngVelGlobal, norm(b.AngVelGlobal)] },
  Energy: { label: t('plots.ch.Energy'), unit: 'J', series: [t('plots.s.trans'), t('plots.s.rot'), t('plots.s.pot'), t('plots.s.total'), t('plots.s.stored')],
    get: (b) => [b.TranslationalEnergy, b.RotationalEnergy, b.PotentialEnergy, b.TotalEnergy, b.StoredEnergy] },
  AngularMomentum: { label: t('plots.ch.AngularMomentum'), unit: 'N·m·s', series: ['N', 'E', 'D', '|L|'],
    get: (b) => [...b.AngularMomentum, norm(b.AngularMomentum)] },
  // the water (issue 28): the hull's draft and the wave height at the CG (heel and trim are Euler's roll and pitch)
  Water: { label: t('water.plot.ch'), unit: 'm', series: [t('water.plot.draft'), t('water.plot.eta')], get: (b) => [b.Draft ?? 0, b.WaveElevation ?? 0] },
  // cables (issue 44): the force its cables put on the body (horizontal, and up: NED's z is
  // down), the largest tension along them; the length lying on the seabed
  Cable: { label: t('plots.ch.Cable'), unit: 'N', series: [t('plots.s.tension'), t('plots.s.horizontal'), t('plots.s.up')],
    get: (b) => [b.CableTension, Math.hypot(b.CableForce[0], b.CableForce[1]), -b.CableForce[2]] },
  Seabed: { label: t('plots.ch.Seabed'), unit: 'm', series: [t('plots.ch.Seabed')], get: (b) => [b.CableSeabedLength] },
  // a ghost run (Ghost run folder): how far its body is from the live one
  Ghost: { label: t('plots.ch.Ghost'), unit: 'm, °', series: [t('plots.s.dpos'), t('plots.s.angle')],
    get: (b) => (b.GhostDiff ? [b.GhostDiff.pos, b.GhostDiff.angle * DEG] : [0, 0]) },
  // the same distance on a log scale: chaos (a double pendulum beside its ghost) is a straight line
  Divergence: { label: t('plots.ch.Divergence'), unit: 'log₁₀ m', series: [t('plots.s.log_gap')], gaps: true,
    get: (b) => [b.GhostDiff && b.GhostDiff.pos > 0 ? Math.log10(b.GhostDiff.pos) : NaN] },
}; // prettier-ignore

/**
 * How far the scenario's own ghost of `body` is from it: the body named "Ghost" + its name (a
 * preset's twin started a hair away, as double_pendulum's), or null when it has none.
 * @param {import('../net/messages.gen.js').BodyFrame[]} bodies @param {import('../net/messages.gen.js').BodyFrame} body
 * @returns {import('../net/messages.gen.js').GhostDiff | null}
 */
export function twinDiff(bodies, body) {
  const twin = bodies.find((b) => b.Name === `Ghost${body.Name}`);
  if (!twin) return null;
  const [p, q] = [body.Pos, twin.Pos];
  const [a, c] = [body.Quater, twin.Quater];
  const dot = Math.abs(a[0] * c[0] + a[1] * c[1] + a[2] * c[2] + a[3] * c[3]) / Math.hypot(...a) / Math.hypot(...c);
  return { pos: Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]), angle: 2 * Math.acos(Math.min(1, dot)) };
}

const COLORS = ['#d0312d', '#2e9d4a', '#2660c9', '#222222', '#a15c00'];
/** Time windows a plot can show (s); the rings hold a minute. */
export const WINDOWS = [10, 30, 60];
const CAPACITY = 3600; // one minute of frames at 60 Hz
const HEIGHT = 190; // px, a whole chart: title, plot, t axis, legend
// px between y labels: uPlot's default 30 left a ~100 px plot one or two labels (only "0" for
// ±4 rad/s); at 18 it picks steps of 1, 2 or 5 that give 4 to 6 labels
const Y_SPACE = 18;

/**
 * y labels without float noise (0.30000000000000004) and with the decimals the step needs.
 * @type {uPlot.Axis.DynamicValues}
 */
function yValues(u, splits, axis, space, incr) {
  const d = Math.max(0, Math.min(6, -Math.floor(Math.log10(incr) + 1e-9)));
  return splits.map((v) => (Math.abs(v) < incr * 1e-6 ? '0' : v.toFixed(d)));
}

class Ring {
  /** @param {number} width  the number of series */
  constructor(width) {
    this.t = new Float64Array(CAPACITY);
    this.v = Array.from({ length: width }, () => new Float64Array(CAPACITY));
    this.n = 0;
    this.head = 0;
  }

  /** @param {number} t @param {number[]} values  one per series */
  push(t, values) {
    this.t[this.head] = t;
    values.forEach((x, i) => (this.v[i][this.head] = x));
    this.head = (this.head + 1) % CAPACITY;
    this.n = Math.min(this.n + 1, CAPACITY);
  }

  /** [t, series...] in time order, as uPlot wants them: the last `window` seconds. */
  ordered(window = Infinity) {
    let n = this.n;
    if (n > 0 && Number.isFinite(window)) {
      const newest = this.t[(this.head - 1 + CAPACITY) % CAPACITY];
      // binary search for the oldest sample inside the window (t rises along the ring)
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.t[(this.head - n + mid + CAPACITY) % CAPACITY] < newest - window) lo = mid + 1;
        else hi = mid;
      }
      n -= lo;
    }
    return this.slice(n);
  }

  /**
   * The newest `n` samples.
   * @param {number} n
   */
  slice(n) {
    const start = (this.head - n + CAPACITY) % CAPACITY;
    /** @param {Float64Array} a */
    const take = (a) => {
      if (start + n <= CAPACITY) return a.slice(start, start + n);
      const out = new Float64Array(n);
      out.set(a.subarray(start));
      out.set(a.subarray(0, this.head), CAPACITY - start);
      return out;
    };
    return [take(this.t), ...this.v.map(take)];
  }
}

export class Plots {
  /**
   * @param {HTMLElement} container  the grid the charts go in
   * @param {HTMLElement} chooser  where the window menu and a checkbox per channel go
   */
  constructor(container, chooser) {
    this.container = container;
    /** @type {Record<string, Ring>} */
    this.rings = Object.fromEntries(Object.entries(CHANNELS).map(([k, ch]) => [k, new Ring(ch.series.length)]));
    /** @type {Map<string, uPlot>} the charts shown, by channel */
    this.charts = new Map();
    this.lastDraw = 0;
    this.draws = 0; // redraws so far (tests wait for one after a change)
    this.dirty = false;
    this.chosen = new Set(['Pos', 'Energy']);
    this.window = 30; // s
    /** @type {string | null} the key of the chart shown big, or null */
    this.enlarged = null;
    /** @type {number | null} */
    this.marker = null; // a past moment the timeline shows (s), drawn as a vertical line
    const win = document.createElement('label');
    const select = document.createElement('select');
    select.id = 'plot-window';
    for (const w of WINDOWS) select.append(new Option(t('plots.last', { w }), String(w), w === this.window, w === this.window));
    select.addEventListener('change', () => {
      this.window = Number(select.value);
      this.dirty = true;
    });
    win.append(`${t('plots.window')} `, select);
    chooser.appendChild(win);
    for (const [key, ch] of Object.entries(CHANNELS)) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = this.chosen.has(key);
      box.dataset.channel = key;
      box.addEventListener('change', () => this.choose(key, box.checked));
      label.append(box, ` ${ch.label}`);
      chooser.appendChild(label);
    }
    new ResizeObserver(() => this.resize()).observe(container);
    window.addEventListener('keydown', (ev) => ev.key === 'Escape' && this.enlarged && this.enlarge(this.enlarged));
  }

  get open() {
    return !this.container.closest('[hidden]');
  }

  /** Plot the channel `key` or not. @param {string} key @param {boolean} on */
  choose(key, on) {
    if (on) this.chosen.add(key);
    else this.chosen.delete(key);
    const box = /** @type {HTMLInputElement|null} */ (document.querySelector(`#plot-chooser input[data-channel='${key}']`));
    if (box) box.checked = on;
    this.sync();
  }

  /** Create or remove charts to match the chosen channels, in the chooser's order. */
  sync() {
    for (const [key, chart] of this.charts) {
      if (!this.chosen.has(key) || !this.open) {
        // destroy() detaches uPlot's root from the cell, so the cell is removed by its own
        // reference: left behind it was an empty box holding a grid slot
        const cell = chart.root.parentElement ?? this.container.querySelector(`.plot-cell[data-channel='${key}']`);
        chart.destroy();
        cell?.remove();
        this.charts.delete(key);
      }
    }
    if (!this.open) return;
    for (const key of Object.keys(CHANNELS)) {
      if (!this.chosen.has(key)) continue;
      let chart = this.charts.get(key);
      if (!chart) {
        chart = this.make(key);
        this.charts.set(key, chart);
      }
      const cell = chart.root.parentElement; // make() put the chart in its cell
      if (cell) this.container.appendChild(cell); // keep CHANNELS order
    }
    this.resize();
    this.dirty = true;
  }

  /**
   * Show `to` instead of `from` in that chart's place (the chart's own quantity menu).
   * @param {string} from
   * @param {string} to
   */
  swap(from, to) {
    if (from === to) return;
    this.chosen.delete(from);
    this.chosen.add(to);
    for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#plot-chooser input[data-channel]'))) {
      box.checked = box.dataset.channel !== undefined && this.chosen.has(box.dataset.channel);
    }
    if (this.enlarged === from) this.enlarged = null;
    this.sync();
  }

  /**
   * Enlarge the chart of `key` to most of the window, or back (its key again).
   * @param {string} key
   */
  enlarge(key) {
    if (this.enlarged && this.enlarged !== key) this.charts.get(this.enlarged)?.root.parentElement?.classList.remove('enlarged');
    this.enlarged = this.enlarged === key ? null : key;
    const cell = this.charts.get(key)?.root.parentElement;
    cell?.classList.toggle('enlarged', this.enlarged === key);
    const button = cell?.querySelector('button');
    if (button) button.textContent = t(this.enlarged === key ? 'plots.back' : 'plots.enlarge');
    this.resize();
  }

  /**
   * A new chart of `key` in a new cell of the grid.
   * @param {string} key
   */
  make(key) {
    const ch = CHANNELS[key];
    const cell = document.createElement('div');
    cell.className = 'plot-cell';
    cell.dataset.channel = key;
    const head = document.createElement('div');
    head.className = 'plot-head';
    const select = document.createElement('select');
    select.setAttribute('aria-label', t('plots.quantity'));
    for (const [k, c] of Object.entries(CHANNELS)) select.append(new Option(c.label, k, k === key, k === key));
    select.addEventListener('change', () => this.swap(key, select.value));
    const big = document.createElement('button');
    big.type = 'button';
    big.textContent = t('plots.enlarge');
    big.addEventListener('click', () => this.enlarge(key));
    head.append(select, big);
    cell.appendChild(head);
    this.container.appendChild(cell);
    /** @type {uPlot.Options} */
    const opts = {
      title: `${ch.label} (${ch.unit})`,
      width: 320,
      height: HEIGHT,
      // a flat line gets a ±1 band instead of uPlot's default 0…100
      scales: { x: { time: false }, y: { range: (_u, lo, hi) => /** @type {uPlot.Range.MinMax} */ (hi - lo < 1e-9 ? [lo - 1, hi + 1] : uPlot.rangeNum(lo, hi, 0.1, true)) } },
      axes: [{ label: t('plots.t'), size: 30, labelSize: 14 }, { size: 58, space: Y_SPACE, values: yValues }],
      legend: { live: false },
      series: [{ label: 't' }, ...ch.series.map((s, i) => ({ label: s, stroke: COLORS[i], width: 1.6 }))],
      hooks: { draw: [(u) => this.drawMarker(u)] },
    };
    return new uPlot(opts, this.data(key), cell);
  }

  /**
   * Mark simulated time t (the past moment the timeline shows) on every chart, or none.
   * @param {number | null} t
   */
  setMarker(t) {
    if (t === this.marker) return;
    this.marker = t;
    this.dirty = true;
  }

  /**
   * The y-axis labels of the chart of `key` as last drawn, or null if it is not plotted (tests
   * read them). uPlot keeps them in the axis's `_values`, which its types do not declare.
   * @param {string} key
   * @returns {uPlot.Axis.StaticValues | null}
   */
  yLabels(key) {
    const axis = /** @type {(uPlot.Axis & {_values?: uPlot.Axis.StaticValues}) | undefined} */ (this.charts.get(key)?.axes[1]);
    return axis?._values ?? null;
  }

  /** @param {uPlot} u */
  drawMarker(u) {
    if (this.marker == null) return;
    const x = u.valToPos(this.marker, 'x', true);
    if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = '#b35c00';
    ctx.lineWidth = 2 * (window.devicePixelRatio || 1);
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.restore();
  }

  resize() {
    for (const [key, chart] of this.charts) {
      const w = chart.root.parentElement?.clientWidth ?? 320;
      const height = key === this.enlarged ? Math.max(HEIGHT, Math.round(window.innerHeight * 0.92) - 40) : HEIGHT;
      if (w > 50) chart.setSize({ width: w - 4, height });
    }
  }

  clear() {
    for (const key of Object.keys(CHANNELS)) this.rings[key] = new Ring(CHANNELS[key].series.length);
    this.dirty = true;
  }

  /**
   * What chart `key` shows: its ring's last window, a channel's NaN as uPlot's gap (null; a NaN
   * would make its scale NaN and the chart blank).
   * @param {string} key
   * @returns {uPlot.AlignedData}
   */
  data(key) {
    const [t, ...series] = this.rings[key].ordered(this.window);
    if (!CHANNELS[key].gaps) return [t, ...series];
    return [t, ...series.map((a) => Array.from(a, (v) => (Number.isFinite(v) ? v : null)))];
  }

  /**
   * Record one body frame at simulated time t.
   * @param {number} t
   * @param {PlotFrame} body
   */
  push(t, body) {
    for (const [key, ch] of Object.entries(CHANNELS)) this.rings[key].push(t, ch.get(body));
    this.dirty = true;
  }

  /**
   * Redraw if something changed and 1/30 s has passed since the last redraw.
   * @param {number} now  s
   */
  draw(now) {
    if (!this.dirty || now - this.lastDraw < 1 / 30 || this.charts.size === 0) return;
    this.lastDraw = now;
    this.dirty = false;
    this.draws += 1;
    for (const [key, chart] of this.charts) chart.setData(this.data(key));
  }
}
