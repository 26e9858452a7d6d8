// @ts-check
// Pushing the body by hand: keyboard pushes and Shift+drag "drag to push". Both send the
// transient "push" channel of set_input and clear it (zeros) when they stop. Plain drags are
// left to the orbit camera; a drag that should push needs Shift and has to start on the body.

import { Plane, Raycaster, Vector2, Vector3 } from 'three';
import { rotateBodyToNed, threeToNed } from '../core/frames.js';
import { effectiveMass, momentFor, weightScale } from '../core/rigid.js';

/** @param {readonly number[]} a @param {readonly number[]} b @returns {[number, number, number]} */
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

// key -> [kind, axis, sign]; axes are N/E/D in the global frame, x/y/z in the body frame
/** @type {Record<string, readonly ['F' | 'M', number, number]>} */
export const KEYS = {
  ArrowUp: ['F', 0, 1], KeyW: ['F', 0, 1],
  ArrowDown: ['F', 0, -1], KeyS: ['F', 0, -1],
  ArrowLeft: ['F', 1, -1], KeyA: ['F', 1, -1],
  ArrowRight: ['F', 1, 1], KeyD: ['F', 1, 1],
  KeyR: ['F', 2, -1], KeyF: ['F', 2, 1],
  KeyQ: ['M', 2, -1], KeyE: ['M', 2, 1],
  KeyI: ['M', 1, 1], KeyK: ['M', 1, -1],
  KeyJ: ['M', 0, -1], KeyL: ['M', 0, 1],
}; // prettier-ignore
/** @type {Record<string, string | undefined>} key -> the name of one of Keyboard's commands */
const COMMAND_KEYS = { Space: 'togglePause', Period: 'step', NumpadDecimal: 'step', Comma: 'stepBack', Backspace: 'reset',
  KeyH: 'help', Slash: 'help', KeyV: 'view', KeyZ: 'frame', KeyC: 'follow', KeyP: 'projector', KeyO: 'presets' }; // prettier-ignore
/** @type {Record<string, string | undefined>} key -> the camera view it sets */
const CAMERA_KEYS = { KeyT: 'top', KeyY: 'side', KeyU: 'front' };

/** Whether the key goes to a text field (or other control) rather than the page. @param {KeyboardEvent} ev */
function typing(ev) {
  const t = ev.target;
  if (!(t instanceof HTMLElement)) return false;
  // Space and Enter press a focused button or link: they are its keys then, not the page's
  if ((ev.code === 'Space' || ev.key === 'Enter') && (t.tagName === 'BUTTON' || t.tagName === 'A')) return true;
  return t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);
}

/**
 * Keyboard: held keys push (Force = Mass × accel, Moment = I_axis × angular accel, per axis);
 * Space pauses/resumes, "." steps once, Backspace resets, H or ? toggles the help, V resets the view.
 */
export class Keyboard {
  /**
   * @param {object} d
   * @param {() => {spec: import('../core/rigid.js').RigidSpec | null} | null} d.getBody
   * @param {() => {Quater: number[]} | null} d.getFrame
   * @param {() => {frame: 'global' | 'body', pushAccel: number, pushAlpha: number}} d.getPanel
   * @param {import('./pushes.js').Pushes['push']} d.push
   * @param {Record<string, (arg?: any) => void>} d.commands
   */
  constructor({ getBody, getFrame, getPanel, push, commands }) {
    this.getBody = getBody; // () => {spec} of the body the panel edits
    this.getFrame = getFrame; // () => its latest raw state frame {Quater, …}, or null
    this.getPanel = getPanel; // () => {frame, pushAccel, pushAlpha}
    this.push = push; // (source, input|null)
    this.commands = commands; // {togglePause, step, stepBack, reset, help, view, frame, follow, overlay, projector, camera}
    /** @type {Set<string>} the push keys held down (KeyboardEvent.code) */
    this.held = new Set();
    window.addEventListener('keydown', (ev) => this.down(ev));
    window.addEventListener('keyup', (ev) => this.up(ev));
    window.addEventListener('blur', () => this.releaseAll());
  }

  /** @param {KeyboardEvent} ev */
  down(ev) {
    if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (KEYS[ev.code]) {
      ev.preventDefault();
      if (!this.held.has(ev.code)) {
        this.held.add(ev.code);
        this.send();
      }
      return;
    }
    if (ev.repeat) return;
    const cmd = COMMAND_KEYS[ev.code];
    const camera = CAMERA_KEYS[ev.code];
    if (cmd) {
      ev.preventDefault();
      this.commands[cmd]();
    } else if (camera) {
      ev.preventDefault();
      this.commands.camera(camera);
    } else if (/^Digit[1-9]$/.test(ev.code)) {
      ev.preventDefault();
      this.commands.overlay(ev.code); // the Show folder's overlays, 1 to 8
    }
  }

  /** @param {KeyboardEvent} ev */
  up(ev) {
    if (this.held.delete(ev.code)) this.send();
  }

  releaseAll() {
    if (this.held.size === 0) return;
    this.held.clear();
    this.send();
  }

  send() {
    if (this.held.size === 0) {
      this.push('keys', null);
      return;
    }
    const body = this.getBody()?.spec ?? { Mass: 1, InertiaRadi: [0.5, 0.5, 0.5] };
    const panel = this.getPanel();
    const F = [0, 0, 0];
    const alpha = [0, 0, 0]; // the angular acceleration asked for, in the panel's frame
    for (const code of this.held) {
      const [kind, axis, sign] = KEYS[code];
      if (kind === 'F') F[axis] += sign * body.Mass * panel.pushAccel;
      else alpha[axis] += sign * panel.pushAlpha;
    }
    const quater = this.getFrame()?.Quater ?? [1, 0, 0, 0];
    const M = momentFor(body, quater, alpha, panel.frame !== 'body');
    this.push('keys', { frame: panel.frame, Force: F, Moment: M, point: null });
  }
}

/**
 * Shift+drag on the body: the picked point p (body frame, relative to the reference point) is
 * pulled toward the mouse by a damped spring that the server evaluates at every integrator
 * stage: F = k (target − p) − c v_p, at most 40 weights (a hand, not a hammer). The target is
 * fixed in the world: where the mouse ray meets the plane through p that faced the camera
 * when the drag began; only the pointer moves it, never the camera (follow, orbit, zoom). k
 * and c are set for the mass the point feels along the pull, m_eff, which counts the turning
 * of the body: 1/m_eff = uᵀ (E/m − S(r) I⁻¹ S(r)) u, r from the CG to p, so a thin rod held at
 * its tip is pulled as gently as a ball: ω₀ = 2π · 0.6 Hz, ζ = 0.8.
 */
const LONG_PRESS = 450; // ms a finger rests on the body before it grabs

/**
 * What DragPush needs from the page (main.js).
 * @typedef {object} DragPushDeps
 * @property {import('../view/scene.js').Stage} stage
 * @property {HTMLElement} container  the view's element (the canvas is inside it)
 * @property {() => import('../view/body.js').BodyView | null} getView  the selected body's view
 * @property {() => Map<string, import('../view/body.js').BodyView>} [getViews]  every body's view, by name: a drag may grab any of them
 * @property {(name: string) => void} [select]  make `name` the selected body (the one a push acts on)
 * @property {() => import('../net/messages.gen.js').BodyFrame | null} getFrame  its newest state frame
 * @property {import('./pushes.js').Pushes['push']} push
 * @property {(from: Vector3 | null, to: Vector3) => void} drawArrow  the pull arrow (three world); from null: hidden
 * @property {() => boolean} canPush  false while watching
 */

export class DragPush {
  /** @param {DragPushDeps} deps */
  constructor({ stage, container, getView, getFrame, push, drawArrow, canPush, getViews, select }) {
    this.stage = stage;
    this.getViews = getViews;
    this.select = select;
    this.canPush = canPush; // () => false while watching: no drag, no arrow
    this.getView = getView; // () => BodyView under the panel
    this.getFrame = getFrame; // () => latest raw body frame {Pos, Quater, Vel, AngVel}
    this.push = push;
    this.drawArrow = drawArrow; // (fromWorld|null, toWorld): null hides it
    /**
     * The drag in progress: the grabbed point (body frame), the plane the pointer moves its
     * target in, the target (three world) and the last spring sent; null: none.
     * @type {{view: import('../view/body.js').BodyView, point: number[], plane: Plane, target: Vector3, sent: number, keys?: boolean, pending?: boolean, spring?: import('../net/messages.gen.js').Spring} | null}
     */
    this.active = null;
    this.ray = new Raycaster();
    this.mouse = new Vector2();
    /** @type {ReturnType<typeof setInterval> | undefined} redraws the pull arrow while dragging */
    this.timer = undefined;
    /** @type {{id: number, x: number, y: number, timer: number} | null} a finger resting on the body */
    this.longPress = null;
    this.scratch = { from: new Vector3(), to: new Vector3() };
    // capture phase on the container: runs before OrbitControls' listener on the canvas
    container.addEventListener('pointerdown', (ev) => this.start(ev), { capture: true });
    window.addEventListener('pointermove', (ev) => this.move(ev));
    window.addEventListener('pointerup', () => this.stop());
    window.addEventListener('pointercancel', () => this.stop());
    window.addEventListener('keydown', (ev) => ev.key === 'Shift' && container.classList.add('shift'));
    window.addEventListener('keyup', (ev) => ev.key === 'Shift' && container.classList.remove('shift'));
  }

  /** @param {PointerEvent} ev */
  setMouse(ev) {
    const r = this.stage.canvas.getBoundingClientRect();
    this.mouse.set(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
  }

  /**
   * The point of the body under the pointer (three world), or null: the nearest body hit, any
   * of them (a link of a mechanism), which becomes the selected one, so the push acts on it.
   * @param {PointerEvent} ev
   */
  pick(ev) {
    const selected = this.getView();
    if (!selected || ev.target !== this.stage.canvas) return null;
    this.setMouse(ev);
    this.ray.setFromCamera(this.mouse, this.stage.camera);
    let best = null;
    for (const [name, view] of this.getViews?.() ?? new Map([['', selected]])) {
      const hit = this.ray.intersectObject(view.mesh, false)[0];
      if (hit && (!best || hit.distance < best.hit.distance)) best = { name, view, hit };
    }
    if (!best) return null;
    if (best.view !== selected) this.select?.(best.name);
    return { view: best.view, point: best.hit.point.clone() };
  }

  /** @param {PointerEvent} ev */
  start(ev) {
    if (!this.canPush()) return;
    if (ev.pointerType === 'touch') return this.touchDown(ev);
    if (!ev.shiftKey || ev.button !== 0) return;
    const picked = this.pick(ev);
    if (!picked) return; // a Shift+drag beside the body pans the camera as usual
    ev.stopPropagation();
    ev.preventDefault();
    this.begin(picked.view, picked.point);
  }

  /**
   * Touch: a finger held still on the body for LONG_PRESS ms starts the same spring drag;
   * a finger that moves first, or a second finger (pinch, two-finger orbit), stays with the
   * camera.
   * @param {PointerEvent} ev
   */
  touchDown(ev) {
    if (this.longPress || this.active) {
      this.cancelLongPress(); // a second finger: the camera's gesture
      return;
    }
    const picked = this.pick(ev);
    if (!picked) return;
    const lp = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, timer: 0 };
    lp.timer = window.setTimeout(() => {
      this.longPress = null;
      this.begin(picked.view, picked.point);
    }, LONG_PRESS);
    this.longPress = lp;
  }

  cancelLongPress() {
    if (this.longPress) clearTimeout(this.longPress.timer);
    this.longPress = null;
  }

  /**
   * Grab the body at `point` (three world) and pull it toward the pointer from now on.
   * @param {import('../view/body.js').BodyView} view @param {Vector3} point
   * @param {boolean} [follow]  the pointer moves the target (false: the keys do, see nudge)
   */
  begin(view, point, follow = true) {
    this.stage.controls.enabled = false;
    const local = view.group.worldToLocal(point.clone());
    // the drag plane: through the grabbed point, facing the camera as it is now (three world)
    const normal = this.stage.camera.getWorldDirection(new Vector3());
    const plane = new Plane().setFromNormalAndCoplanarPoint(normal, point.clone());
    this.active = { view, point: [local.x, local.y, local.z], plane, target: point.clone(), sent: 0, keys: !follow };
    if (follow) this.aim();
    else this.send();
    this.timer = setInterval(() => this.redraw(), 1000 / 30);
  }

  /** Move the target of a keyboard grab by `delta` (three world, m). @param {Vector3} delta */
  nudge(delta) {
    const a = this.active;
    if (!a) return;
    a.target.add(delta);
    this.send();
    this.redraw();
  }

  /** @param {PointerEvent} ev */
  move(ev) {
    const lp = this.longPress;
    if (lp && ev.pointerId === lp.id && Math.hypot(ev.clientX - lp.x, ev.clientY - lp.y) > 10) {
      this.cancelLongPress(); // it moved: an orbit, not a push
    }
    if (!this.active || this.active.keys) return; // a keyboard grab: the keys move it
    this.setMouse(ev);
    this.aim();
  }

  /** A new target under the pointer: send the spring (at most 30 times a second). */
  aim() {
    const a = this.active;
    if (!a) return;
    this.ray.setFromCamera(this.mouse, this.stage.camera);
    if (!this.ray.ray.intersectPlane(a.plane, a.target)) return;
    const now = performance.now();
    if (now - a.sent < 1000 / 30) {
      a.pending = true;
      return;
    }
    a.sent = now;
    a.pending = false;
    this.send();
    this.redraw();
  }

  send() {
    const a = this.active;
    const frame = this.getFrame();
    if (!a || !frame) return;
    const spec = a.view.spec ?? { Mass: 1, InertiaRadi: [0.5, 0.5, 0.5], CGOffset: [0, 0, 0] };
    const r = a.point;
    const target = threeToNed(a.target);
    const p = add(frame.Pos, rotateBodyToNed(frame.Quater, r));
    const d = [target[0] - p[0], target[1] - p[1], target[2] - p[2]];
    const dist = Math.hypot(...d);
    const mEff = dist > 1e-9 ? effectiveMass(spec, frame.Quater, r, d.map((x) => x / dist)) : spec.Mass;
    const w0 = 2 * Math.PI * 0.6;
    const k = mEff * w0 * w0;
    const c = 2 * 0.8 * Math.sqrt(k * mEff);
    const maxForce = Math.min(1e7, 40 * weightScale(spec)); // a hand, not a hammer
    a.spring = { target, stiffness: k, damping: c, max_force: maxForce };
    this.push('drag', { frame: 'global', Force: [0, 0, 0], Moment: [0, 0, 0], point: r, spring: a.spring });
  }

  /** The pull arrow from the grabbed point (where the body is now) to the fixed target. */
  redraw() {
    const a = this.active;
    if (!a) return;
    if (a.pending && performance.now() - a.sent >= 1000 / 30) this.aim();
    const from = a.view.group.localToWorld(this.scratch.from.set(a.point[0], a.point[1], a.point[2]));
    this.drawArrow(from, this.scratch.to.copy(a.target));
  }

  stop() {
    this.cancelLongPress();
    if (!this.active) return;
    this.active = null;
    clearInterval(this.timer);
    this.stage.controls.enabled = true;
    this.push('drag', null);
    this.drawArrow(null, this.scratch.to); // from null: no arrow (`to` is not drawn)
  }
}
