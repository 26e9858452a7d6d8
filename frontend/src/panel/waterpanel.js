// @ts-check
// The panel's Water folder (issue 28): the scenario's water, tuned live. A checkbox puts water
// in the scenario or takes it out; then its density, still level (NED z), current (N, E, D),
// depth (Deep water: none) and the wave components, one folder each (amplitude, period,
// direction, Remove), and Add a wave. Every change sends the whole new water
// (`set_water`); the server decides and re-sends hello, which rebuilds the folder on every
// page of the room. Values are checked against hello.limits.water first (an end named in
// hello.limits.exclusive, depth's 0, refused too), as the Elements folder does with
// hello.limits.elements; a refusal (an `error` naming `water.field` or
// `water.waves[k].field`) shows under that control and the fields go back to the server's values.

import { ControlErrors, formatVector, outside, parseVector, rangeText, setField } from './controls.js';
import { num, t } from '../core/i18n.js';

/** @typedef {import('lil-gui').Controller} Controller */
/** @typedef {import('lil-gui').GUI} GUI */
/** @typedef {import('../net/messages.gen.js').WaterSpec} WaterSpec */
/** @typedef {import('../net/messages.gen.js').WaveSpec} WaveSpec */

/** A new water: still, sea water, its surface at NED z = 0 (water.py's defaults). */
export const DEFAULT_WATER = Object.freeze({ density: 1025, level: 0, current: [0, 0, 0], waves: [], depth: null });
/** A new wave component: a long, gentle swell travelling north. */
export const DEFAULT_WAVE = Object.freeze({ amplitude: 0.2, period: 6, direction: 0 });
const DEFAULT_DEPTH = 20; // m, when Deep water is unticked

export class WaterPanel {
  /**
   * @param {import('./panel.js').Panel} panel  the page's panel: its lil-gui and connection
   * @param {HTMLElement | null} [after]  the folder to sit under (the Elements folder)
   */
  constructor(panel, after = null) {
    this.panel = panel;
    this.errors = new ControlErrors();
    this.folder = panel.gui.addFolder(t('water.folder'));
    if (after) after.after(this.folder.domElement);
    this.folder.domElement.classList.add('sixdof-water');
    /** @type {WaterSpec | null} the water as the server has it */
    this.water = null;
    this.key = '';
    /** @type {Record<string, any>} */
    this.v = { on: false, density: 1025, level: 0, current: '0, 0, 0', deep: true, depth: DEFAULT_DEPTH, add: () => this.addWave() };
    const f = this.folder;
    const v = this.v;
    /** @type {Record<string, Controller>} */
    this.c = {
      on: f.add(v, 'on').name(t('water.on')),
      density: f.add(v, 'density').name(t('water.density')),
      level: f.add(v, 'level').name(t('water.level')),
      current: f.add(v, 'current').name(t('water.current_field')),
      deep: f.add(v, 'deep').name(t('water.deep')),
      depth: f.add(v, 'depth').name(t('water.depth')),
    };
    this.c.on.onChange((/** @type {boolean} */ on) => this.send(on ? { ...this.base(), ...this.copy() } : null, this.c.on));
    for (const field of ['density', 'level', 'depth']) {
      this.c[field].onFinishChange((/** @type {number} */ x) => this.tune(field, x, this.c[field]));
    }
    this.c.current.onFinishChange((/** @type {string} */ text) => {
      const vec = parseVector(text, 3);
      if (!vec) return this.errors.show(this.c.current, t('water.err.vector', { field: 'current' }));
      this.tune('current', vec, this.c.current);
    });
    this.c.deep.onChange((/** @type {boolean} */ deep) => this.tune('depth', deep ? null : Number(this.v.depth) || DEFAULT_DEPTH, this.c.deep));
    for (const [field, ctl] of Object.entries(this.c)) setField(ctl, field);
    setField(this.c.deep, 'depth');
    this.wavesFolder = f.addFolder(t('water.waves'));
    this.wavesFolder.domElement.classList.add('sixdof-waves');
    this.noWaves = document.createElement('div');
    this.noWaves.className = 'sixdof-note';
    this.noWaves.textContent = t('water.no_waves');
    this.wavesFolder.$children.prepend(this.noWaves);
    this.addButton = this.wavesFolder.add(v, 'add').name(t('water.add_wave'));
    /** @type {{folder: GUI, ctls: Record<string, Controller>}[]} one per wave component */
    this.items = [];
    this.show();
    this.folder.close();
  }

  /** The water as the server has it, as plain values to change (a new one when there is none). @returns {WaterSpec} */
  copy() {
    return JSON.parse(JSON.stringify(this.water ?? DEFAULT_WATER));
  }

  /** What a new water starts from. @returns {WaterSpec} */
  base() {
    return JSON.parse(JSON.stringify(DEFAULT_WATER));
  }

  /** Show the fields that apply: none without water, Depth only when not deep. */
  show() {
    const on = !!this.water;
    for (const k of ['density', 'level', 'current', 'deep']) this.c[k].show(on);
    this.c.depth.show(on && this.water?.depth != null);
    this.wavesFolder.show(on);
  }

  /** Follow a hello: the fields and the wave folders from the server's water. @param {import('../net/messages.gen.js').Hello} hello */
  fromHello(hello) {
    const water = hello.scenario.water ?? null;
    const key = JSON.stringify(water);
    if (key !== this.key) {
      this.key = key;
      this.water = water;
      this.errors.clearAll();
      this.restore();
      this.rebuild();
    }
    const canControl = hello.can_control !== false;
    for (const ctl of this.folder.controllersRecursive()) ctl.disable(!canControl);
  }

  /** Every field back to the server's value. */
  restore() {
    const w = this.water;
    Object.assign(this.v, {
      on: !!w,
      density: w?.density ?? DEFAULT_WATER.density,
      level: w?.level ?? 0,
      current: formatVector(w?.current ?? [0, 0, 0]),
      deep: w?.depth == null,
      depth: w?.depth ?? (Number(this.v.depth) || DEFAULT_DEPTH),
    });
    for (const ctl of Object.values(this.c)) ctl.updateDisplay();
    (this.water?.waves ?? []).forEach((wave, k) => {
      const item = this.items[k];
      if (!item) return;
      for (const [field, ctl] of Object.entries(item.ctls)) {
        const x = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (wave))[field];
        if (typeof x === 'number') /** @type {Record<string, unknown>} */ (ctl.object)[field] = x;
        ctl.updateDisplay();
      }
    });
    this.show();
  }

  /** One folder per wave component, before the Add button. */
  rebuild() {
    for (const item of this.items) item.folder.destroy();
    this.items = [];
    const waves = this.water?.waves ?? [];
    this.noWaves.hidden = waves.length > 0;
    waves.forEach((wave, k) => {
      const folder = this.wavesFolder.addFolder(t('water.wave', { n: k + 1 }));
      this.wavesFolder.$children.insertBefore(folder.domElement, this.addButton.domElement);
      folder.domElement.classList.add('sixdof-wave', `sixdof-wave-${k}`);
      /** @type {Record<string, any>} */
      const values = { ...wave, remove: () => this.removeWave(k) };
      /** @type {Record<string, Controller>} */
      const ctls = {};
      for (const field of ['amplitude', 'period', 'direction']) {
        ctls[field] = folder.add(values, field).name(t(`water.field.${field}`));
        ctls[field].onFinishChange((/** @type {number} */ x) => this.tune(field, x, ctls[field], k));
        setField(ctls[field], field);
      }
      const remove = folder.add(values, 'remove').name(t('water.remove_wave'));
      setField(remove, 'waves');
      this.items.push({ folder, ctls: { ...ctls, remove } });
    });
    this.show();
  }

  /**
   * Set `field` of the water (or of wave k) to `value`, checked against the server's range.
   * @param {string} field @param {number | number[] | null} value @param {Controller} ctl @param {number} [k]  the wave
   */
  tune(field, value, ctl, k) {
    if (typeof value === 'number' && !Number.isFinite(value)) return this.errors.show(ctl, t('water.err.number', { field }));
    const limits = this.panel.hello?.limits; // the server's ranges, an end it refuses itself marked
    const range = limits?.water?.[field];
    const open = limits?.exclusive?.[`water.${field}`];
    const bad = range && value != null ? outside(value, range, open) : undefined;
    if (range && bad !== undefined) {
      this.restore();
      return this.errors.show(ctl, t('water.err.range', { field, range: rangeText(range, open), got: num(bad) }));
    }
    const water = this.copy();
    if (k === undefined) /** @type {Record<string, any>} */ (water)[field] = value;
    else /** @type {Record<string, any>} */ (water.waves[k])[field] = value;
    this.send(water, ctl);
  }

  addWave() {
    const water = this.copy();
    water.waves.push({ ...DEFAULT_WAVE });
    this.send(water, this.addButton);
  }

  /** @param {number} k */
  removeWave(k) {
    const water = this.copy();
    water.waves.splice(k, 1);
    this.send(water, this.items[k]?.ctls.remove ?? this.addButton);
  }

  /**
   * Send the new water (null: none) on behalf of `ctl`: an ack clears the error lines (the
   * hello that follows rebuilds the folder), an error shows under the control it names.
   * @param {WaterSpec | null} water @param {Controller} ctl
   */
  send(water, ctl) {
    const id = this.panel.conn.send({ type: 'set_water', water }, {
      onAck: () => this.errors.clearAll(),
      onError: (err) => {
        const named = /waves[.[](\d+)/.exec(String(err.field ?? ''));
        const item = named ? this.items[Number(named[1])] : null;
        this.errors.showServer(item ? Object.values(item.ctls) : [ctl, ...Object.values(this.c)], err);
        this.restore();
      },
    });
    if (id === null) this.errors.show(ctl, t('panel.err.offline'));
  }
}
