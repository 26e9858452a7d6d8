// @ts-check
// Sonification of the angular velocity (Access → Sound, key M): one quiet sine tone whose
// pitch follows |AngVel| on a log scale, 220 Hz at rest to 1760 Hz at 20 rad/s (three octaves),
// and whose loudness follows it too (silent at rest). Web Audio, started by the key or click
// that turns it on (browsers allow sound only after a user gesture).

const LOW = 220; // Hz at rest
const OCTAVES = 3;
const TOP = 20; // rad/s: the highest pitch

export class Sonifier {
  constructor() {
    /** @type {AudioContext | null} */
    this.ctx = null;
    /** @type {OscillatorNode | null} */
    this.osc = null;
    /** @type {GainNode | null} */
    this.gain = null;
    this.on = false;
  }

  /** @param {boolean} on */
  set(on) {
    this.on = on;
    if (on && !this.ctx) {
      this.ctx = new AudioContext();
      this.osc = this.ctx.createOscillator();
      this.gain = this.ctx.createGain();
      this.osc.type = 'sine';
      this.gain.gain.value = 0;
      this.osc.connect(this.gain).connect(this.ctx.destination);
      this.osc.start();
    }
    if (this.ctx) void (on ? this.ctx.resume() : this.ctx.suspend());
  }

  /** Follow |AngVel| (rad/s). @param {number} omega */
  update(omega) {
    if (!this.on || !this.ctx || !this.osc || !this.gain) return;
    const x = Math.min(1, Math.log1p(Math.max(0, omega)) / Math.log1p(TOP));
    const now = this.ctx.currentTime;
    this.osc.frequency.setTargetAtTime(LOW * 2 ** (OCTAVES * x), now, 0.05);
    this.gain.gain.setTargetAtTime(omega > 0.01 ? 0.04 + 0.08 * x : 0, now, 0.05);
  }

  /** The pitch now (Hz), or null when off (tests read it). */
  get pitch() {
    return this.on && this.osc ? this.osc.frequency.value : null;
  }
}
