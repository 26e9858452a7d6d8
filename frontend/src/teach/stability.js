// @ts-check
// Why the middle axis is unstable, on screen (issue 31): for the selected body, the
// eigenvalues of its spin linearised about each principal axis at its current rate |ω|,
// rewritten as inertia is tuned (every hello) and as it spins; and, for presets that count
// flips, the measured flip period beside the exact one, 2K(m)/λ.
//
// The same numbers as the Python side: backend/sixdof/dynamics/stability.py (the state
// Jacobian's ω block has eigenvalues 0 and ±ω0 √((I_i − I_j)(I_k − I_i)/(I_j I_k))) and
// dynamics/exact.py (flip interval); tests/browser/test_stability.py compares them.

import { num, t } from '../core/i18n.js';
import { FLIP_LEVEL } from '../net/protocol.gen.js';

const TEXT_HZ = 2;

/**
 * The inertia tensor about the CG of a body spec: its Inertia entries if given, else
 * diag(m rx², m ry², m rz²) from InertiaRadi (as BodySpec.params does).
 * @param {import('../net/messages.gen.js').BodySpec} spec
 * @returns {number[][]}
 */
export function inertiaTensor(spec) {
  const e = spec.Inertia;
  if (e) return [[e[0], e[3], e[4]], [e[3], e[1], e[5]], [e[4], e[5], e[2]]];
  const m = spec.Mass;
  const r = spec.InertiaRadi;
  return [[m * r[0] ** 2, 0, 0], [0, m * r[1] ** 2, 0], [0, 0, m * r[2] ** 2]];
}

/**
 * Eigenvalues (ascending) and unit eigenvectors (vectors[i] for values[i]) of a symmetric
 * 3×3 matrix, by cyclic Jacobi rotations (converges to rounding in a few sweeps).
 * @param {number[][]} matrix
 */
export function symmetricEigen(matrix) {
  const a = matrix.map((row) => row.slice());
  const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2;
    if (off <= 1e-30 * (a[0][0] ** 2 + a[1][1] ** 2 + a[2][2] ** 2)) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]]) {
      if (a[p][q] === 0) continue;
      const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
      const tan = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(tan * tan + 1);
      const s = tan * c;
      for (let k = 0; k < 3; k++) { // A ← A J (columns p, q)
        const akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) { // A ← Jᵀ A (rows p, q)
        const apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) { // V ← V J
        const vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
      }
    }
  }
  const order = [0, 1, 2].sort((i, j) => a[i][i] - a[j][j]);
  return {
    values: order.map((i) => a[i][i]),
    vectors: order.map((i) => [v[0][i], v[1][i], v[2][i]]),
  };
}

/**
 * @typedef {{moment: number, axis: number[], kind: 'unstable' | 'oscillating' | 'neutral',
 *   rate: number, doubling: number | null, period: number | null}} AxisInfo
 */

/**
 * The linearised spin about each principal axis (ascending moments) at `omega` rad/s.
 * @param {number[]} moments  ascending
 * @param {number[][]} axes   unit vectors, body axes
 * @param {number} omega
 * @returns {AxisInfo[]}
 */
export function axisStability(moments, axes, omega) {
  return [0, 1, 2].map((i) => {
    const [j, k] = [(i + 1) % 3, (i + 2) % 3];
    const square = omega * omega * (moments[i] - moments[j]) * (moments[k] - moments[i]) / (moments[j] * moments[k]);
    const rate = Math.sqrt(Math.abs(square));
    const zero = 1e-9 * omega;
    /** @type {AxisInfo['kind']} */
    const kind = rate <= zero ? 'neutral' : square > 0 ? 'unstable' : 'oscillating';
    return {
      moment: moments[i], axis: axes[i], kind, rate,
      doubling: kind === 'unstable' ? Math.LN2 / rate : null,
      period: kind === 'oscillating' ? 2 * Math.PI / rate : null,
    };
  });
}

/** K(m) = π / (2 AGM(1, √(1 − m))), the complete elliptic integral of the first kind. @param {number} m */
export function ellipK(m) {
  if (m >= 1) return Infinity;
  let a = 1;
  let b = Math.sqrt(1 - m);
  for (let i = 0; i < 40 && Math.abs(a - b) > 1e-16 * a; i++) [a, b] = [(a + b) / 2, Math.sqrt(a * b)];
  return Math.PI / (a + b);
}

/**
 * The time between two flips of a torque-free body, 2K(m)/λ (dynamics/exact.py), from its
 * principal moments (ascending), axes and angular velocity (body axes); Infinity for a
 * steady spin.
 * @param {number[]} moments
 * @param {number[][]} axes
 * @param {number[]} w
 */
export function flipInterval(moments, axes, w) {
  let I = moments.slice();
  let c = axes.map((e) => e[0] * w[0] + e[1] * w[1] + e[2] * w[2]);
  const d2 = I[0] * c[0] ** 2 * (I[1] - I[0]) + I[2] * c[2] ** 2 * (I[1] - I[2]);
  if (d2 > 0) { // the polhode circles the smallest moment's axis: turn the axes end for end
    I = [I[2], I[1], I[0]];
    c = [c[2], -c[1], c[0]];
  }
  const d3 = I[0] * c[0] ** 2 * (I[2] - I[0]) + I[1] * c[1] ** 2 * (I[2] - I[1]);
  const d1 = I[1] * c[1] ** 2 * (I[1] - I[0]) + I[2] * c[2] ** 2 * (I[2] - I[0]);
  if (d3 === 0 || (I[2] - I[1]) === 0) return Infinity;
  const rate = Math.sqrt(Math.abs((I[2] - I[1]) * d1 / (I[0] * I[1] * I[2])));
  const m = Math.min(1, (I[1] - I[0]) * d3 / ((I[2] - I[1]) * d1));
  return rate > 0 ? 2 * ellipK(m) / rate : Infinity;
}

const AXIS_NAMES = ['x', 'y', 'z'];

/** @param {number[]} axis  the name of a body axis it lies along, else its components */
function axisName(axis) {
  const k = axis.findIndex((a) => Math.abs(Math.abs(a) - 1) < 1e-9);
  return k >= 0 ? AXIS_NAMES[k] : `(${axis.map((a) => num(a, 2)).join(', ')})`;
}

export class StabilityView {
  /**
   * @param {HTMLElement} after  the flip counter: the flip period goes under it
   */
  constructor(after) {
    const box = document.createElement('details');
    box.id = 'stability';
    Object.assign(box.style, {
      position: 'absolute', right: '10px', bottom: '66px', maxWidth: '330px', padding: '6px 10px',
      background: 'var(--card)', border: '1px solid var(--line)', borderRadius: '8px', fontSize: '13px',
    });
    const summary = document.createElement('summary');
    summary.textContent = t('stability.title');
    this.list = document.createElement('ol');
    this.list.style.margin = '4px 0 0';
    this.list.style.paddingLeft = '18px';
    box.append(summary, this.list);
    after.parentElement?.append(box);
    this.box = box;
    this.period = document.createElement('div');
    this.period.id = 'flip-period';
    Object.assign(this.period.style, {
      position: 'absolute', left: '50%', bottom: '40px', transform: 'translateX(-50%)', fontSize: '14px',
      padding: '2px 10px', background: 'var(--card)', borderRadius: '6px', pointerEvents: 'none',
    });
    this.period.hidden = true;
    after.insertAdjacentElement('afterend', this.period);
    /** @type {{values: number[], vectors: number[][]} | null} */
    this.eigen = null;
    /** @type {number | null} */
    this.flipAxis = null;
    this.level = 0;
    this.sign = 1;
    /** @type {number[]} simulated times of the flips counted */
    this.flips = [];
    /** @type {[number, number] | null} the last frame's simulated time and spin about the flip axis */
    this.before = null;
    this.lastText = -Infinity;
    this.initial = 0;
  }

  /**
   * A hello: the selected body's spec (inertia may have been tuned) and the preset.
   * @param {import('../net/messages.gen.js').BodySpec | null | undefined} spec
   * @param {import('../net/messages.gen.js').PresetInfo | undefined} preset
   */
  restart(spec, preset) {
    this.eigen = spec ? symmetricEigen(inertiaTensor(spec)) : null;
    this.flipAxis = preset?.flip_axis ?? null;
    this.initial = this.flipAxis === null ? 0 : (spec?.AngVel?.[this.flipAxis] ?? 0);
    this.period.hidden = this.flipAxis === null;
    this.discontinuity();
  }

  /** A reset or a jump: the flip times start again. */
  discontinuity() {
    this.level = FLIP_LEVEL * Math.abs(this.initial);
    this.sign = this.initial >= 0 ? 1 : -1;
    this.flips = [];
    this.before = null;
    this.lastText = -Infinity;
  }

  /**
   * When the spin passed the flip level, between the frame before and this one (linear): the
   * frames a slow or busy page receives are far apart (a frame every 1/10 s at time scale 2 is
   * 0.2 s of simulated time), and the first frame past the level would put each flip late by
   * up to that much.
   * @param {number} time  this frame's, s
   * @param {number} spin  this frame's, about the flip axis (past the level)
   */
  crossing(time, spin) {
    if (!this.before || this.before[0] >= time) return time;
    const [t0, spin0] = this.before;
    // this.sign is already the side it flipped to: past the level where -sign·spin > level
    const past0 = -this.sign * spin0 + this.level; // > 0: the frame before had not passed it
    const past1 = -this.sign * spin + this.level; // < 0
    return past0 > 0 ? t0 + ((time - t0) * past0) / (past0 - past1) : time;
  }

  /**
   * Every received frame of the selected body.
   * @param {number} time  simulated, s
   * @param {import('../net/messages.gen.js').BodyFrame | null | undefined} body
   */
  frame(time, body) {
    if (!body || !this.eigen) return;
    const w = body.AngVel;
    if (this.flipAxis !== null && this.level > 0) {
      const spin = w[this.flipAxis];
      if (spin * this.sign < -this.level) {
        this.sign = -this.sign; // the flip counter's rule (energy.js FlipCounter)
        this.flips.push(this.crossing(time, spin));
      }
      this.before = [time, spin];
    }
    const now = performance.now();
    if (now - this.lastText < 1000 / TEXT_HZ) return;
    this.lastText = now;
    const omega = Math.hypot(w[0], w[1], w[2]);
    const { values, vectors } = this.eigen;
    const rows = axisStability(values, vectors, omega).map((a) => {
      const axis = axisName(a.axis);
      const moment = num(a.moment, 4);
      if (a.kind === 'unstable') {
        return t('stability.unstable', { axis, moment, rate: num(a.rate, 4), doubling: num(/** @type {number} */ (a.doubling), 3) });
      }
      if (a.kind === 'oscillating') {
        return t('stability.oscillating', { axis, moment, rate: num(a.rate, 4), period: num(/** @type {number} */ (a.period), 3) });
      }
      return t('stability.neutral', { axis, moment });
    });
    this.list.replaceChildren(...rows.map((text, i) => {
      const li = document.createElement('li');
      li.textContent = text;
      li.dataset.kind = axisStability(values, vectors, omega)[i].kind;
      return li;
    }));
    if (this.flipAxis !== null) {
      const exact = flipInterval(values, vectors, w);
      const n = this.flips.length;
      const measured = n >= 2 ? (this.flips[n - 1] - this.flips[0]) / (n - 1) : null;
      this.period.dataset.exact = String(exact);
      this.period.dataset.measured = measured === null ? '' : String(measured);
      this.period.textContent = t('flips.period', {
        measured: measured === null ? '…' : num(measured, 3),
        exact: Number.isFinite(exact) ? num(exact, 3) : '∞',
      });
    }
  }
}
