// @ts-check
// The water card under the view: the selected body's waterline (Draft, Heel, Trim from its
// frame; the wave elevation under it when there are waves) and, when the hello carries them,
// its metacentric heights and natural periods. Written a few times a second by the water view
// (water.js), each text only when it changed (a rewrite costs a restyle and layout of the
// page, issue 38); on a phone it shows a shorter form (the spans of class wide and narrow,
// watercard.css).

import { num, t } from '../core/i18n.js';
import { setHidden, setText } from '../core/dom.js';
import './watercard.css';

/**
 * The hello's hydrostatics of a floating body (its upright equilibrium in still water); a
 * null period means no restoring (GM ≤ 0).
 * @typedef {import('../net/messages.gen.js').HydrostaticsInfo} Hydrostatics
 */

/** Degrees from radians. @param {number} r */
const deg = (r) => (r * 180) / Math.PI;

/** The card at the view's lower left: the selected body's waterline, GM and periods. */
export class WaterCard {
  /** @param {HTMLElement} parent */
  constructor(parent) {
    this.el = document.createElement('section');
    this.el.id = 'water-card';
    this.el.hidden = true;
    this.el.setAttribute('aria-label', t('water.card.label'));
    this.title = document.createElement('div');
    this.title.className = 'water-title';
    this.rows = [0, 1, 2, 3].map(() => {
      const row = document.createElement('div');
      row.className = 'water-row';
      return row;
    });
    this.rows[2].classList.add('static'); // the hello's GM and periods: shorter on a phone
    this.rows[3].classList.add('static');
    this.el.append(this.title, ...this.rows);
    parent.append(this.el);
    this.last = -Infinity;
    /** @type {Hydrostatics | null | undefined} the hydrostatics the GM and period rows show (undefined: none written yet) */
    this.hydro = undefined;
  }

  /**
   * @param {string} name  the body's
   * @param {import('../net/messages.gen.js').BodyFrame | null} frame  its frame (Draft, Heel, Trim, WaveElevation)
   * @param {Hydrostatics | null} hydro  from the hello, when it carries them
   * @param {boolean} waves  whether the water has waves
   * @param {boolean} implicit  the water is the default still sea (the scenario has none)
   */
  write(name, frame, hydro, waves, implicit) {
    setText(this.title, t(implicit ? 'water.card.title_default' : 'water.card.title', { body: name }));
    const [line, wave, gm, periods] = this.rows;
    if (frame && Number.isFinite(frame.Draft)) {
      setText(line, frame.Draft > 0
        ? t('water.card.waterline', { draft: num(frame.Draft, 3), heel: num(deg(frame.Heel), 1), trim: num(deg(frame.Trim), 1) })
        : t('water.card.clear', { heel: num(deg(frame.Heel), 1), trim: num(deg(frame.Trim), 1) }));
    } else setText(line, '');
    setHidden(wave, !waves || !frame);
    if (waves && frame) setText(wave, t('water.card.eta', { eta: num(frame.WaveElevation, 3) }));
    if (hydro === this.hydro) return; // the hello's: rebuilt only when a hello brings new ones
    this.hydro = hydro;
    const ok = (/** @type {unknown} */ x) => typeof x === 'number' && Number.isFinite(x);
    gm.hidden = !hydro || !(ok(hydro.GM_T) || ok(hydro.draft));
    if (hydro && !gm.hidden) {
      // the still-water draft is left out on a phone (class wide): the frame's is on the line above
      const draft = ok(hydro.draft) ? t('water.card.static_draft', { draft: num(Number(hydro.draft), 3) }) : '';
      const parts = [];
      if (ok(hydro.GM_T)) parts.push(t('water.card.gm_roll', { gm: num(Number(hydro.GM_T), 3) }));
      if (ok(hydro.GM_L)) parts.push(t('water.card.gm_pitch', { gm: num(Number(hydro.GM_L), 2) }));
      gm.replaceChildren(span(draft && parts.length ? `${draft} · ` : draft, 'wide'), ...joined(parts));
    }
    const p = hydro?.periods;
    periods.hidden = !p;
    if (p) {
      const parts = [];
      for (const k of /** @type {const} */ (['heave', 'roll', 'pitch'])) {
        const v = p[k];
        const T = ok(v) ? `${num(Number(v), 2)} s` : t('water.card.period.none');
        parts.push(t(`water.card.period.${k}`, { T }));
      }
      // "Natural periods: …", or on a phone "Periods: …" (class narrow)
      periods.replaceChildren(withList('water.card.periods', parts, 'wide'), withList('water.card.periods_short', parts, 'narrow'));
    }
  }
}

/** A span of text with a class. @param {string} text @param {string} cls */
function span(text, cls) {
  const el = document.createElement('span');
  el.className = cls;
  el.textContent = text;
  return el;
}

/** Parts joined by " · ", each kept on one line (a narrow card breaks between them). @param {string[]} parts */
function joined(parts) {
  return parts.flatMap((part, i) => (i ? [' · ', span(part, 'part')] : [span(part, 'part')]));
}

/** The message `key` in a span of class `cls`, its {list} the parts, joined. @param {string} key @param {string[]} parts @param {string} cls */
function withList(key, parts, cls) {
  const [before, after = ''] = t(key, { list: '\u0001' }).split('\u0001');
  const el = span(before, cls);
  el.append(...joined(parts), after);
  return el;
}
