// @ts-check
// The panel's Elements folder (issue 27): the room's pivots, springs, dampers, grounds and
// loads, each in a folder of its own with its tunable numbers and a Remove button, and an Add
// folder (pivot at a body point, spring to a world point or another body, damper, ground, a
// joint from the selected body to another one or the world, where the point is).
// The server keeps the list: every change sends the whole new list (`set_elements`), the
// server decides, and the next hello rebuilds the folders. A refusal (an `error` naming
// `elements[k].field` and its range) is shown under that element's control and the field goes
// back to the server's value, as the panel does for Mass and Inertia (panel.js, controls.js).

import { ControlErrors, formatVector, outside, parseVector, rangeText, setField } from './controls.js';
import { has, num, t } from '../core/i18n.js';
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
const JOINT_TYPES = ['ball', 'hinge', 'slider', 'fixed'];

/** @typedef {{point: number[], world: number[], size: number}} Anchor  a body point (body axes), where it is (NED), the body's size (m) */

export class ElementPanel {
  /**
   * @param {import('./panel.js').Panel} panel  the page's panel: its lil-gui, connection and body
   * @param {{below: () => number, anchor: () => Anchor | null}} opts  below(): the NED z just under the selected
   *   body (a new ground's default height); anchor(): where a new element's ends go by default
   */
  constructor(panel, { below, anchor }) {
    this.panel = panel;
    this.below = below;
    this.anchor = anchor;
    /** the Add form's point and far end were typed (not suggested): they are sent as typed */
    this.edited = false;
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
    this.add = { kind: 'spring', point: '0, 0, 0', target: WORLD, targetPoint: '0, 0, 0', height: '', type: 'hinge', axis: '0, 1, 0', go: () => this.addElement() };
    const fa = this.folder.addFolder(t('elements.add'));
    this.addFolder = fa;
    fa.domElement.classList.add('sixdof-element-add');
    const kinds = Object.fromEntries(ADDABLE.map((k) => [t(`elements.kind.${k}`), k]));
    /** @type {Record<string, Controller>} */
    this.ac = {
      kind: fa.add(this.add, 'kind', kinds).name(t('elements.field.kind')).onChange(() => (this.showAddFields(), this.suggest())),
      point: fa.add(this.add, 'point').name(t('elements.field.point')),
      target: fa.add(this.add, 'target', { [t('elements.world_point')]: WORLD }).name(t('elements.field.target')),
      targetPoint: fa.add(this.add, 'targetPoint').name(t('elements.field.target_point')),
      height: fa.add(this.add, 'height').name(t('elements.field.height_new')),
      type: fa.add(this.add, 'type', Object.fromEntries(JOINT_TYPES.map((k) => [t(`elements.type.${k}`), k]))).name(t('elements.field.type')).onChange(() => this.showAddFields()),
      axis: fa.add(this.add, 'axis').name(t('elements.field.axis')),
      go: fa.add(this.add, 'go').name(t('elements.add_button')),
    };
    for (const [k, ctl] of Object.entries(this.ac)) setField(ctl, k === 'targetPoint' ? 'to' : k);
    for (const ctl of [this.ac.point, this.ac.targetPoint]) ctl.onChange(() => (this.edited = true));
    this.ac.target.onChange(() => this.suggest());
    // Elements or its Add folder opened: suggest for the body as it is now
    this.folder.onOpenClose((/** @type {GUI} */ g) => !g._closed && this.suggest());
    this.showAddFields();
    this.folder.close();
  }

  /**
   * Suggest the Add form's ends until they are typed (issue 45: a new spring was zero length at
   * the origin, so Add showed nothing): the point on top of the selected body, the far end in
   * the world one body size above it (another body's end at its reference point).
   */
  suggest() {
    const a = this.anchor();
    if (this.edited || !a) return;
    this.add.point = formatVector(a.point);
    const far = [a.world[0], a.world[1], a.world[2] - a.size]; // NED z is down: above
    this.add.targetPoint = this.add.target === WORLD ? formatVector(far.map((v) => Math.round(v * 1000) / 1000)) : '0, 0, 0';
    this.ac.point.updateDisplay();
    this.ac.targetPoint.updateDisplay();
  }

  /** Show only the Add fields the chosen kind uses. */
  showAddFields() {
    const asks = KINDS[/** @type {KindName} */ (this.add.kind)].add ?? [];
    this.ac.point.show(asks.includes('point'));
    this.ac.target.show(asks.includes('to') || asks.includes('end'));
    this.ac.targetPoint.show(asks.includes('to'));
    this.ac.height.show(asks.includes('height'));
    this.ac.type.show(asks.includes('type'));
    this.ac.axis.show(asks.includes('axis') && this.add.type !== 'ball' && this.add.type !== 'fixed');
    // an "end" is met where the point is: the menu says so
    const here = asks.includes('end');
    this.ac.target.name(t(here ? 'elements.field.end' : 'elements.field.target'));
    this.targetOptions(here);
  }

  /** The other end's menu: the world or another body, at a point of its own or (here) where the point is. @param {boolean} here */
  targetOptions(here) {
    const names = (this.panel.hello?.scenario.bodies ?? []).map((b) => b.Name).filter((n) => n !== this.panel.bodyName);
    const world = t(here ? 'elements.world_here' : 'elements.world_point');
    const body = here ? 'elements.body_here' : 'elements.body_point';
    this.ac.target.options({ [world]: WORLD, ...Object.fromEntries(names.map((n) => [t(body, { body: n }), n])) });
    if (!names.includes(this.add.target)) this.add.target = WORLD;
    this.ac.target.name(t(here ? 'elements.field.end' : 'elements.field.target'));
    this.ac.target.updateDisplay();
  }

  /** Follow a hello: the folders rebuilt when the list changed, controls enabled as the room allows. @param {import('../net/messages.gen.js').Hello} hello */
  fromHello(hello) {
    const specs = hello.scenario.elements ?? [];
    this.targetOptions((KINDS[/** @type {KindName} */ (this.add.kind)].add ?? []).includes('end'));
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
      // a kind's own words where its field means more than the same name elsewhere (a joint's damping is N·m·s/rad on a hinge)
      const label = (/** @type {string} */ field) => t(has(`elements.field.${spec.kind}.${field}`) ? `elements.field.${spec.kind}.${field}` : `elements.field.${field}`);
      for (const field of facts.numbers) {
        values[field] = /** @type {Record<string, any>} */ (spec)[field];
        ctls[field] = folder.add(values, field).name(label(field));
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
        ctls[field] = folder.add(values, field).name(label(field));
        ctls[field].onFinishChange((/** @type {string} */ text) => {
          if (!String(text).trim()) return this.tune(k, field, null, ctls[field]); // none (a joint's limits); the server refuses it where a vector is needed
          const parsed = parseVector(text, Number(n));
          if (!parsed) return this.errors.show(ctls[field], t('elements.err.vector', { field, n: Number(n) }));
          this.tune(k, field, parsed, ctls[field]);
        });
      }
      const line = facts.summary;
      if (line) {
        const words = Object.fromEntries(Object.entries(spec).map(([f, v]) => [f, Array.isArray(v) ? formatVector(v) : v]));
        if (spec.kind === 'joint') words.type = t(`elements.type.${words.type}`);
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
   * @param {number} k @param {string} field @param {number | number[] | null} value @param {Controller} ctl
   */
  tune(k, field, value, ctl) {
    if (typeof value === 'number' && !Number.isFinite(value)) return this.errors.show(ctl, t('elements.err.number', { field }));
    // The server's ranges (hello.limits.elements), checked here too so the answer is at once.
    const range = this.panel.hello?.limits?.elements?.[field];
    const open = this.panel.hello?.limits?.exclusive?.[`elements.${field}`];
    const bad = range && value !== null ? outside(value, range, open) : undefined;
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
    if (asks.includes('end') && a.target !== WORLD) e.to = { body: a.target }; // met where the point is
    // a suggested spring starts relaxed at its length, hanging from where it was put
    const anchor = this.anchor();
    if (!this.edited && anchor && Array.isArray(e.to) && KINDS[/** @type {KindName} */ (a.kind)].numbers.includes('rest_length')) {
      const far = /** @type {number[]} */ (e.to);
      e.rest_length = Math.round(Math.hypot(far[0] - anchor.world[0], far[1] - anchor.world[1], far[2] - anchor.world[2]) * 1000) / 1000;
    }
    if (asks.includes('type')) e.type = a.type;
    if (asks.includes('axis') && a.type !== 'ball' && a.type !== 'fixed') {
      const axis = parseVector(a.axis, 3);
      if (!axis) return this.errors.show(this.ac.axis, t('elements.err.vector', { field: 'axis', n: 3 }));
      e.axis = axis;
    }
    if (asks.includes('height')) {
      const text = String(a.height).trim();
      const height = text ? Number(text) : this.below();
      if (!Number.isFinite(height)) return this.errors.show(this.ac.height, t('elements.err.number', { field: 'height' }));
      e.height = height;
    }
    this.send([...this.copy(), /** @type {ElementInput} */ (/** @type {unknown} */ (e))], this.specs.length);
    this.edited = false; // the next one is suggested afresh
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
        else if (v === null && typeof object[ctl.property] === 'string') object[ctl.property] = ''; // none (a joint's limits)
        ctl.updateDisplay();
      }
    });
  }
}
