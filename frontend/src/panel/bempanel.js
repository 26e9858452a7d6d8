// @ts-check
// The Water folder's "Hydrodynamics (BEM)" part (issue 43): Compute hydrodynamics runs
// `sixdof bem` on the server for the selected floating body (POST /api/rooms/{room}/bem: a
// child process; the room keeps running), a line follows its frequencies done of total
// (GET …/bem, twice a second while it runs), and once it is done "Add radiation damping" adds
// a `radiation` element with the fitted memory to the room's elements through set_elements,
// as the Elements folder sends them (one radiation per body: an older one is replaced).
// "Hydrodynamics…" opens the card of the body's radiation memory (hydrocard.js).

import { t } from '../core/i18n.js';
import { HydroCard } from './hydrocard.js';

/** How often a running job is asked about, ms. */
const POLL_MS = 500;

export class BemPanel {
  /**
   * @param {import('./panel.js').Panel} panel  the page's panel: its connection and hello
   * @param {import('lil-gui').GUI} parent  the Water folder
   * @param {{room: string, token: string | null, view: HTMLElement}} where  (view: where the card goes)
   */
  constructor(panel, parent, { room, token, view }) {
    this.panel = panel;
    this.room = room;
    this.token = token;
    this.folder = parent.addFolder(t('bem.folder'));
    this.folder.domElement.classList.add('sixdof-bem');
    /** @type {Record<string, any> | null} the fitted memory of the last job done */
    this.fit = null;
    /** @type {string | null} its body */
    this.fitBody = null;
    this.running = false;
    this.card = new HydroCard(view, { room });
    const v = { compute: () => this.start(), add: () => this.add(), card: () => this.openCard() };
    this.computeButton = this.folder.add(v, 'compute').name(t('bem.compute'));
    this.addButton = this.folder.add(v, 'add').name(t('bem.add'));
    this.addButton.domElement.classList.add('sixdof-bem-add');
    this.cardButton = this.folder.add(v, 'card').name(t('hydro.open'));
    this.cardButton.domElement.classList.add('sixdof-hydro-open');
    this.line = document.createElement('div');
    this.line.className = 'sixdof-note sixdof-bem-status';
    this.folder.$children.append(this.line);
    this.addButton.show(false);
    this.folder.close();
  }

  /** The body a job is for: the selected one if it floats, else the only floating one. */
  body() {
    const elements = this.panel.hello?.scenario.elements ?? [];
    const floating = elements.filter((e) => e.kind === 'buoyancy').map((e) => e.body);
    const selected = this.panel.bodyName;
    if (selected && floating.includes(selected)) return selected;
    return floating.length === 1 ? floating[0] : null;
  }

  /** The body whose radiation memory the card shows: the selected one, else the first. */
  radiating() {
    const bodies = (this.panel.hello?.scenario.elements ?? []).filter((e) => e.kind === 'radiation').map((e) => e.body);
    const selected = this.panel.bodyName;
    return selected && bodies.includes(selected) ? selected : (bodies[0] ?? null);
  }

  openCard() {
    const body = this.radiating();
    if (body) this.card.open(body);
  }

  /** Follow a hello: Compute only for a floating body, and for a page that may control. */
  fromHello() {
    this.cardButton.show(this.radiating() !== null);
    if (!this.card.el.hidden && this.radiating()) this.openCard(); // the memory may have changed
    else if (!this.radiating()) this.card.toggle(false);
    const canControl = this.panel.hello?.can_control !== false;
    const body = this.body();
    this.computeButton.disable(!canControl || !body || this.running === true);
    this.addButton.disable(!canControl);
    if (!body && !this.running) this.say(t('bem.no_body'));
  }

  /** @param {string} text */
  say(text) {
    this.line.textContent = text;
  }

  /** The job's URL (with the token, if the page has one). */
  url() {
    const api = new URL(`api/rooms/${encodeURIComponent(this.room)}/bem`, window.location.href);
    if (this.token) api.searchParams.set('token', this.token);
    return api;
  }

  async start() {
    const body = this.body();
    if (!body) return this.say(t('bem.no_body'));
    this.running = true;
    this.computeButton.disable(true);
    this.addButton.show(false);
    this.say(t('bem.starting', { body }));
    try {
      const reply = await fetch(this.url(), { method: 'POST', body: JSON.stringify({ body }), headers: { 'Content-Type': 'application/json' } });
      const answer = await reply.json();
      if (!reply.ok) throw new Error(typeof answer.detail === 'string' ? answer.detail : JSON.stringify(answer.detail));
      this.follow(answer);
    } catch (err) {
      this.end(t('bem.failed', { error: err instanceof Error ? err.message : String(err) }));
    }
  }

  /** Show a job's state; ask again while it runs. @param {Record<string, any>} job */
  follow(job) {
    if (job.state === 'running') {
      this.say(t('bem.progress', { body: job.body, done: job.done, total: job.total, panels: job.panels }));
      setTimeout(() => this.poll(), POLL_MS);
    } else if (job.state === 'done') {
      this.fit = job.fit;
      this.fitBody = job.body;
      this.addButton.show(true);
      this.end(t('bem.done', { body: job.body, states: job.fit.A.length, error: (100 * job.fit.error).toFixed(1) }));
    } else {
      this.end(t('bem.failed', { error: job.error ?? job.state }));
    }
  }

  async poll() {
    try {
      const reply = await fetch(this.url());
      this.follow(await reply.json());
    } catch (err) {
      this.end(t('bem.failed', { error: err instanceof Error ? err.message : String(err) }));
    }
  }

  /** @param {string} text */
  end(text) {
    this.running = false;
    this.say(text);
    this.fromHello();
  }

  /** The room's elements with a radiation element of the fit (replacing the body's own). */
  add() {
    const hello = this.panel.hello;
    if (!hello || !this.fit || !this.fitBody) return;
    const body = this.fitBody;
    const kept = hello.scenario.elements.filter((e) => !(e.kind === 'radiation' && e.body === body));
    const element = { kind: 'radiation', body, fit: this.fit };
    const elements = /** @type {typeof kept} */ ([...kept, element]);
    const id = this.panel.conn.send({ type: 'set_elements', elements }, {
      onAck: () => this.say(t('bem.added', { body })),
      onError: (err) => this.say(t('bem.failed', { error: err.message ?? String(err) })),
    });
    if (id === null) this.say(t('panel.err.offline'));
  }
}
