// @ts-check
// The body's motion in words, for a polite live region: what it does, said when it changes
// and no faster than a listener can follow (at most one sentence every GAP_MS; a newer
// sentence replaces one still waiting, the same sentence is not said twice in a row).
//
// From the state frames of the selected body (received, not rendered, frames):
//   rest      |CGVel| and |AngVel| below REST for REST_S: "The body has come to rest." (on the
//             ground when the scenario has a ground element; floating, with its draft, when it
//             has buoyancy and the frame a Draft);
//   spin      |AngVel| above SPIN, ≥ 90 % of it about one body axis: "Spinning at … about x";
//   flip      a spin about the middle principal axis (of InertiaRadi) whose share of ω drops
//             below 85 %: "about to flip"; the middle component changing sign beyond ±½|ω|:
//             "It flipped over: flip n" (the page's flip counter's rule);
//   swing     ω along a fixed world axis reversing its sign, each half swing turning the body
//             by 1°–170° (not round and round), the last three half periods agreeing within
//             20 %: "Swinging, period T s" (T = twice the mean half period);
//   heel      at rest or slow, the roll angle steady beyond 3°: "Heeled 10° to starboard".
//
// From the hello: the water's waves (the largest component's amplitude, period and heading,
// and how many there are), said when they change and after the rest sentence: "In waves:
// amplitude 0.3 m, period 6 s, travelling north."

import { num, t } from '../core/i18n.js';

const GAP_MS = 2500;
const REST = 0.02; // m/s and rad/s
const REST_S = 1.0;
const SPIN = 0.3; // rad/s
const DEG = 180 / Math.PI;

/** @param {ArrayLike<number>} v */
const norm = (v) => Math.hypot(v[0], v[1], v[2]);

/** The eight compass points a wave travels towards (its direction: 0 north, 90 east). */
const HEADINGS = ['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'];

/**
 * The waves in words: the largest component's amplitude, period and heading, and how many
 * components there are; '' for none.
 * @param {readonly {amplitude: number, period: number, direction: number}[] | null | undefined} waves
 */
export function wavesText(waves) {
  if (!waves?.length) return '';
  const w = waves.reduce((a, b) => (b.amplitude > a.amplitude ? b : a));
  const to = HEADINGS[Math.round((((w.direction % 360) + 360) % 360) / 45) % 8];
  return t('describe.waves', { n: waves.length, amplitude: num(w.amplitude), period: num(w.period), to });
}

/**
 * @typedef {object} DescribeFrame  what the describer reads of a body frame
 * @property {number[]} CGVel
 * @property {number[]} AngVel  body frame, rad/s
 * @property {number[]} AngVelGlobal  NED, rad/s
 * @property {number[]} Euler  roll, pitch, yaw, rad
 * @property {number[]} CGPos
 * @property {number} [Draft]  m below the water surface; 0 clear of the water
 */

/**
 * @typedef {{t: number, w: number[]}} Sample  a frame's simulated time and world ω
 * @typedef {{reversal: {t: number, angle: number}, axis: number, around: Sample[]}} Crossing
 */

/**
 * Where ω about `axis` crosses zero between samples 1 and 2 of four (their signs differ there):
 * the zero of the cubic through all four, by bisection. For a swing sampled four to six
 * times a period, 3-5 times closer to the true crossing than the line through samples 1 and 2.
 * @param {Sample[]} four @param {number} axis
 */
function cubicZero(four, axis) {
  const ts = four.map((p) => p.t);
  const vs = four.map((p) => p.w[axis]);
  /** @param {number} x */
  const cubic = (x) => {
    let sum = 0;
    for (let i = 0; i < 4; i++) {
      let l = vs[i];
      for (let j = 0; j < 4; j++) if (j !== i) l *= (x - ts[j]) / (ts[i] - ts[j]);
      sum += l;
    }
    return sum;
  };
  let [lo, hi, fLo] = [ts[1], ts[2], vs[1]];
  for (let k = 0; k < 50; k++) {
    const mid = 0.5 * (lo + hi);
    const f = cubic(mid);
    if (fLo * f <= 0) hi = mid;
    else [lo, fLo] = [mid, f];
  }
  return 0.5 * (lo + hi);
}

export class Describer {
  /** @param {HTMLElement} el  the live region (aria-live=polite) */
  constructor(el) {
    this.el = el;
    this.enabled = true;
    /** at most one sentence this often, ms (the tests shorten it: __sixdof.describer) */
    this.gapMs = GAP_MS;
    this.lastSaid = '';
    this.lastAt = -Infinity;
    /** @type {string | null} a sentence waiting for its turn */
    this.pending = null;
    this.pendingEvent = false; // it tells an event
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** the motion now, in words (the summary's last line) */
    this.motion = '';
    this.ground = false;
    this.floating = false;
    this.waves = ''; // the water's waves in words, '' without
    this.middle = -1; // the body axis of the middle principal inertia, or -1
    /** @type {number | null} */ this.stillSince = null;
    this.state = ''; // the motion said last
    this.flipArmed = false;
    this.flipSign = 0;
    this.flips = 0;
    /** swing: decayed ∫ω² dt per world axis (the axis of the largest one is watched) */
    this.omega2 = [0, 0, 0];
    /** @type {{t: number, angle: number}[]} the last reversals of ω about that axis */
    this.reversals = [];
    this.swingSign = 0;
    this.swingAngle = 0; // rad turned since the last reversal
    this.lastW = [0, 0, 0]; // the previous frame's world ω, to place a reversal between frames
    /** @type {Sample[]} the two frames before this one (t, world ω) */
    this.recent = [];
    /** @type {Crossing | null} the last reversal, placed again once the frame after it comes */
    this.crossing = null;
    this.lastT = NaN;
    this.period = NaN;
    this.saidPeriod = NaN;
    this.restart(null, false);
  }

  /**
   * A new scenario or a jump: forget the motion seen so far.
   * @param {number[] | null} inertiaRadi  the body's, to find its middle axis
   * @param {boolean} ground  the scenario has a ground
   * @param {boolean} [floating]  it has buoyancy
   */
  restart(inertiaRadi, ground, floating = this.floating) {
    this.ground = ground;
    this.floating = floating;
    const r = inertiaRadi ?? [1, 1, 1];
    // I_k ∝ r_k²: the middle axis is the one whose radius is neither the largest nor the smallest
    const order = [0, 1, 2].sort((a, b) => r[a] - r[b]);
    this.middle = r[order[0]] !== r[order[1]] && r[order[1]] !== r[order[2]] ? order[1] : -1;
    this.stillSince = null;
    this.state = '';
    this.flipArmed = false;
    this.flipSign = 0;
    this.flips = 0;
    this.omega2 = [0, 0, 0];
    this.reversals = [];
    this.swingSign = 0;
    this.swingAngle = 0;
    this.lastW = [0, 0, 0];
    this.recent = [];
    this.crossing = null;
    this.lastT = NaN;
    this.period = NaN;
    this.saidPeriod = NaN;
  }

  /**
   * The water's waves from a hello: said when they change (not for every hello), and after
   * the rest sentence while there are waves.
   * @param {Parameters<typeof wavesText>[0]} waves
   */
  water(waves) {
    const text = wavesText(waves);
    if (text === this.waves) return;
    this.waves = text;
    if (text) this.say(text, true);
  }

  /**
   * Say `text` when the pace allows (now, or once GAP_MS have passed since the last); an
   * `event` (a flip, coming to rest) waiting for its turn is not replaced by a plain motion.
   * @param {string} text @param {boolean} [event]
   */
  say(text, event = false) {
    if (!this.enabled || !text) return;
    if (text === this.lastSaid && this.pending === null) return;
    const wait = this.lastAt + this.gapMs - performance.now();
    if (wait <= 0) return this.speak(text);
    if (this.pendingEvent && !event) return;
    this.pending = text;
    this.pendingEvent = event;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), wait);
  }

  flush() {
    this.timer = undefined;
    const text = this.pending;
    this.pending = null;
    this.pendingEvent = false;
    if (text && text !== this.lastSaid) this.speak(text);
  }

  /** @param {string} text */
  speak(text) {
    this.lastSaid = text;
    this.lastAt = performance.now();
    this.el.textContent = text;
  }

  /** @param {boolean} running */
  running(running) {
    this.say(t(running ? 'describe.now.running' : 'describe.now.paused'));
  }

  /**
   * Follow one received frame of the selected body.
   * @param {number} time  simulated s
   * @param {DescribeFrame} b
   */
  frame(time, b) {
    const dt = Number.isFinite(this.lastT) ? time - this.lastT : 0;
    this.lastT = time;
    if (dt < 0) this.restart(null, this.ground); // went back in time
    if (dt <= 0) return;
    const speed = norm(b.CGVel);
    const omega = norm(b.AngVel);
    this.flip(b, omega);
    const swinging = this.swing(b, dt);
    if (speed < REST && omega < REST) {
      this.stillSince ??= time;
      if (time - this.stillSince >= REST_S) this.enter('rest', this.restText(b), false, true);
      return;
    }
    this.stillSince = null;
    if (swinging) return this.enter('swing', t('describe.swing', { period: num(this.period, 2) }), true);
    const about = b.AngVel.map((w) => Math.abs(w) / (omega || 1));
    const axis = about.findIndex((x) => x >= 0.9);
    if (omega > SPIN && axis >= 0 && !(this.flipArmed && axis === this.middle)) {
      return this.enter(`spin${axis}`, t('describe.spinning', { omega: num(omega, 1), axis: t(`describe.axis.${'xyz'[axis]}`) }));
    }
    if (omega <= SPIN && speed > REST) {
      const down = b.CGVel[2]; // NED: positive is falling
      if (Math.abs(down) > 0.8 * speed) return this.enter(down > 0 ? 'fall' : 'rise', t(down > 0 ? 'describe.falling' : 'describe.rising', { speed: num(speed, 1) }));
    }
    this.motion = t('describe.moving', { speed: num(speed, 1), omega: num(omega, 1) });
  }

  /** The words for a body at rest: on the ground, afloat or neither, heeled or not. @param {DescribeFrame} b */
  restText(b) {
    const afloat = this.floating && (b.Draft ?? 0) > 0;
    const rest = afloat ? t('describe.rest.floating', { draft: num(b.Draft ?? 0, 2) }) : t(this.ground ? 'describe.rest.ground' : 'describe.rest');
    const roll = b.Euler[0] * DEG;
    const heel = Math.abs(roll) >= 3 ? ` ${t('describe.heel', { deg: num(Math.abs(roll), 0), side: roll > 0 ? 'starboard' : 'port' })}` : '';
    return `${rest}${heel}${this.waves ? ` ${this.waves}` : ''}`;
  }

  /**
   * A new state: say it once (again only after another state came between); `update`: a
   * state whose words change (the swing's period) says them when they change by 10 %.
   * @param {string} state @param {string} text @param {boolean} [update] @param {boolean} [event]
   */
  enter(state, text, update = false, event = false) {
    this.motion = text;
    if (state === this.state && !update) return;
    if (state === this.state && update && Math.abs(this.period - this.saidPeriod) < 0.1 * this.period) return;
    this.state = state;
    if (update) this.saidPeriod = this.period;
    this.say(text, event);
  }

  /**
   * The tennis racket: a spin about the middle axis is unstable. Armed while ≥ 95 % of ω is
   * about it; "about to flip" once its share falls below 85 %; the flip when the middle
   * component has changed sign beyond ±½|ω|.
   * @param {DescribeFrame} b @param {number} omega
   */
  flip(b, omega) {
    const k = this.middle;
    if (k < 0 || omega < SPIN) return;
    const w = b.AngVel[k];
    const share = Math.abs(w) / omega;
    if (share >= 0.95) {
      if (!this.flipArmed && this.flipSign === 0) this.flipSign = Math.sign(w);
      this.flipArmed = true;
    }
    if (this.flipArmed && share < 0.85 && this.state !== 'flipsoon') {
      this.state = 'flipsoon';
      this.motion = t('describe.flip.soon');
      this.say(this.motion, true);
    }
    if (this.flipSign !== 0 && w * this.flipSign < -0.5 * omega) {
      this.flipSign = -this.flipSign;
      this.flips += 1;
      this.flipArmed = false;
      this.state = 'flipped';
      this.say(t('describe.flip', { n: this.flips }), true);
    }
  }

  /**
   * Whether the body swings: ω along the world axis that carries most of it reverses, each
   * half swing turning by 1°–170°, the last three half periods within 20 % of their mean.
   * @param {DescribeFrame} b @param {number} dt
   */
  swing(b, dt) {
    const w = b.AngVelGlobal;
    const decay = Math.exp(-dt / 10); // remembers ~10 s
    for (let i = 0; i < 3; i++) this.omega2[i] = this.omega2[i] * decay + w[i] * w[i] * dt;
    const axis = this.omega2.indexOf(Math.max(...this.omega2));
    const s = w[axis];
    const before = this.lastW[axis];
    this.lastW = [w[0], w[1], w[2]];
    const now = { t: this.lastT, w: this.lastW };
    if (this.crossing) {
      this.crossing.reversal.t = cubicZero([...this.crossing.around, now], this.crossing.axis);
      this.crossing = null;
    }
    this.swingAngle += s * dt;
    const sign = Math.abs(s) > 1e-3 ? Math.sign(s) : 0;
    if (sign !== 0 && sign !== this.swingSign) {
      // ω crossed zero between the last frame and this one, placed first by linear
      // interpolation and, once the next frame has come, on the cubic through the two frames
      // before the crossing and the two after: the period then barely depends on how many
      // frames arrive (fewer on a loaded machine or a slow network)
      const at = before * s < 0 ? this.lastT - (dt * s) / (s - before) : this.lastT;
      if (this.swingSign !== 0) {
        const reversal = { t: at, angle: Math.abs(this.swingAngle) * DEG };
        this.reversals.push(reversal);
        if (before * s < 0 && this.recent.length === 2) this.crossing = { reversal, axis, around: [...this.recent, now] };
      }
      this.swingSign = sign;
      this.swingAngle = 0;
      if (this.reversals.length > 4) this.reversals.shift();
    }
    this.recent.push(now);
    if (this.recent.length > 2) this.recent.shift();
    const r = this.reversals;
    if (r.length < 4 || this.lastT - r[r.length - 1].t > 3 * (r[3].t - r[0].t)) return false;
    const halves = [r[1].t - r[0].t, r[2].t - r[1].t, r[3].t - r[2].t];
    const mean = (halves[0] + halves[1] + halves[2]) / 3;
    const steady = halves.every((h) => Math.abs(h - mean) <= 0.2 * mean);
    const bounded = r.slice(1).every((x) => x.angle >= 1 && x.angle <= 170);
    if (!steady || !bounded) return false;
    this.period = 2 * mean;
    return true;
  }
}
