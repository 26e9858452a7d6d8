// @ts-check
// Readouts over the view: simulated time, real-time factor, frame rate, connection state,
// warning banners, the preset caption.

import { mustFind, mustGet } from '../core/dom.js';
import { lang, num, t } from '../core/i18n.js';

/** @typedef {import('../net/messages.gen.js').BodyFrame} BodyFrame */
/** @typedef {import('../net/messages.gen.js').Status} Status */

/** a phone's layout (style.css's narrow screens) */
const PHONE = window.matchMedia('(max-width: 900px)');

/** @param {number} x @param {number} [d] */
const fmt = (x, d = 2) => (Number.isFinite(x) ? num(x, d) : '–');
/** between a vector's components: '; ' where the decimal mark is a comma */
const SEP = num(0.5).includes(',') ? '; ' : ', ';
/** @param {number[] | undefined} v */
const mag = (v) => (Array.isArray(v) ? Math.hypot(v[0], v[1], v[2]) : NaN);

/**
 * " · slow motion ×0.25", " · fast ×4", or "" at 1: a bare "×0.25" beside RTF reads as a factor of RTF.
 * @param {number} scale
 */
export function timeScaleText(scale) {
  if (!Number.isFinite(scale) || scale === 1) return '';
  return t(scale < 1 ? 'hud.slow' : 'hud.fast', { scale: num(scale) });
}

export class Hud {
  /** @param {HTMLElement} el  the #hud box, with its [data-hud] fields */
  constructor(el) {
    /** @type {string[]} */
    this.activePushes = [];
    this.el = el;
    /** @type {Record<string, HTMLElement>} the [data-hud] fields by name */
    this.fields = {};
    for (const node of el.querySelectorAll('[data-hud]')) {
      if (node instanceof HTMLElement && node.dataset.hud) this.fields[node.dataset.hud] = node;
    }
    this.banners = mustGet('banners', HTMLElement);
    this.caption = mustGet('caption', HTMLElement);
    this.captionShown = false; // no caption shown yet (the first one opens in full)
    this.captionTitle = mustFind(this.caption, '.caption-title', HTMLElement);
    this.captionText = mustFind(this.caption, '.caption-text', HTMLElement);
    this.captionNoteEl = mustFind(this.caption, '.caption-note', HTMLElement);
    mustFind(this.caption, 'button', HTMLButtonElement).addEventListener('click', () => {
      this.caption.hidden = true;
      document.body.classList.remove('asking');
    });
    // a phone's caption open in full yields the view to the first touch on it: its title
    // stays (tap it for the text again), and the pad comes out under it (style.css)
    mustGet('scene', HTMLCanvasElement).addEventListener('pointerdown', () => {
      if (PHONE.matches) this.caption.classList.remove('expanded');
    });
    this.captionQuestion = mustFind(this.caption, '.caption-question', HTMLElement);
    this.showMe = mustGet('btn-showme', HTMLButtonElement);
    /** called when "Show me" is pressed (runs the preset) */
    this.onShowMe = () => {};
    this.showMe.addEventListener('click', () => {
      this.showMe.hidden = true;
      this.captionText.hidden = false;
      document.body.classList.remove('asking');
      this.onShowMe();
    });
    this.frames = 0;
    this.fpsSince = performance.now();
    this.fps = 0;
    /** @type {Map<string, HTMLElement>} */
    this.bannerEls = new Map();
    /** @type {ReturnType<typeof setInterval> | undefined} the `preparing` banner's counter */
    this.preparingTimer = undefined;
  }

  /** @param {string} key  a [data-hud] field @param {string} text */
  set(key, text) {
    const node = this.fields[key];
    if (node && node.textContent !== text) node.textContent = text;
  }

  /**
   * Count a frame of the render loop (drawn, or found unchanged); the rate is updated twice a second.
   * @param {number} now  ms
   */
  tick(now) {
    this.frames += 1;
    if (now - this.fpsSince >= 500) {
      this.fps = (this.frames * 1000) / (now - this.fpsSince);
      this.frames = 0;
      this.fpsSince = now;
      this.set('fps', t('hud.fps', { fps: num(Math.round(this.fps)) }));
    }
  }

  /**
   * The readouts of a state frame (live, or a past one with the live status): main.js calls
   * it once per drawn frame with the newest, not for every frame received.
   * @param {{t: number, status: Status}} frame
   * @param {BodyFrame | null | undefined} body  the selected body's frame
   */
  state(frame, body) {
    const st = frame.status;
    // running, 0.01 s is plenty (and does not flicker); paused, one step must show: h = 1 ms
    // needs 3 decimals
    const decimals = st.running ? 2 : Math.min(6, Math.max(2, Math.ceil(-Math.log10(st.step) - 1e-9)));
    this.set('t', t('hud.t', { t: fmt(frame.t, decimals) }));
    // a room whose step and time scale need more computing than its share of a tick runs
    // slower than asked (the server says so); the RTF shows by how much
    const limited = st.running && st.compute_limited ? t('hud.slowed') : '';
    this.set('rtf', `${t('hud.rtf', { rtf: fmt(st.rtf, 2) })}${timeScaleText(st.time_scale)}${limited}`);
    this.el.classList.toggle('limited', Boolean(limited));
    const rtf = this.fields.rtf;
    const title = limited ? t('hud.slowed.title') : '';
    if (rtf && rtf.title !== title) rtf.title = title;
    const run = st.running ? t('hud.running') : st.paused_reason ? t('hud.paused_reason', { reason: st.paused_reason }) : t('hud.paused');
    const h = st.step * 1000 >= 1 ? fmt(st.step * 1000, 2) + ' ms' : fmt(st.step * 1e6, 0) + ' µs';
    this.set('run', t('hud.run', { run, integrator: st.integrator, h }));
    this.el.classList.toggle('paused', !st.running);
    if (body) {
      // which inputs act, and their sum as the server applies it (global, about the CG)
      const active = [t('hud.constant'), ...this.activePushes.map((s) => t(`hud.source.${s}`))].join(' + ');
      /** @param {number[]} v */
      const vec = (v) => `(${v.map((x) => (x === 0 ? '0' : fmt(x, 1))).join(SEP)})`;
      const moment = body.Moment.some((x) => x !== 0) ? t('hud.inputs_moment', { moment: vec(body.Moment) }) : '';
      this.set('inputs', t('hud.inputs', { active, force: vec(body.Force), moment }));
      this.set('force', t('hud.force', { F: fmt(mag(body.Force), 1), M: fmt(mag(body.Moment), 1) }));
      this.set('vel', t('hud.vel', { v: fmt(mag(body.Vel), 2), w: fmt(mag(body.AngVel), 2) }));
    }
  }

  /**
   * Whether the selected body's Mass and Inertia follow its shape (Look → Inertia from shape):
   * a line while they do, none while they are typed.
   * @param {import('../net/messages.gen.js').BodySpec | null | undefined} spec
   */
  shape(spec) {
    const from = spec?.InertiaFrom ?? 'given';
    if (!spec || from === 'given') return this.set('shape', '');
    const kind = t(`look.from.${from}`);
    if (spec.Density == null) return this.set('shape', t('hud.shape_mass', { from: kind, mass: fmt(spec.Mass, 3) }));
    this.set('shape', t('hud.shape', { from: kind, mass: fmt(spec.Mass, 3), density: num(spec.Density) }));
  }

  /** @param {{state: string, attempt: number}} status  the connection's */
  connection(status) {
    const node = this.fields.conn;
    node.dataset.state = status.state;
    /** @type {Record<string, string | undefined>} */
    const texts = {
      connecting: t('hud.connecting'),
      open: t('hud.connected'),
      reconnecting: status.attempt ? t('hud.reconnecting_try', { n: status.attempt }) : t('hud.reconnecting'),
    };
    this.set('conn', texts[status.state] ?? status.state);
    this.banner('conn', status.state === 'reconnecting' ? t('hud.lost') : null, 'error');
  }

  /**
   * The push sources acting now (drag, pad, held, keys), named in the inputs line.
   * @param {string[]} sources
   */
  pushes(sources) {
    this.activePushes = sources.map((s) => (s === 'panel' ? 'held' : s));
  }

  /**
   * The server's `preparing` (the physics loads, or numba compiles it, before the first room):
   * its message in a banner with the seconds waited so far, counting on; null (at the hello) removes it.
   * @param {import('../net/messages.gen.js').Preparing | null} msg
   */
  preparing(msg) {
    clearInterval(this.preparingTimer);
    this.preparingTimer = undefined;
    if (!msg) return void this.banner('preparing', null);
    const since = performance.now() - msg.elapsed * 1000;
    const message = lang === 'en' ? msg.message : t('hud.preparing.message'); // the server speaks English
    const show = () => this.banner('preparing', t('hud.preparing', { message, s: Math.round((performance.now() - since) / 1000) }), 'info');
    show();
    this.preparingTimer = setInterval(show, 1000);
  }

  /**
   * Show (text) or remove (null) the banner `key`.
   * @param {string} key
   * @param {string | null} text
   * @param {'warn' | 'error' | 'info'} [kind]
   */
  banner(key, text, kind = 'warn') {
    let el = this.bannerEls.get(key);
    if (!text) {
      if (el) {
        el.remove();
        this.bannerEls.delete(key);
      }
      return;
    }
    if (!el) {
      el = document.createElement('div');
      el.setAttribute('role', 'status');
      this.banners.appendChild(el);
      this.bannerEls.set(key, el);
    }
    el.className = `banner ${kind}`;
    el.dataset.banner = key;
    if (el.textContent !== text) el.textContent = text;
  }

  /**
   * A line under the caption (null removes it): the scenario no longer is the preset.
   * @param {string | null} text
   */
  captionNote(text) {
    const el = this.captionNoteEl;
    el.hidden = !text;
    if (text && el.textContent !== text) el.textContent = text;
  }

  /**
   * The preset's caption. With a `question`, the question comes first with a "Show me"
   * button (the preset waits, paused): the caption's answer appears once it is pressed.
   * @param {string} title
   * @param {string} text  empty: no caption
   * @param {string | null | undefined} [question]
   */
  showCaption(title, text, question = null) {
    if (!text) {
      this.caption.hidden = true;
      return;
    }
    this.captionTitle.textContent = title;
    this.captionText.textContent = text;
    this.captionQuestion.textContent = question ? t('caption.predict', { question }) : '';
    this.captionQuestion.hidden = !question;
    this.showMe.hidden = !question;
    this.captionText.hidden = !!question;
    document.body.classList.toggle('asking', !!question);
    // on a phone the first caption opens in full, later ones as their title only (tap it for
    // the text): the class reads the first before the title-only habit (issue 45)
    if (PHONE.matches) this.caption.classList.toggle('expanded', !this.captionShown);
    this.captionShown = true;
    this.caption.hidden = false;
  }
}
