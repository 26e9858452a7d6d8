// @ts-check
// The time axis under the view: the room's recorded run from its start to now. Dragging the
// handle (or , and . while paused) shows a past frame, re-simulated by the server from its
// recording (GET /api/rooms/{room}/recording/frame), not interpolated: the view, the HUD and
// a marker on the plots show that moment while the room runs on. "Live" returns; "Resume
// from here" takes the room itself back to the shown frame (go_back), and "Undo" returns to
// the present it left, until the next change (docs/recording.md).

import { mustFind, setAttr, setHidden, setText } from '../core/dom.js';
import { quatFromWxyz } from '../core/frames.js';
import { errorText } from '../net/errors.js';
import { num, t as tr } from '../core/i18n.js';

/** @typedef {import('../net/messages.gen.js').ClientMessage} ClientMessage */
/** @typedef {import('../net/messages.gen.js').ErrorMessage} ErrorMessage */

/**
 * A past frame, re-simulated (GET api/rooms/{room}/recording/frame): the state message's t
 * and bodies, and whether it is the newest recorded frame.
 * @typedef {Object} PastFrame
 * @property {number} t
 * @property {import('../net/messages.gen.js').BodyFrame[]} bodies
 * @property {boolean} last
 */

/** @param {number} t */
const fmt = (t) => num(t, 2);

/**
 * The `detail` of a JSON error reply (FastAPI's), if it is a string.
 * @param {unknown} body
 */
function detailOf(body) {
  return body && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string' ? body.detail : null;
}

export class Timeline {
  /**
   * @param {HTMLElement} el  the #timeline bar
   * @param {object} opts
   * @param {string} opts.room
   * @param {(msg: ClientMessage, handlers?: {onAck?: () => void, onError?: (error: ErrorMessage) => void}) => string|null} opts.send
   * @param {(frame: PastFrame | null) => void} opts.onShow  a past frame to draw, or null to go live
   * @param {(text: string) => void} opts.onError
   */
  constructor(el, { room, send, onShow, onError }) {
    this.el = el;
    this.room = room;
    this.send = send;
    this.onShow = onShow;
    this.onError = onError;
    /** @type {PastFrame | null} The past frame shown, or null: live. */
    this.frame = null;
    this.from = 0; // s, the recording's start
    this.now = 0; // s, the newest live frame
    /** @type {number | null} */
    this.forkedAt = null;
    this.canControl = true;
    /** @type {[number, number] | null} the request in flight: [t, offset] */
    this.pending = null;
    /** @type {[number, number] | null} the newest request asked for meanwhile (latest wins) */
    this.queued = null;
    this.requests = 0; // answers received (tests wait on it)
    /** @type {import('../net/interp.js').Sample} The sample the render loop draws while a past frame is shown (as StateBuffer's). */
    this.sample = { gen: 0, t: 0, bodies: [] };
    this.stale = false; // a status came that is not shown yet

    this.slider = mustFind(el, 'input[type=range]', HTMLInputElement);
    this.label = mustFind(el, '.timeline-t', HTMLElement);
    this.liveButton = mustFind(el, '[data-act=live]', HTMLButtonElement);
    this.resumeButton = mustFind(el, '[data-act=resume]', HTMLButtonElement);
    this.undoButton = mustFind(el, '[data-act=undo]', HTMLButtonElement);
    this.slider.addEventListener('input', () => this.showAt(Number(this.slider.value)));
    mustFind(el, '[data-act=back]', HTMLElement).addEventListener('click', () => this.stepBack());
    mustFind(el, '[data-act=forward]', HTMLElement).addEventListener('click', () => this.stepForward());
    this.liveButton.addEventListener('click', () => this.live());
    this.resumeButton.addEventListener('click', () => this.resumeHere());
    this.undoButton.addEventListener('click', () => this.undo());
    this.render();
  }

  get past() {
    return this.frame !== null;
  }

  /**
   * Every live state frame: the span grows, the undo offer follows the room. Written by the
   * next `flush` (once per frame of the render loop), not for each of the 60 frames a second.
   * @param {import('../net/messages.gen.js').Status} st
   * @param {number} t
   */
  status(st, t) {
    this.from = st.recorded_from ?? 0;
    this.now = t;
    this.forkedAt = st.forked_at ?? null;
    this.stale = true;
  }

  /** The render loop, once per frame of the render loop: the newest status shown, if one came since. */
  flush() {
    if (this.stale) this.render();
  }

  /** @param {boolean} on  this page may steer the room (not a watcher) */
  setCanControl(on) {
    this.canControl = on;
    this.render();
  }

  /**
   * The frame at or before t (offset frames from it), re-simulated from the recording.
   * @param {number} t
   * @param {number} [offset]
   * @returns {Promise<PastFrame>}
   */
  async fetchFrame(t, offset = 0) {
    const url = new URL(`api/rooms/${encodeURIComponent(this.room)}/recording/frame`, window.location.href);
    url.searchParams.set('t', String(Math.max(0, t)));
    url.searchParams.set('offset', String(offset));
    const reply = await fetch(url);
    const body = /** @type {unknown} */ (await reply.json());
    if (!reply.ok) throw new Error(detailOf(body) ?? reply.statusText);
    this.requests += 1;
    return /** @type {PastFrame} */ (body); // as the endpoint answers (server/rest.py)
  }

  /**
   * Show the frame at or before t (offset frames from it); latest request wins.
   * @param {number} t
   * @param {number} [offset]
   */
  showAt(t, offset = 0) {
    if (this.pending) {
      this.queued = [t, offset];
      return;
    }
    this.pending = [t, offset];
    this.fetchFrame(t, offset)
      .then((body) => {
        // the newest recorded frame reached going forward: that is live again
        if (body.last && offset > 0) this.live();
        else this.show(body);
      })
      .catch((/** @type {unknown} */ err) => this.onError(tr('timeline.error', { error: err instanceof Error ? err.message : String(err) })))
      .finally(() => {
        this.pending = null;
        const next = this.queued;
        this.queued = null;
        if (next) this.showAt(next[0], next[1]);
      });
  }

  /**
   * Play the recorded past forward from `from` to `to` (s) at `speed`, frame by frame, each
   * shown when the wall clock says (a frame that comes late is shown late, none is skipped).
   * Resolves with the frames shown.
   * @param {number} from  s
   * @param {number} to  s
   * @param {number} [speed]
   */
  async play(from, to, speed = 1) {
    let frame = await this.fetchFrame(from);
    const t0 = frame.t;
    const start = performance.now();
    let shown = 0;
    for (;;) {
      const due = start + ((frame.t - t0) / speed) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.show(frame);
      shown += 1;
      if (frame.last || frame.t >= to) return shown;
      frame = await this.fetchFrame(frame.t, 1);
    }
  }

  /** @param {PastFrame} frame */
  show(frame) {
    this.frame = frame;
    const s = this.sample;
    s.t = frame.t;
    s.bodies = frame.bodies.map((b) => ({ Pos: b.Pos, quat: quatFromWxyz(b.Quater), frame: b }));
    this.onShow(frame);
    this.render();
  }

  /** One frame back: from the shown past frame, or from now when live. */
  stepBack() {
    this.showAt(this.frame ? this.frame.t : this.now, -1);
  }

  stepForward() {
    if (this.frame) this.showAt(this.frame.t, 1);
  }

  live() {
    if (!this.past) return;
    this.frame = null;
    this.onShow(null);
    this.render();
  }

  resumeHere() {
    if (!this.frame) return;
    const t = this.frame.t;
    this.send({ type: 'go_back', t }, { onAck: () => this.live(), onError: (e) => this.onError(errorText(e)) });
  }

  undo() {
    this.send({ type: 'undo_go_back' }, { onAck: () => this.live(), onError: (e) => this.onError(errorText(e)) });
  }

  render() {
    this.stale = false;
    const span = Math.max(1e-6, this.now - this.from);
    setAttr(this.slider, 'min', String(this.from));
    setAttr(this.slider, 'max', String(this.from + span));
    setAttr(this.slider, 'step', 'any');
    const shown = this.frame ? this.frame.t : this.now;
    if ((document.activeElement !== this.slider || !this.past) && this.slider.value !== String(shown)) this.slider.value = String(shown);
    setText(this.label, this.past ? tr('timeline.past', { t: fmt(shown), now: fmt(this.now) }) : tr('timeline.recorded', { from: fmt(this.from) }));
    setAttr(this.slider, 'aria-valuetext', tr('timeline.valuetext', { t: fmt(shown) }));
    this.el.classList.toggle('past', this.past);
    setHidden(this.liveButton, !this.past);
    setHidden(this.resumeButton, !this.past || !this.canControl);
    setHidden(this.undoButton, this.forkedAt === null || !this.canControl);
    if (this.forkedAt !== null) setText(this.undoButton, tr('timeline.undo', { t: fmt(this.forkedAt) }));
  }
}
