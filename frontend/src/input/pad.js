// @ts-check
// The push pad for touch screens (and, on request, for a mouse): a translucent joystick that
// pushes the body in the plane of the view, and two buttons that twist it about the vertical.
// Pushes go to the transient push channel while a finger is on the pad, like held keys.

import { Vector3 } from 'three';
import { threeToNed } from '../core/frames.js';
import { mustFind } from '../core/dom.js';
import { momentFor } from '../core/rigid.js';
import { t } from '../core/i18n.js';

const RATE = 1000 / 30; // ms between pushes while the stick is held
const PULSE = 400; // ms a screen reader's tap on an arrow pushes
/** @type {Record<string, [number, number]>} the arrows' stick directions: right, up */
const DIRS = { up: [0, 1], down: [0, -1], left: [-1, 0], right: [1, 0] };

export class PushPad {
  /**
   * @param {object} deps
   * @param {HTMLElement} deps.container  where the pad is drawn (over the view)
   * @param {import('../view/scene.js').Stage} deps.stage
   * @param {() => {spec: import('../net/messages.gen.js').BodySpec | null} | null | undefined} deps.getBody  the selected BodyView ({spec})
   * @param {() => {Quater: number[]} | null | undefined} deps.getFrame  its newest state frame ({Quater})
   * @param {() => {pushAccel: number, pushAlpha: number}} deps.getPanel
   * @param {(source: string, input: import('./pushes.js').PushInput | null) => void} deps.push
   */
  constructor({ container, stage, getBody, getFrame, getPanel, push }) {
    this.stage = stage;
    this.getBody = getBody;
    this.getFrame = getFrame;
    this.getPanel = getPanel;
    this.push = push;
    this.enabled = true;
    this.stick = [0, 0]; // right, up on the screen, each in [-1, 1]
    this.twist = 0; // -1, 0, 1: about D (down), seen from above clockwise for +1
    this.held = false; // a finger on the stick
    /** @type {number | null} the interval that repeats the push */
    this.timer = null;
    this.el = document.createElement('div');
    this.el.id = 'pad';
    this.el.hidden = true;
    // the stick is a group of four real buttons (a screen reader's double tap pushes for a
    // moment, a key held on one pushes while held); a finger anywhere on it steers as before
    const arrow = (/** @type {string} */ dir, /** @type {string} */ glyph) =>
      `<button type="button" class="pad-dir pad-${dir}" data-dir="${dir}" aria-label="${t(`pad.dir.${dir}`)}">${glyph}</button>`;
    this.el.innerHTML =
      `<div class="pad-stick" role="group" aria-label="${t('pad.stick')}">` +
      `<div class="pad-knob"></div>${arrow('up', '▲')}${arrow('down', '▼')}${arrow('left', '◀')}${arrow('right', '▶')}</div>` +
      `<div class="pad-twist"><button type="button" data-twist="-1" aria-label="${t('pad.twist_left')}">⟲</button>` +
      `<button type="button" data-twist="1" aria-label="${t('pad.twist_right')}">⟳</button></div>`;
    container.appendChild(this.el);
    this.base = mustFind(this.el, '.pad-stick', HTMLElement);
    this.knob = mustFind(this.el, '.pad-knob', HTMLElement);
    this.base.addEventListener('pointerdown', (ev) => this.grab(ev));
    this.base.addEventListener('pointermove', (ev) => this.move(ev));
    for (const t of ['pointerup', 'pointercancel', 'lostpointercapture']) {
      this.base.addEventListener(t, () => this.release());
    }
    for (const button of this.el.querySelectorAll('[data-twist]')) {
      if (!(button instanceof HTMLElement)) continue; // (the two buttons above)
      button.addEventListener('pointerdown', (ev) => {
        ev.preventDefault();
        this.twist = Number(button.dataset.twist);
        this.start();
      });
      for (const t of ['pointerup', 'pointercancel', 'pointerleave']) {
        button.addEventListener(t, () => {
          if (this.twist === Number(button.dataset.twist)) this.twist = 0;
          this.sendOrStop();
        });
      }
    }
    for (const button of this.el.querySelectorAll('[data-dir]')) {
      if (button instanceof HTMLElement) this.keyButton(button, () => this.aim(DIRS[button.dataset.dir ?? ''] ?? [0, 0]), () => this.release());
    }
    for (const button of this.el.querySelectorAll('[data-twist]')) {
      if (button instanceof HTMLElement) this.keyButton(button, () => this.turn(Number(button.dataset.twist)), () => this.turn(0));
    }
    // shown by itself where the primary pointer is a finger
    this.show(window.matchMedia('(pointer: coarse)').matches);
  }

  /** @param {boolean} on */
  show(on) {
    this.el.hidden = !on;
    document.body.classList.toggle('pad-open', on);
    if (!on) this.release();
  }

  get shown() {
    return !this.el.hidden;
  }

  /** @param {boolean} on */
  setEnabled(on) {
    this.enabled = on;
    this.el.classList.toggle('disabled', !on);
    if (!on) this.release();
  }

  /** @param {PointerEvent} ev */
  grab(ev) {
    if (!this.enabled) return;
    ev.preventDefault();
    this.base.setPointerCapture(ev.pointerId);
    this.held = true;
    this.move(ev);
    this.start();
  }

  /** @param {PointerEvent} ev */
  move(ev) {
    if (!this.held) return;
    const r = this.base.getBoundingClientRect();
    let x = (ev.clientX - (r.left + r.width / 2)) / (r.width / 2);
    let y = -(ev.clientY - (r.top + r.height / 2)) / (r.height / 2);
    const n = Math.hypot(x, y);
    if (n > 1) [x, y] = [x / n, y / n];
    this.stick = [x, y];
    this.knob.style.transform = `translate(${x * 50}%, ${-y * 50}%)`;
  }

  release() {
    this.held = false;
    this.stick = [0, 0];
    this.knob.style.transform = '';
    this.sendOrStop();
  }

  start() {
    if (!this.enabled) return;
    if (!this.timer) this.timer = setInterval(() => this.send(), RATE);
    this.send();
  }

  sendOrStop() {
    if (this.stick[0] === 0 && this.stick[1] === 0 && this.twist === 0) {
      if (this.timer) {
        clearInterval(this.timer);
        this.timer = null;
        this.push('pad', null);
      }
      return;
    }
    this.send();
  }

  /**
   * Keys and screen readers on a pad button: Enter or Space held pushes while held; a click
   * with no pointer under it (a screen reader's double tap, detail 0) pushes for PULSE ms.
   * @param {HTMLElement} button @param {() => void} on @param {() => void} off
   */
  keyButton(button, on, off) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let pulse;
    const press = (/** @type {KeyboardEvent} */ ev) => ev.key === 'Enter' || ev.key === ' ';
    button.addEventListener('keydown', (ev) => press(ev) && !ev.repeat && (ev.preventDefault(), on()));
    button.addEventListener('keyup', (ev) => press(ev) && (ev.preventDefault(), off()));
    button.addEventListener('click', (ev) => {
      if (ev.detail !== 0) return; // a pointer's click: its down and up already pushed
      clearTimeout(pulse);
      on();
      pulse = setTimeout(off, PULSE);
    });
  }

  /** Push along a fixed stick direction (right, up). @param {[number, number]} dir */
  aim(dir) {
    if (!this.enabled) return;
    this.stick = dir;
    this.knob.style.transform = `translate(${dir[0] * 50}%, ${-dir[1] * 50}%)`;
    this.start();
  }

  /** Twist (-1, 1) or stop twisting (0). @param {number} sign */
  turn(sign) {
    this.twist = sign;
    if (sign) this.start();
    else this.sendOrStop();
  }

  /** Force along the stick in the view plane (Mass × Key push), moment about D (I × Key turn). */
  send() {
    /** @type {{Mass: number, InertiaRadi: [number, number, number]}} */
    const unknownBody = { Mass: 1, InertiaRadi: [0.5, 0.5, 0.5] };
    const spec = this.getBody()?.spec ?? unknownBody;
    const panel = this.getPanel();
    const cam = this.stage.camera;
    const right = new Vector3().setFromMatrixColumn(cam.matrixWorld, 0);
    const up = new Vector3().setFromMatrixColumn(cam.matrixWorld, 1);
    const dir = threeToNed(right.multiplyScalar(this.stick[0]).add(up.multiplyScalar(this.stick[1])));
    const Force = dir.map((x) => x * spec.Mass * panel.pushAccel);
    const quater = this.getFrame()?.Quater ?? [1, 0, 0, 0];
    const Moment = momentFor(spec, quater, [0, 0, this.twist * panel.pushAlpha], true);
    this.push('pad', { frame: 'global', Force, Moment, point: null });
  }
}
