// @ts-check
// The control panel (lil-gui). Values follow every hello, so all panels of a room agree; a
// change is sent to the server, and the server's answer decides: an ack clears the control's
// error line, an error shows the server's words next to the control that caused it and puts
// the server's value back in the field (a refusal changes nothing, so the field must not
// pretend otherwise). A hello with a different scenario clears every error line: whatever
// they complained about has been replaced.

import GUI from 'lil-gui';
import { deferPresetKeys } from './presetmenu.js';
import { ControlErrors, fieldOf, parseVector, serverValues, setField } from './controls.js';
import { presetText, t } from '../core/i18n.js';
import { DISPLAY_ONLY, addViewFolders } from './panelview.js';
import { addLookFolder, refreshLook } from './lookpanel.js';

/** @typedef {import('lil-gui').Controller} Controller */
/** @typedef {import('../net/messages.gen.js').Hello} Hello */

const MODEL_NOTE = { full: t('panel.model.full'), fhsim: t('panel.model.fhsim') };
const TIME_SCALES = { '1/100 ×': 0.01, '1/20 ×': 0.05, '1/10 ×': 0.1, '1/4 ×': 0.25, '1/2 ×': 0.5,
  '1 ×': 1, '2 ×': 2, '5 ×': 5, '10 ×': 10 }; // prettier-ignore


/**
 * What the panel asks of the page (main.js): the room's commands, pushes and what to draw.
 * @typedef {object} PanelActions
 * @property {() => void} pause
 * @property {() => void} resume
 * @property {() => void} step
 * @property {() => void} reset
 * @property {(name: string, ctl: Controller) => void} loadPreset
 * @property {(source: 'panel', input: import('../input/pushes.js').PushInput | null, ctls: Controller[]) => void} push
 * @property {(changes: import('../net/messages.gen.js').GhostSettings | null, ctl: Controller) => void} ghost
 * @property {(p: Record<string, any>) => void} show
 * @property {(name: string) => void} camera
 */

export class Panel {
  /**
   * @param {HTMLElement} container
   * @param {{conn: import('../net/connection.js').Connection, library: import('../view/meshes.js').MeshLibrary, actions: PanelActions, upload: {choose: () => void}}} deps
   */
  constructor(container, deps) {
    this.conn = deps.conn;
    this.library = deps.library;
    this.actions = deps.actions;
    /** @type {string | null} */ this.bodyName = null; // the body the panel edits
    /** @type {Hello | null} */ this.hello = null;
    /** @type {string | null} what the last hello said about the scenario, to see a change */
    this.helloKey = null;
    /** @type {HTMLElement | null} the line under Look → "Open file…" (lookpanel.js) */
    this.uploadNote = null;
    /** the error lines under the controllers */
    this.errors = new ControlErrors();
    /** @type {boolean | undefined} */ this.shownRunning = undefined; // the status shown last
    /** @type {number | undefined} */ this.shownTimeScale = undefined;
    /** @type {Record<string, any> & {running: boolean, frame: 'global' | 'body', pushAccel: number, pushAlpha: number, follow: boolean, model: 'full' | 'fhsim'}} the values the controllers edit, by key */
    this.p = {
      preset: '', body: '', running: true,
      time_scale: 1, integrator: 'rk4', step: 0.001,
      frame: 'global', Fx: 0, Fy: 0, Fz: 0, Mx: 0, My: 0, Mz: 0, pushAccel: 1, pushAlpha: 1,
      hFx: 0, hFy: 0, hFz: 0, hMx: 0, hMy: 0, hMz: 0,
      Mass: 1, InertiaRadi: '', Inertia: '', CGOffset: '', Gravity: 9.81, model: 'full',
      Mesh: 'sphere', Material: 'Simple/Black', colour: '#202124', MeshScale: '', Size: '', MeshOrigin: '',
      forces: true, omegaL: false, poinsot: false, energy: false, ground: false, inertia: false,
      triad: true, worldAxes: true, velocity: true, trail: true, follow: true, projector: false,
      ghostModel: 'fhsim', ghostIntegrator: 'same', ghostStep: '', ghostMass: '',
    }; // prettier-ignore
    const gui = new GUI({ container, title: t('panel.title'), width: 320 });
    this.gui = gui;
    /** @type {Record<string, Controller>} the controllers, by key */
    this.c = {};
    const c = this.c;
    const p = this.p;

    const fs = gui.addFolder(t('panel.scenario'));
    c.preset = fs.add(p, 'preset', { [t('panel.choose')]: '' }).name(t('panel.preset'));
    c.preset.onChange((/** @type {string} */ name) => name && this.actions.loadPreset(name, c.preset));
    deferPresetKeys(c.preset); // ↑/↓ choose, Enter loads
    // a <select> fires no change for the option already chosen: this is the way back to the
    // preset's values after editing them (Reset only resets the state)
    c.reload = fs.add({ reload: () => this.reloadPreset() }, 'reload').name(t('panel.reload'));
    c.body = fs.add(p, 'body', ['B']).name(t('panel.body')).onChange(() => this.refresh());
    c.body.hide();

    const fr = gui.addFolder(t('panel.run'));
    c.run = fr.add({ toggle: () => (this.p.running ? this.actions.pause() : this.actions.resume()) }, 'toggle').name(t('panel.pause'));
    c.stepOnce = fr.add({ step: () => this.actions.step() }, 'step').name(t('panel.step'));
    c.reset = fr.add({ reset: () => this.actions.reset() }, 'reset').name(t('panel.reset'));
    c.time_scale = fr.add(p, 'time_scale', TIME_SCALES).name(t('panel.time_scale'));
    c.time_scale.onChange((/** @type {number} */ v) => this.send([c.time_scale], { type: 'set_time_scale', time_scale: v }));
    c.integrator = fr.add(p, 'integrator', ['euler', 'rk4']).name(t('panel.integrator'));
    c.integrator.onChange((/** @type {'euler' | 'rk4' | 'geometric' | 'exact'} */ v) => this.send([c.integrator], { type: 'set_params', integrator: v }));
    c.step = fr.add(p, 'step').name(t('panel.stepsize'));
    c.step.onFinishChange((/** @type {number} */ v) => this.send([c.step], { type: 'set_params', step: v }));

    const fi = gui.addFolder(t('panel.input'));
    c.frame = fi.add(p, 'frame', { [t('panel.frame.global')]: 'global', [t('panel.frame.body')]: 'body' }).name(t('panel.frame'));
    c.frame.onChange(() => this.relabel());
    for (const k of ['Fx', 'Fy', 'Fz', 'Mx', 'My', 'Mz']) c[k] = fi.add(p, k);
    const vecCtl = ['Fx', 'Fy', 'Fz', 'Mx', 'My', 'Mz'].map((k) => c[k]);
    c.applyConstant = fi.add({ go: () => this.sendInput('constant', vecCtl) }, 'go').name(t('panel.set_constant'));
    c.clear = fi.add({ go: () => this.clearConstant(vecCtl) }, 'go').name(t('panel.clear_constant'));
    // The held push has values of its own, zero until set: it acts only while the button is
    // held, on top of the constant input, which it never changes.
    const fh = fi.addFolder(t('panel.held'));
    for (const k of ['hFx', 'hFy', 'hFz', 'hMx', 'hMy', 'hMz']) c[k] = fh.add(p, k);
    const heldCtl = ['hFx', 'hFy', 'hFz', 'hMx', 'hMy', 'hMz'].map((k) => c[k]);
    c.hold = fh.add({ go: () => {} }, 'go').name(t('panel.held.button'));
    this.holdButton(c.hold, heldCtl);
    c.pushAccel = fi.add(p, 'pushAccel', 0.5, 50, 0.5).name(t('panel.key_push'));
    c.pushAlpha = fi.add(p, 'pushAlpha', 0.5, 50, 0.5).name(t('panel.key_turn'));

    const fb = gui.addFolder(t('panel.bodyfolder'));
    c.Mass = fb.add(p, 'Mass').name(t('panel.mass'));
    c.InertiaRadi = fb.add(p, 'InertiaRadi').name(t('panel.radi'));
    c.Inertia = fb.add(p, 'Inertia').name(t('panel.inertia'));
    c.CGOffset = fb.add(p, 'CGOffset').name(t('panel.cgoffset'));
    c.Gravity = fb.add(p, 'Gravity').name(t('panel.gravity'));
    c.model = fb.add(p, 'model', ['full', 'fhsim']).name(t('panel.model'));
    this.modelNote = this.note(c.model, MODEL_NOTE.full);
    c.model.onChange((/** @type {'full' | 'fhsim'} */ v) => {
      this.modelNote.textContent = MODEL_NOTE[v] ?? '';
      this.send([c.model], { type: 'set_params', model: v });
    });
    this.numberParam('Mass');
    this.numberParam('Gravity');
    this.vectorParam('InertiaRadi');
    this.vectorParam('CGOffset');
    c.Inertia.onFinishChange((/** @type {string} */ text) => {
      if (!String(text).trim()) return this.send([c.Inertia], { type: 'set_params', Inertia: null });
      const v = parseVector(text, 6);
      if (!v) return this.errors.show(c.Inertia, t('panel.err.inertia'));
      this.send([c.Inertia], { type: 'set_params', Inertia: /** @type {[number, number, number, number, number, number]} */ (v) });
    });

    const fl = addLookFolder(this, deps.upload); // Mesh, its file, Material, sizes, Inertia from shape

    // A ghost run: the room's own inputs through other settings, drawn beside the body.
    const fg = gui.addFolder(t('panel.ghost'));
    const same = t('panel.same');
    c.ghostModel = fg.add(p, 'ghostModel', { [same]: 'same', full: 'full', fhsim: 'fhsim' }).name(t('panel.ghost.model'));
    c.ghostIntegrator = fg.add(p, 'ghostIntegrator', { [same]: 'same', euler: 'euler', rk4: 'rk4', geometric: 'geometric', exact: 'exact' }).name(t('panel.ghost.integrator'));
    c.ghostStep = fg.add(p, 'ghostStep').name(t('panel.ghost.step'));
    c.ghostMass = fg.add(p, 'ghostMass').name(t('panel.ghost.mass'));
    c.ghostStart = fg.add({ go: () => this.startGhost() }, 'go').name(t('panel.ghost.start'));
    c.ghostStop = fg.add({ go: () => this.actions.ghost(null, c.ghostStop) }, 'go').name(t('panel.ghost.stop'));
    fg.close();

    addViewFolders(this); // Show, Camera, Access: what this page draws and how

    // the protocol field each controller edits: its key, but the vector parts edit one vector
    for (const [k, ctl] of Object.entries(c)) setField(ctl, k);
    for (const k of ['Fx', 'Fy', 'Fz', 'hFx', 'hFy', 'hFz']) setField(c[k], 'Force');
    for (const k of ['Mx', 'My', 'Mz', 'hMx', 'hMy', 'hMz']) setField(c[k], 'Moment');
    setField(c.colour, 'Material');
    this.relabel();
    fl.close();
    fi.close();
  }

  /** The ghost's settings from the Ghost run folder (empty or "same": as the room). */
  startGhost() {
    const p = this.p;
    /** @type {import('../net/messages.gen.js').GhostSettings} */ const changes = {};
    if (p.ghostModel !== 'same') changes.model = p.ghostModel;
    if (p.ghostIntegrator !== 'same') changes.integrator = p.ghostIntegrator;
    for (const [key, field] of /** @type {const} */ ([['ghostStep', 'step'], ['ghostMass', 'Mass']])) {
      const text = String(p[key]).trim();
      if (text) changes[field] = Number(text);
    }
    if (!Object.keys(changes).length) return this.errors.show(this.c.ghostStart, t('panel.err.ghost'));
    this.errors.clear(this.c.ghostStart);
    this.actions.ghost(changes, this.c.ghostStart);
  }

  /** The preset menu focused, its panel and folder open (the O key). */
  focusPreset() {
    this.gui.open();
    this.c.preset.parent.open();
    /** @type {HTMLSelectElement | null} */ (this.c.preset.domElement.querySelector('select'))?.focus();
  }

  reloadPreset() {
    if (!this.p.preset) return this.errors.show(this.c.reload, t('panel.err.notpreset'));
    this.actions.loadPreset(this.p.preset, this.c.reload);
  }

  /** A line of explanation under a controller. @param {Controller} ctl @param {string} text */
  note(ctl, text) {
    const div = document.createElement('div');
    div.className = 'sixdof-note';
    div.textContent = text;
    ctl.domElement.after(div); // a row of its own under the controller
    return div;
  }

  /** @param {'Mass' | 'Gravity'} key  a number field of set_params */
  numberParam(key) {
    const ctl = this.c[key];
    ctl.onFinishChange((/** @type {number} */ v) => {
      if (!Number.isFinite(v)) return this.errors.show(ctl, t('panel.err.number', { field: key }));
      const msg = /** @type {import('../net/messages.gen.js').SetParams} */ ({ type: 'set_params' });
      msg[key] = v;
      this.send([ctl], msg);
    });
  }

  /**
   * @param {'InertiaRadi' | 'CGOffset' | 'MeshScale' | 'Size' | 'MeshOrigin'} key  a vector field of set_params
   * @param {GUI | null} [folder] @param {string | null} [label]
   */
  vectorParam(key, folder = null, label = null) {
    if (folder) this.c[key] = folder.add(this.p, key).name(label ?? key);
    const ctl = this.c[key];
    ctl.onFinishChange((/** @type {string} */ text) => {
      const v = parseVector(text, 3);
      if (!v) return this.errors.show(ctl, t('panel.err.vector', { field: key }));
      const msg = /** @type {import('../net/messages.gen.js').SetParams} */ ({ type: 'set_params' });
      msg[key] = [v[0], v[1], v[2]];
      this.send([ctl], msg);
    });
  }

  relabel() {
    const body = this.p.frame === 'body';
    const ax = body ? ['x', 'y', 'z'] : ['N', 'E', 'D'];
    ['Fx', 'Fy', 'Fz'].forEach((k, i) => this.c[k].name(t('panel.force', { axis: ax[i] })));
    ['Mx', 'My', 'Mz'].forEach((k, i) => this.c[k].name(t('panel.moment', { axis: ax[i] })));
    ['hFx', 'hFy', 'hFz'].forEach((k, i) => this.c[k].name(t('panel.push', { axis: ax[i] })));
    ['hMx', 'hMy', 'hMz'].forEach((k, i) => this.c[k].name(t('panel.push_moment', { axis: ax[i] })));
  }

  /**
   * Send a message on behalf of `ctls`: an ack clears their error, an error is shown on the one
   * it names and their fields go back to the server's values. `onAck` runs after an ack,
   * `onError` after an error.
   * @param {Controller[]} ctls
   * @param {import('../net/messages.gen.js').ClientMessage} msg
   * @param {((ack: import('../net/messages.gen.js').Ack) => void) | null} [onAck]
   * @param {((err: import('../net/messages.gen.js').ErrorMessage) => void) | null} [onError]
   */
  send(ctls, msg, onAck = null, onError = null) {
    const body = this.bodyName;
    if (body && (msg.type === 'set_params' || msg.type === 'set_input')) msg = { body, ...msg };
    const id = this.conn.send(msg, {
      onAck: (ack) => {
        ctls.forEach((ctl) => this.errors.clear(ctl));
        onAck?.(ack);
      },
      onError: (err) => {
        this.errors.showServer(ctls, err);
        this.restore(ctls);
        onError?.(err);
      },
    });
    if (id === null) this.errors.show(ctls[0], t('panel.err.offline'));
    return id;
  }

  /** Put the server's values back into these controllers' fields (after a refusal). @param {Controller[]} ctls */
  restore(ctls) {
    const values = this.serverValues();
    if (!values) return;
    for (const ctl of ctls) {
      if (!(ctl.property in values)) continue; // e.g. Force typed in the body frame: no server value
      this.p[ctl.property] = values[ctl.property];
      ctl.updateDisplay();
    }
    this.modelNote.textContent = MODEL_NOTE[this.p.model] ?? '';
  }

  /**
   * The Force and Moment typed in the panel (prefix ''), or the held push's own (prefix 'h'),
   * in the panel's frame.
   * @param {'' | 'h'} [prefix]
   */
  typedInput(prefix = '') {
    const p = this.p;
    /** @param {string} k */
    const num = (k) => (Number.isFinite(p[prefix + k]) ? p[prefix + k] : 0);
    /** @type {[number, number, number]} */
    const Force = [num('Fx'), num('Fy'), num('Fz')];
    /** @type {[number, number, number]} */
    const Moment = [num('Mx'), num('My'), num('Mz')];
    return { frame: p.frame, Force, Moment };
  }

  /** @param {'constant' | 'push'} channel @param {Controller[]} ctls */
  sendInput(channel, ctls) {
    this.send(ctls, { type: 'set_input', channel, ...this.typedInput(), point: null });
  }

  /** @param {Controller[]} ctls */
  clearConstant(ctls) {
    for (const k of ['Fx', 'Fy', 'Fz', 'Mx', 'My', 'Mz']) this.p[k] = 0;
    this.gui.controllersRecursive().forEach((ctl) => ctl.updateDisplay());
    this.send(ctls, { type: 'set_input', channel: 'constant', frame: 'global', Force: [0, 0, 0], Moment: [0, 0, 0] });
  }

  /** A button that pushes while the pointer holds it down. @param {Controller} ctl @param {Controller[]} ctls */
  holdButton(ctl, ctls) {
    const el = ctl.domElement.querySelector('button') ?? ctl.domElement;
    let held = false;
    /** @param {Event} ev */
    const down = (ev) => {
      ev.preventDefault();
      if (held) return; // a held key repeats
      held = true;
      this.actions.push('panel', { ...this.typedInput('h'), point: null }, ctls);
    };
    const up = () => {
      if (!held) return;
      held = false;
      this.actions.push('panel', null, ctls);
    };
    el.addEventListener('pointerdown', down);
    for (const ev of ['pointerup', 'pointerleave', 'pointercancel', 'blur']) el.addEventListener(ev, up);
    // the keyboard holds it too: Enter or Space down pushes, up lets go
    const isPress = (/** @type {KeyboardEvent} */ ev) => ev.key === 'Enter' || ev.key === ' ';
    el.addEventListener('keydown', (ev) => isPress(ev) && down(ev));
    el.addEventListener('keyup', (ev) => isPress(ev) && (ev.preventDefault(), up()));
  }

  /** Follow a hello: every value from the server's scenario, integrator and status. @param {Hello} hello @param {string} bodyName */
  fromHello(hello, bodyName) {
    const key = JSON.stringify([hello.scenario, hello.integrator, hello.step]);
    if (key !== this.helloKey) this.errors.clearAll(); // a preset loaded or another change accepted
    this.helloKey = key;
    this.hello = hello;
    this.bodyName = bodyName;
    const c = this.c;
    const presets = Object.fromEntries([[t('panel.choose'), ''], ...hello.presets.map((x) => [presetText(x, 'title'), x.name])]);
    c.preset.options(presets);
    const names = hello.scenario.bodies.map((b) => b.Name);
    c.body.options(names);
    c.body.show(names.length > 1);
    if (hello.limits?.integrators) c.integrator.options(hello.limits.integrators);
    const canControl = hello.can_control !== false;
    for (const ctl of Object.values(this.c)) {
      if (!DISPLAY_ONLY.has(fieldOf(ctl))) ctl.disable(!canControl);
    }
    this.p.body = bodyName;
    this.refresh();
  }

  /** The selected body's spec in the last hello. */
  selectedSpec() {
    const bodies = this.hello?.scenario.bodies ?? [];
    return bodies.find((x) => x.Name === this.bodyName) ?? bodies[0] ?? null;
  }

  /** The panel's values as the server has them (last hello and status), keyed like `this.p`. */
  serverValues() {
    const b = this.selectedSpec();
    return this.hello && b ? serverValues(this.hello, b, this.p, this.shownTimeScale) : null;
  }

  refresh() {
    const hello = this.hello;
    if (!hello) return;
    const p = this.p;
    this.bodyName = p.body || hello.scenario.bodies[0].Name;
    const b = this.selectedSpec();
    if (!b) return;
    this.setStatus(hello.status);
    const values = this.serverValues() ?? {};
    delete values.time_scale; // follows setStatus, which every state frame calls
    Object.assign(p, values);
    refreshLook(this, b);
    const mats = Object.keys(this.library.materials);
    this.c.Material.options(mats.includes(b.Material) ? mats : [b.Material, ...mats]);
    this.c.reload.disable(!p.preset || hello.can_control === false);
    this.modelNote.textContent = MODEL_NOTE[p.model] ?? '';
    this.gui.controllersRecursive().forEach((ctl) => ctl.updateDisplay());
  }

  /** Follow the running status (pause button label, time scale); called for every frame. @param {import('../net/messages.gen.js').Status | undefined} status */
  setStatus(status) {
    if (!status) return;
    if (status.running === this.shownRunning && status.time_scale === this.p.time_scale) return;
    this.shownRunning = status.running;
    this.p.running = status.running;
    this.c.run.name(t(status.running ? 'panel.pause' : 'panel.resume'));
    if (!Object.values(TIME_SCALES).includes(status.time_scale)) {
      this.c.time_scale.options({ ...TIME_SCALES, [`${status.time_scale} ×`]: status.time_scale });
    }
    this.p.time_scale = status.time_scale;
    this.shownTimeScale = status.time_scale;
    this.c.time_scale.updateDisplay();
  }
}
