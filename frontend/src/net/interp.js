// @ts-check
// State frames arrive at the server's frame rate (60 Hz) with network jitter; the page renders at
// the display's rate. This buffer plays the frames back on a smooth clock a little behind the
// newest one and interpolates between the two frames around the playhead: positions linearly,
// orientations by slerp. The clock runs in units of frames (seq), so jitter in arrival times does
// not show as jitter in motion.

import { Quaternion } from 'three';
import { quatFromWxyz } from '../core/frames.js';

/** @typedef {import('./messages.gen.js').BodyFrame} BodyFrame */
/** @typedef {import('./messages.gen.js').GhostBody} GhostBody */

/**
 * A state message as the page keeps it: `gen` counts the hellos received before it (the
 * caller sets it: a frame sent before a hello belongs to the scenario before it).
 * @typedef {import('./messages.gen.js').State & {gen: number}} StateFrame
 */

/** @typedef {StateFrame & {quats: Quaternion[], ghostQuats: Quaternion[] | null}} Buffered */

/**
 * A body posed for drawing: Pos and quat interpolated, `frame` the nearest received one.
 * @template F
 * @typedef {{Pos: number[], quat: Quaternion, frame: F}} Posed
 */

/** @typedef {Posed<BodyFrame>} BodySample */

/**
 * What the render loop draws: every body (and the ghost run's, if any) at simulated time t.
 * @typedef {Object} Sample
 * @property {number} gen  the StateFrame's
 * @property {number} t
 * @property {BodySample[]} bodies
 * @property {Posed<GhostBody>[] | null} [ghost]
 * @property {import('./messages.gen.js').ElementFrame[] | null} [elements]  the nearest frame's (as each body's `frame`)
 */

const LAG = 1.6; // frames behind the newest: absorbs jitter of about one frame
const KEEP = 120; // frames kept

/**
 * out = a + (b − a) s, for 3-vectors.
 * @param {ArrayLike<number>} a
 * @param {ArrayLike<number>} b
 * @param {number} s
 * @param {number[]} out
 */
function lerp3(a, b, s, out) {
  out[0] = a[0] + (b[0] - a[0]) * s;
  out[1] = a[1] + (b[1] - a[1]) * s;
  out[2] = a[2] + (b[2] - a[2]) * s;
  return out;
}

export class StateBuffer {
  constructor() {
    /** @type {Buffered[]} oldest first */
    this.frames = [];
    this.period = 1 / 60; // s per frame, estimated from arrivals
    /** @type {number | null} in seq units */
    this.playhead = null;
    /** @type {number | null} s */
    this.lastArrival = null;
    /** @type {(frame: StateFrame) => void} called with the frame that broke the sequence */
    this.onDiscontinuity = () => {};
    /** @type {Sample} The sample `sample()` returns: refilled on every call (read it before the next). */
    this.out = { gen: 0, t: 0, bodies: [], ghost: null, elements: null };
  }

  clear() {
    this.frames = [];
    this.playhead = null;
    this.lastArrival = null;
  }

  /**
   * Add a state frame received at `now` (s).
   * @param {StateFrame} frame
   * @param {number} now
   */
  push(frame, now) {
    const last = this.frames[this.frames.length - 1];
    if (last) {
      // a server restart restarts seq; a reset or a new scenario sends time backwards:
      // interpolating across either would sweep the body through space
      if (frame.seq <= last.seq || frame.t < last.t - 1e-9 || frame.bodies.length !== last.bodies.length) {
        this.clear();
        this.onDiscontinuity(frame);
      } else if (this.lastArrival != null) {
        const dt = (now - this.lastArrival) / (frame.seq - last.seq);
        if (dt > 0.002 && dt < 0.5) this.period += 0.05 * (dt - this.period);
      }
    }
    const quats = frame.bodies.map((b) => quatFromWxyz(b.Quater));
    const ghostQuats = frame.ghost ? frame.ghost.bodies.map((b) => quatFromWxyz(b.Quater)) : null;
    this.frames.push(Object.assign(frame, { quats, ghostQuats }));
    if (this.frames.length > KEEP) this.frames.shift();
    this.lastArrival = now;
  }

  get latest() {
    return this.frames[this.frames.length - 1] ?? null;
  }

  /**
   * Advance the playhead by dt seconds and return the interpolated pose of every body:
   * {t, bodies: [{Pos, quat (three Quaternion), frame (nearest raw body frame)}]}, or null.
   * @param {number} dt  s
   * @returns {Sample | null}
   */
  sample(dt) {
    const n = this.frames.length;
    if (n === 0) return null;
    const newest = this.frames[n - 1].seq;
    const target = newest - LAG;
    if (this.playhead == null || Math.abs(this.playhead - target) > 12) {
      this.playhead = target;
    } else {
      this.playhead += dt / this.period;
      this.playhead += 0.08 * (target - this.playhead); // gentle pull: no visible speed changes
    }
    this.playhead = Math.min(this.playhead, newest);
    let i = n - 1;
    while (i > 0 && this.frames[i - 1].seq > this.playhead) i--;
    const b = this.frames[i];
    // never across a hello: a new scenario with as many bodies, loaded at the same t, would
    // sweep them from the old one's poses (and frame the camera on that blend)
    const a = i > 0 && this.frames[i - 1].gen === b.gen ? this.frames[i - 1] : b;
    const s = b.seq === a.seq ? 1 : Math.min(1, Math.max(0, (this.playhead - a.seq) / (b.seq - a.seq)));
    // One sample object, reused: the render loop allocates nothing once the body count is set.
    const out = this.out;
    out.gen = b.gen; // set by the caller: which hello the frame came after
    out.t = a.t + (b.t - a.t) * s;
    while (out.bodies.length < b.bodies.length) out.bodies.push({ Pos: [0, 0, 0], quat: new Quaternion(), frame: b.bodies[out.bodies.length] });
    out.bodies.length = b.bodies.length;
    for (let k = 0; k < b.bodies.length; k++) {
      const o = out.bodies[k];
      lerp3(a.bodies[k].Pos, b.bodies[k].Pos, s, o.Pos);
      o.quat.slerpQuaternions(a.quats[k], b.quats[k], s);
      o.frame = s < 0.5 ? a.bodies[k] : b.bodies[k];
    }
    out.elements = (s < 0.5 ? a : b).elements ?? null;
    // the ghost run, interpolated the same way (only between two frames that both carry it)
    // (ghostQuats is there exactly when ghost is)
    if (b.ghost && a.ghost && a.ghostQuats && b.ghostQuats && a.ghost.bodies.length === b.ghost.bodies.length) {
      out.ghost ??= [];
      while (out.ghost.length < b.ghost.bodies.length) out.ghost.push({ Pos: [0, 0, 0], quat: new Quaternion(), frame: b.ghost.bodies[out.ghost.length] });
      out.ghost.length = b.ghost.bodies.length;
      for (let k = 0; k < b.ghost.bodies.length; k++) {
        const o = out.ghost[k];
        lerp3(a.ghost.bodies[k].Pos, b.ghost.bodies[k].Pos, s, o.Pos);
        o.quat.slerpQuaternions(a.ghostQuats[k], b.ghostQuats[k], s);
        o.frame = b.ghost.bodies[k];
      }
    } else {
      out.ghost = null;
    }
    return out;
  }
}
