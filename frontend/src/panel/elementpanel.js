// @ts-check
// The panel's Elements folder (issue 27): the room's pivots, springs, dampers, grounds and
// loads, each in a folder of its own with its tunable numbers and a Remove button, and an Add
// folder (pivot at a body point, spring to a world point or another body, damper, ground).
// The server keeps the list: every change sends the whole new list (`set_elements`), the
// server decides, and the next hello rebuilds the folders. A refusal (an `error` naming
// `elements[k].field` and its range) is shown under that element's control and the field goes
// back to the server's value, as the panel does for Mass and Inertia (panel.js, controls.js).

import { ControlErrors, formatVector, outside, parseVector, rangeText, setField } from './controls.js';
import { num, t } from '../core/i18n.js';
import { KINDS } from '../core/kinds.gen.js';

/** @typedef {import('lil-gui').Controller} Controller */
/** @typedef {import('lil-gui').GUI} GUI */
/** @typedef {import('../view/elements.js').ElementSpec} ElementSpec */
/** @typedef {import('../net/messages.gen.js').SetElements['elements'][number]} ElementInput */

// What each kind tunes (numbers, then vectors typed as "1, 2, 3") and what the Add form asks
// of it are the registry's (core/kinds.gen.js, from backend/sixdof/scenario/kinds/).
/** @typedef {import('../core/kinds.gen.js').KindName} KindName */
const ADDABLE = /** @type {KindName[]} */ (Object.keys(KINDS)).filter((k) => KINDS[k].add !== null);
const WORLD = '';

export class ElementPanel {
  /**
   * @param {import('./panel.js').Panel} panel  the page's panel: its lil-gui, connection and body
   * @param {{below: () => number}} opts  below(): the NED z just under the selected body (a new ground's default height)
   */
  constructor(panel, { below }) {
    this.panel = panel;
    this.below = below;
    this.errors = new ControlErrors();
    this.folder = panel.gui.addFolder(t('elements.folder'));
    const bodyFolder = panel.c.Mass?.parent;
    if (bodyFolder) bodyFolder.domElement.after(this.folder.domElement); // right under Body
    this.folder.domElement.classList.add('sixdof-elements');
    this.empty = document.createElement('div');
    this.empty.className = 'sixdof-note';
    this.empty.textContent = t('elements.none');
    this.folder.$children.prepend(this.empty);
    /** @type {{folder: GUI, ctls: Record<string, Controller>}[]} one per element, in order */
    this.items = [];
    /** @type {Set<Controller>} controllers that only show a value */
    this.shown = new Set();
    /** @type {ElementSpec[]} the list as the server has it */
    this.specs = [];
    this.key = '';
    // the Add folder: kind, point on the body, the spring's far end, then Add
    this.add = { kind: 'spring', point: '0, 0, 0', target: WORLD, targetPoint: '0, 0, 0', height: '', go: () => this.addElement() };
    const fa = this.folder.addFolder(t('elements.add'));
    this.addFolder = fa;
    fa.domElement.classList.add('sixdof-element-add');
    const kinds = Object.fromEntries(ADDABLE.map((k) => [t(`elements.kind.${k}`), k]));
    /** @type {Record<string, Controller>} */
    this.ac = {
      kind: fa.add(this.add, 'kind', kinds).name(t('elements.field.kind')).onChange(() => this.showAddFields()),
      point: fa.add(this.add, 'point').name(t('elements.field.point')),
      target: fa.add(this.add, 'target', { [t('elements.world_point')]: WORLD }).name(t('elements.field.target')),
      targetPoint: fa.add(this.add, 'targetPoint').name(t('elements.field.target_point')),
      height: fa.add(this.add, 'height').name(t('elements.field.height_new')),
      go: fa.add(this.add, 'go').name(t('elements.add_button')),
    };
    for (const [k, ctl] of Object.entries(this.ac)) setField(ctl, k === 'targetPoint' ? 'to' : k);
    this.showAddFields();
    this.folder.close();
  }

  /** Show only the Add fields the chosen kind uses. */
  showAddFields() {
    const asks = KINDS[/** @type {KindName} */ (this.add.kind)].add ?? [];
    this.ac.point.show(asks.includes('point'));
    this.ac.target.show(asks.includes('to'));
    this.ac.targetPoint.show(asks.includes('to'));
    this.ac.height.show(asks.includes('height'));
  }

  /** Follow a hello: the folders rebuilt when the list changed, controls enabled as the room allows. @param {import('../net/messages.gen.js').Hello} hello */
  fromHello(hello) {
    const specs = hello.scenario.elements ?? [];
    const names = hello.scenario.bodies.map((b) => b.Name);
    const others = names.filter((n) => n !== this.panel.bodyName);
    this.ac.target.options({ [t('elements.world_point')]: WORLD, ...Object.fromEntries(others.map((n) => [t('elements.body_point', { body: n }), n])) });
    if (!others.includes(this.add.target)) this.add.target = WORLD;
    this.ac.target.updateDisplay();
    const key = JSON.stringify(specs);
    if (key !== this.key) {
      this.key = key;
      this.specs = specs;
      this.rebuild();
    }
    const canControl = hello.can_control !== false;
    for (const ctl of this.folder.controllersRecursive()) ctl.disable(!canControl || this.shown.has(ctl));
  }

  rebuild() {
    this.errors.clearAll();
    for (const item of this.items) item.folder.destroy();
    this.items = [];
    this.shown.clear();
    this.empty.hidden = this.specs.length > 0;
    this.specs.forEach((spec, k) => {
      const folder = this.folder.addFolder(t('elements.item', { n: k + 1, kind: t(`elements.kind.${spec.kind}`), body: spec.body }));
      this.folder.$children.insertBefore(folder.domElement, this.addFolder.domElement);
      folder.domElement.classList.add('sixdof-element', `sixdof-element-${k}`);
      /** @type {Record<string, any>} */
      const values = { remove: () => this.removeElement(k) };
      /** @type {Record<string, Controller>} */
      const ctls = {};
      const facts = KINDS[spec.kind];
      for (const field of facts.numbers) {
        values[field] = /** @type {Record<string, any>} */ (spec)[field];
        ctls[field] = folder.add(values, field).name(t(`elements.field.${field}`));
        ctls[field].onFinishChange((/** @type {number} */ v) => this.tune(k, field, v, ctls[field]));
      }
      for (const [field, n] of facts.vectors) {
        const v = /** @type {Record<string, any>} */ (spec)[field];
        if (field === 'to' && !Array.isArray(v)) {
          values.to = t('elements.body_point_at', { body: v.body, point: formatVector(v.point) });
          ctls.to = folder.add(values, 'to').name(t('elements.field.target'));
          this.shown.add(ctls.to);
          continue;
        }
        values[field] = formatVector(v);
        ctls[field] = folder.add(values, field).name(t(`elements.field.${field}`));
        ctls[field].onFinishChange((/** @type {string} */ text) => {
          const parsed = parseVector(text, Number(n));
          if (!parsed) return this.errors.show(ctls[field], t('elements.err.vector', { field, n: Number(n) }));
          this.tune(k, field, parsed, ctls[field]);
        });
      }
      const line = facts.summary;
      if (line) {
        const words = Object.fromEntries(Object.entries(spec).map(([f, v]) => [f, Array.isArray(v) ? formatVector(v) : v]));
        values[line] = t(`elements.summary.${spec.kind}`, words);
        ctls[line] = folder.add(values, line).name(t(`elements.field.${line}`));
        this.shown.add(ctls[line]);
      }
      ctls.remove = folder.add(values, 'remove').name(t('elements.remove'));
      for (const [field, ctl] of Object.entries(ctls)) setField(ctl, field);
      this.items.push({ folder, ctls });
    });
  }

  /** The list as the server has it, as plain values to change and send. @returns {ElementInput[]} */
  copy() {
    return JSON.parse(JSON.stringify(this.specs));
  }

  /**
   * Element k's `field` set to `value` (a pivot's new point is held where it is now).
   * @param {number} k @param {string} field @param {number | number[]} value @param {Controller} ctl
   */
  tune(k, field, value, ctl) {
    if (typeof value === 'number' && !Number.isFinite(value)) return this.errors.show(ctl, t('elements.err.number', { field }));
    // The server's ranges (hello.limits.elements), checked here too so the answer is at once.
    const range = this.panel.hello?.limits?.elements?.[field];
    const open = this.panel.hello?.limits?.exclusive?.[`elements.${field}`];
    const bad = range ? outside(value, range, open) : undefined;
    if (range && bad !== undefined) {
      return this.errors.show(ctl, t('elements.err.range', { field, range: rangeText(range, open), got: num(bad) }));
    }
    const list = this.copy();
    const e = /** @type {Record<string, any>} */ (list[k]);
    e[field] = value;
    const released = KINDS[/** @type {KindName} */ (e.kind)].releases[field];
    if (released) e[released] = null;
    this.send(list, k);
  }

  /** @param {number} k */
  removeElement(k) {
    const list = this.copy();
    list.splice(k, 1);
    this.send(list, k);
  }

  addElement() {
    const a = this.add;
    const body = this.panel.bodyName ?? this.panel.hello?.scenario.bodies[0]?.Name;
    const asks = KINDS[/** @type {KindName} */ (a.kind)].add;
    if (!body || !asks) return;
    /** @type {Record<string, unknown>} the kind, its body, then the fields asked for, in the form's order */
    const e = { kind: a.kind, body, ...structuredClone(KINDS[/** @type {KindName} */ (a.kind)].defaults) };
    if (asks.includes('point')) {
      const point = parseVector(a.point, 3);
      if (!point) return this.errors.show(this.ac.point, t('elements.err.vector', { field: 'point', n: 3 }));
      e.point = point;
    }
    if (asks.includes('to')) {
      const far = parseVector(a.targetPoint, 3);
      if (!far) return this.errors.show(this.ac.targetPoint, t('elements.err.vector', { field: 'to', n: 3 }));
      e.to = a.target === WORLD ? far : { body: a.target, point: far };
    }
    if (asks.includes('height')) {
      const text = String(a.height).trim();
      const height = text ? Number(text) : this.below();
      if (!Number.isFinite(height)) return this.errors.show(this.ac.height, t('elements.err.number', { field: 'height' }));
      e.height = height;
    }
    this.send([...this.copy(), /** @type {ElementInput} */ (/** @type {unknown} */ (e))], this.specs.length);
  }

  /**
   * Send the new list on behalf of element k (k = the list's length: the Add folder): an ack
   * clears the error lines (the hello that follows rebuilds the folders), an error is shown
   * under the control it names and the fields go back to the server's values.
   * @param {ElementInput[]} elements @param {number} k
   */
  send(elements, k) {
    const item = this.items[k];
    const ctls = item ? Object.values(item.ctls) : Object.values(this.ac);
    const id = this.panel.conn.send({ type: 'set_elements', elements }, {
      onAck: () => this.errors.clearAll(),
      onError: (err) => {
        const named = /elements[.[](\d+)/.exec(String(err.field ?? ''));
        const at = named ? this.items[Number(named[1])] : item;
        const own = at ? Object.values(at.ctls) : ctls;
        this.errors.showServer(own, err);
        this.restore();
      },
    });
    if (id === null) this.errors.show(ctls[0], t('panel.err.offline'));
  }

  /** Every field back to the server's value (after a refusal). */
  restore() {
    this.items.forEach((item, k) => {
      const spec = /** @type {Record<string, any>} */ (this.specs[k]);
      for (const ctl of Object.values(item.ctls)) {
        const v = spec?.[ctl.property];
        const object = /** @type {Record<string, unknown>} */ (ctl.object);
        if (typeof v === 'number') object[ctl.property] = v;
        else if (Array.isArray(v)) object[ctl.property] = formatVector(v);
        ctl.updateDisplay();
      }
    });
  }
}
