// @ts-check
// Show → Energy: bars for the kinetic energy of translation (½ m |v_CG|²) and of rotation
// (½ ωᵀ I ω), the potential energy, what the body's elements store (springs, the ground's
// contact, the water's hydrostatic potential, an added mass; its row shows once it is not
// zero) and their total, all of one body, and what the body has radiated into the water
// (its radiation elements' work, outside the total; shown once it is not zero), and the total's drift
// since the last reset as a number. Torque- and force-free, the exact total is constant:
// the drift is the integrator's error, so switching Euler ↔ RK4 or the step shows in it.
// With joints (issue 41), a line under it: how far the joints have come apart, the largest
// gap now over the bodies (m and rad, the server's JointGap and JointGapAngle) and the largest
// since the last reset: drift removed by projection, measured, not hidden.
// Also here: the flip counter of the presets that count flips.

import { FLIP_LEVEL } from '../net/protocol.gen.js';
import { num, t } from '../core/i18n.js';

/** @type {Array<[string, string, 'TranslationalEnergy' | 'RotationalEnergy' | 'PotentialEnergy' | 'StoredEnergy' | 'TotalEnergy' | 'RadiatedEnergy']>} key, label, the frame's field */
const ROWS = [
  ['trans', t('energy.trans'), 'TranslationalEnergy'],
  ['rot', t('energy.rot'), 'RotationalEnergy'],
  ['pot', t('energy.pot'), 'PotentialEnergy'],
  ['stored', t('energy.stored'), 'StoredEnergy'],
  ['total', t('energy.total'), 'TotalEnergy'],
  // not in the total: the work done on the water by a radiation element (issue 43)
  ['radiated', t('energy.radiated'), 'RadiatedEnergy'],
];

/** A body frame with its joints' gaps (0 without joints). @typedef {import('../net/messages.gen.js').BodyFrame & {JointGap?: number, JointGapAngle?: number}} JointedFrame */

/** A small positive number with an exponent ("1.2E-12"), or "0". @param {number} x */
const tiny = (x) => (x === 0 ? '0' : num(x, null, { notation: 'scientific', maximumFractionDigits: 1 }));

/**
 * A number in J with 4 significant digits (or an exponent when tiny).
 * @param {number} x
 */
function joules(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0 J';
  if (a < 1e-3 || a >= 1e5) return `${num(x, null, { notation: 'scientific', maximumFractionDigits: 2 })} J`;
  return `${num(x, null, { maximumSignificantDigits: 4, minimumSignificantDigits: 4 })} J`;
}

export class EnergyBars {
  /** @param {HTMLElement} el  the #energy box */
  constructor(el) {
    this.el = el;
    /** @type {Record<string, {row: HTMLElement, bar: HTMLElement, value: HTMLElement, shownWidth: number, shownLeft: number}>} */
    this.rows = {};
    const table = document.createElement('div');
    table.className = 'energy-rows';
    for (const [key, label] of ROWS) {
      const row = document.createElement('div');
      row.className = `energy-row ${key}`;
      const name = Object.assign(document.createElement('span'), { className: 'energy-name', textContent: label });
      const track = Object.assign(document.createElement('span'), { className: 'energy-track' });
      const bar = Object.assign(document.createElement('i'), { className: 'energy-bar' });
      track.append(bar);
      const value = Object.assign(document.createElement('span'), { className: 'energy-value' });
      row.append(name, track, value);
      table.append(row);
      this.rows[key] = { row, bar, value, shownWidth: -1, shownLeft: -1 };
    }
    this.drift = Object.assign(document.createElement('div'), { className: 'energy-drift' });
    this.joints = Object.assign(document.createElement('div'), { className: 'energy-drift energy-joints', hidden: true });
    el.append(Object.assign(document.createElement('div'), { className: 'energy-title', textContent: t('energy.title') }), table, this.drift, this.joints);
    /** the joints' largest gap now (m, rad) and since the last reset (m); null: no joints */
    this.gap = /** @type {{m: number, rad: number, worst: number} | null} */ (null);
    /** @type {number | null} the total at the last reset */
    this.reference = null;
    this.range = 0; // J: the largest |value| since the last reset, the bars' full width
    this.lastDrift = NaN;
    this.rows.stored.row.hidden = true;
    this.rows.radiated.row.hidden = true;
    /** @type {number | null} Σ TotalEnergy over the bodies of the latest frame, when more than one */
    this.systemTotal = null;
  }

  /**
   * All bodies of a received frame: with several, the drift is of their summed total (a
   * spring or the water moves energy between them; its stored part is counted once, on
   * the spring's first body).
   * @param {import('../net/messages.gen.js').BodyFrame[]} bodies
   */
  system(bodies) {
    if (bodies.length < 2) {
      this.systemTotal = null;
      return;
    }
    let sum = 0;
    for (let k = 0; k < bodies.length; k++) sum += bodies[k].TotalEnergy;
    this.systemTotal = sum;
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.el.hidden = !on;
  }

  /** Start counting the drift again (a reset, a new scenario, a changed parameter). */
  restart() {
    this.reference = null;
    this.systemTotal = null;
    this.range = 0;
    this.rows.stored.row.hidden = true; // until a frame says the elements store something
    this.rows.radiated.row.hidden = true; // until a frame says the body radiates
    if (this.gap) this.gap.worst = 0;
  }

  /**
   * The joints' gaps in a received frame (every body's: a joint's gap is on its `body`).
   * @param {import('../net/messages.gen.js').BodyFrame[]} bodies @param {boolean} joints  the scenario has joints
   */
  jointGaps(bodies, joints) {
    const first = /** @type {JointedFrame | undefined} */ (bodies[0]);
    if (!joints || first?.JointGap === undefined) {
      this.gap = null;
      return;
    }
    let m = 0;
    let rad = 0;
    for (let k = 0; k < bodies.length; k++) {
      const b = /** @type {JointedFrame} */ (bodies[k]);
      m = Math.max(m, b.JointGap ?? 0);
      rad = Math.max(rad, b.JointGapAngle ?? 0);
    }
    this.gap ??= { m: 0, rad: 0, worst: 0 };
    this.gap.m = m;
    this.gap.rad = rad;
    this.gap.worst = Math.max(this.gap.worst, m);
  }

  /**
   * Follow a body frame; `labels`: rewrite the numbers now (a few times a second).
   * @param {import('../net/messages.gen.js').BodyFrame | null | undefined} body
   * @param {boolean} labels
   */
  update(body, labels) {
    if (this.el.hidden || !body) return;
    const total = this.systemTotal ?? body.TotalEnergy;
    this.reference ??= total;
    const reference = this.reference;
    if (body.StoredEnergy !== 0 && this.rows.stored.row.hidden) this.rows.stored.row.hidden = false;
    if (body.RadiatedEnergy && this.rows.radiated.row.hidden) this.rows.radiated.row.hidden = false;
    // index loops: destructuring in for-of would allocate an iterator every frame
    for (let k = 0; k < ROWS.length; k++) this.range = Math.max(this.range, Math.abs(body[ROWS[k][2]]));
    const range = this.range || 1;
    for (let k = 0; k < ROWS.length; k++) {
      const row = this.rows[ROWS[k][0]];
      const x = body[ROWS[k][2]];
      // bars grow from a zero line in the middle: potential energy can be negative
      const width = Math.round((Math.min(1, Math.abs(x) / range) * 50) * 10) / 10;
      const left = x < 0 ? 50 - width : 50;
      if (width !== row.shownWidth || left !== row.shownLeft) {
        row.bar.style.width = `${width}%`;
        row.bar.style.left = `${left}%`;
        row.shownWidth = width;
        row.shownLeft = left;
      }
      if (labels) row.value.textContent = joules(x);
    }
    if (labels) {
      const drift = total - reference;
      this.lastDrift = drift;
      const percent = (100 * drift) / Math.abs(reference);
      // below 0.001 % in scientific notation: "-1.8E-10 %", not "-0.00000000018 %"
      const style = percent !== 0 && Math.abs(percent) < 1e-3 ? { notation: /** @type {const} */ ('scientific'), maximumFractionDigits: 1 } : { maximumSignificantDigits: 2 };
      const rel = Math.abs(reference) > 1e-12 ? ` (${num(percent, null, style)} %)` : '';
      const shown = drift === 0 ? '0' : num(drift, null, { notation: 'scientific', maximumFractionDigits: 2 });
      this.drift.textContent = t(this.systemTotal === null ? 'energy.drift' : 'energy.driftAll', { drift: shown, rel });
      const gap = this.gap;
      this.joints.hidden = !gap;
      if (gap) this.joints.textContent = t('energy.joints', { m: tiny(gap.m), rad: tiny(gap.rad), worst: tiny(gap.worst) });
    }
  }
}

/**
 * Counts flips the way sixdof.teaching.count_flips does: the AngVel component about `axis`
 * (body) crossing from beyond +FLIP_LEVEL·|ω₀| to beyond −FLIP_LEVEL·|ω₀| or back.
 */
export class FlipCounter {
  /** @param {HTMLElement} el */
  constructor(el) {
    this.el = el;
    /** @type {number | null} the body axis counted on (0, 1, 2), or none */
    this.axis = null;
    this.level = 0;
    this.sign = 1;
    this.count = 0;
    this.initial = 0;
  }

  /**
   * Count on `axis` (0, 1, 2) from the initial component `initial`; null: no counter.
   * @param {number | null} axis
   * @param {number} initial
   */
  start(axis, initial) {
    this.axis = axis;
    this.initial = initial;
    this.restart();
    this.el.hidden = axis === null;
  }

  restart() {
    this.level = FLIP_LEVEL * Math.abs(this.initial);
    this.sign = this.initial >= 0 ? 1 : -1;
    this.count = 0;
    this.show();
  }

  /** @param {import('../net/messages.gen.js').BodyFrame | null | undefined} body */
  update(body) {
    if (this.axis === null || !body || !(this.level > 0)) return;
    if (body.AngVel[this.axis] * this.sign < -this.level) {
      this.sign = -this.sign;
      this.count += 1;
      this.show();
    }
  }

  show() {
    this.el.textContent = t('flips.count', { n: this.count });
  }
}
