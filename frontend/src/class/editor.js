// @ts-check
// The lesson editor of the lecturer's view: a title and an ordered list of steps, each a
// preset, a saved scenario (one already saved, or a scenario file saved as it is added) or
// a Share link (pasted whole or as its id), with the question the step asks. Saved through
// POST /api/lessons, which checks every step (server/lessons.py); a refusal is shown by the
// field it names (`loc`: title, steps.N.share, …) and nothing is kept, so the lecturer
// mends the step and saves again. The page only arranges: what a step may name is the
// server's to judge, so its reasons are the ones shown.

import { presetText, t } from '../core/i18n.js';
import { ApiError } from './api.js';

/** @typedef {'preset' | 'scenario' | 'share'} Kind */
/** @typedef {{kind: Kind, ref: string, label: string, question: string}} Step */
/** @typedef {{step?: number, field?: string}} Place */

/** @param {Kind} kind */
const kindLabel = (kind) => t(`class.kind.${kind}`);

/** The id in a pasted Share link (…/?room=R&snapshot=ID), or the text itself (an id). */
export function shareId(/** @type {string} */ text) {
  const trimmed = text.trim();
  if (!/^https?:\/\//.test(trimmed)) return trimmed;
  return new URL(trimmed).searchParams.get('snapshot') ?? '';
}

/** Where a refusal's `loc` points: a step by its index, else a field of the lesson. */
export function place(/** @type {(string | number)[]} */ loc) {
  const path = loc[0] === 'body' ? loc.slice(1) : loc;
  if (path[0] === 'steps' && path.length > 1 && /^\d+$/.test(String(path[1]))) {
    return /** @type {Place} */ ({ step: Number(path[1]) });
  }
  return /** @type {Place} */ ({ field: String(path[0] ?? '') });
}

/** @param {string} id */
function find(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} is missing from class/index.html`);
  return el;
}

/** @param {string} tag @param {Record<string, string>} attrs @param {string} [text] */
function make(tag, attrs, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

export class LessonEditor {
  /**
   * @param {(path: string, init?: RequestInit) => Promise<any>} api the token's requests
   * @param {(id: string) => Promise<void>} onSaved the new lesson's id, once it is kept
   */
  constructor(api, onSaved) {
    this.api = api;
    this.onSaved = onSaved;
    /** @type {Step[]} */
    this.steps = [];
    /** @type {Map<number, string>} the server's reasons by step index */
    this.stepErrors = new Map();
    this.toggle = find('edit-lesson');
    this.form = /** @type {HTMLFormElement} */ (find('lesson-editor'));
    this.title = /** @type {HTMLInputElement} */ (find('lesson-title'));
    this.titleError = find('lesson-title-error');
    this.list = find('lesson-steps');
    this.stepsError = find('lesson-steps-error');
    this.addError = find('add-error');
    this.result = find('lesson-result');
    this.presetSelect = /** @type {HTMLSelectElement} */ (find('add-preset'));
    this.savedSelect = /** @type {HTMLSelectElement} */ (find('add-saved'));
    this.shareInput = /** @type {HTMLInputElement} */ (find('add-share'));
    this.fileInput = /** @type {HTMLInputElement} */ (find('add-file'));
    this.wire();
  }

  wire() {
    this.toggle.addEventListener('click', () => this.open(this.form.hidden));
    find('lesson-close').addEventListener('click', () => this.open(false));
    find('add-preset-step').addEventListener('click', () => {
      const option = this.presetSelect.selectedOptions[0];
      if (option) this.add({ kind: 'preset', ref: option.value, label: option.text, question: '' });
    });
    find('add-saved-step').addEventListener('click', () => {
      const option = this.savedSelect.selectedOptions[0];
      if (option?.value) this.add({ kind: 'scenario', ref: option.value, label: option.text, question: '' });
      else this.addError.textContent = t('class.editor.no.saved');
    });
    find('add-share-step').addEventListener('click', () => this.addShare());
    this.shareInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault(); // Enter adds the link, it does not save the lesson
        this.addShare();
      }
    });
    this.fileInput.addEventListener('change', () => {
      this.addFile().catch((err) => { this.addError.textContent = String(err.message ?? err); });
    });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
  }

  /** Show or hide the editor; shown, it reads the saved scenarios again and takes focus. */
  open(/** @type {boolean} */ shown) {
    this.form.hidden = !shown;
    this.toggle.setAttribute('aria-expanded', String(shown));
    if (shown) {
      this.title.focus();
      this.fillSaved().catch((err) => { this.addError.textContent = String(err.message ?? err); });
    } else {
      this.toggle.focus();
    }
  }

  /** @param {{name: string, title?: string, values?: Record<string, number | string>}[]} presets */
  setPresets(presets) {
    this.presetSelect.replaceChildren(...presets.map((p) => new Option(presetText(p, 'title'), p.name)));
  }

  async fillSaved() {
    /** @type {{id: string, name: string}[]} */
    const saved = await this.api('scenarios');
    const options = saved.map((s) => new Option(`${s.name || t('class.editor.unnamed')} (${s.id.slice(0, 8)})`, s.id));
    if (options.length === 0) options.push(new Option(t('class.editor.none.saved'), ''));
    this.savedSelect.replaceChildren(...options);
  }

  addShare() {
    let id = '';
    try {
      id = shareId(this.shareInput.value);
    } catch {
      // not a URL after all: said below
    }
    if (!id) {
      this.addError.textContent = t('class.editor.paste');
      this.shareInput.focus();
      return;
    }
    this.add({ kind: 'share', ref: id, label: id, question: '' });
    this.shareInput.value = '';
  }

  /** A scenario file is saved (POST /api/scenarios) and its step names the saved id. */
  async addFile() {
    const file = this.fileInput.files?.[0];
    if (!file) return;
    this.addError.textContent = t('class.editor.saving.file', { file: file.name });
    try {
      const { id } = await this.api('scenarios', { method: 'POST', body: await file.text() });
      this.add({ kind: 'scenario', ref: id, label: `${file.name} (${id.slice(0, 8)})`, question: '' });
    } catch (err) {
      const detail = err instanceof ApiError ? err.detail : String(err);
      const reasons = Array.isArray(detail) ? detail.map((d) => d.msg ?? JSON.stringify(d)) : [String(detail)];
      this.addError.textContent = t('class.editor.file.refused', { file: file.name, reasons: reasons.join('; ') });
    } finally {
      this.fileInput.value = '';
    }
  }

  /** @param {Step} step */
  add(step) {
    this.steps.push(step);
    this.addError.textContent = '';
    this.stepErrors.clear(); // the server's indices no longer hold
    this.render();
  }

  /** Move step `i` by `by` (±1), keeping the focus on the moved step's button. */
  move(/** @type {number} */ i, /** @type {number} */ by) {
    const j = i + by;
    if (j < 0 || j >= this.steps.length) return;
    [this.steps[i], this.steps[j]] = [this.steps[j], this.steps[i]];
    this.stepErrors.clear();
    this.render();
    const buttons = this.list.children[j].querySelectorAll('button');
    const same = /** @type {HTMLButtonElement} */ (buttons[by < 0 ? 0 : 1]);
    (same.disabled ? /** @type {HTMLButtonElement} */ (buttons[by < 0 ? 1 : 0]) : same).focus();
  }

  remove(/** @type {number} */ i) {
    this.steps.splice(i, 1);
    this.stepErrors.clear();
    this.render();
    const next = this.list.children[Math.min(i, this.steps.length - 1)];
    /** @type {HTMLElement} */ (next?.querySelector('.step-remove') ?? this.presetSelect).focus();
  }

  render() {
    this.list.replaceChildren(...this.steps.map((step, i) => this.row(step, i)));
    this.list.hidden = this.steps.length === 0;
  }

  /** @param {Step} step @param {number} i */
  row(step, i) {
    const n = i + 1;
    const li = make('li', { class: 'lesson-step', 'data-kind': step.kind, 'data-ref': step.ref });
    const what = make('span', { class: 'step-what' }, `${kindLabel(step.kind)}: ${step.label}`);
    const error = this.stepErrors.get(i) ?? '';
    const question = /** @type {HTMLInputElement} */ (make('input', {
      type: 'text', class: 'step-question', maxlength: '2000', size: '40',
      'aria-label': t('class.editor.question.of', { n }), 'aria-describedby': `step-error-${i}`,
    }));
    question.value = step.question;
    if (error) question.setAttribute('aria-invalid', 'true');
    question.addEventListener('input', () => { step.question = question.value; });
    const label = make('label', {}, `${t('class.editor.question')} `);
    label.append(question);
    /** @param {string} text @param {string} name @param {() => void} run @param {boolean} off */
    const button = (text, name, run, off) => {
      const b = /** @type {HTMLButtonElement} */ (make('button', { type: 'button', 'aria-label': name }, text));
      b.disabled = off;
      b.addEventListener('click', run);
      return b;
    };
    const up = button(t('class.editor.up'), t('class.editor.up.step', { n }), () => this.move(i, -1), i === 0);
    const down = button(t('class.editor.down'), t('class.editor.down.step', { n }), () => this.move(i, 1), i === this.steps.length - 1);
    const remove = button(t('class.editor.remove'), t('class.editor.remove.step', { n }), () => this.remove(i), false);
    remove.classList.add('step-remove');
    const reason = make('p', { class: 'field-error step-error', id: `step-error-${i}` }, error);
    li.append(what, ' ', label, ' ', up, down, remove, reason);
    if (error) li.dataset.invalid = 'true';
    return li;
  }

  clearReasons() {
    this.stepErrors.clear();
    this.titleError.textContent = '';
    this.stepsError.textContent = '';
    this.title.removeAttribute('aria-invalid');
  }

  async save() {
    this.clearReasons();
    const lesson = {
      title: this.title.value.trim(),
      steps: this.steps.map((s) => ({ [s.kind]: s.ref, question: s.question.trim() })),
    };
    this.result.textContent = t('class.editor.saving');
    try {
      const saved = await this.api('lessons', { method: 'POST', body: JSON.stringify(lesson) });
      this.steps = [];
      this.title.value = '';
      this.render();
      await this.onSaved(saved.id);
      this.result.textContent = t('class.editor.saved.lesson', { title: saved.title, n: saved.steps });
    } catch (err) {
      this.refused(err);
    }
  }

  /** Show each of the server's reasons by the field it names; the focus goes to the first. */
  refused(/** @type {any} */ err) {
    const detail = err instanceof ApiError ? err.detail : String(err.message ?? err);
    if (!Array.isArray(detail)) {
      this.result.textContent = t('class.editor.not.saved', { detail: String(detail) });
      this.render();
      return;
    }
    /** @type {HTMLElement | null} */
    let first = null;
    for (const { loc = [], msg = '' } of detail) {
      const where = place(loc);
      if (where.step !== undefined && where.step < this.steps.length) {
        const before = this.stepErrors.get(where.step);
        this.stepErrors.set(where.step, before ? `${before}; ${msg}` : msg);
      } else if (where.field === 'title') {
        this.titleError.textContent = t('class.editor.title.reason', { msg });
        this.title.setAttribute('aria-invalid', 'true');
        first ??= this.title;
      } else {
        this.stepsError.textContent = `${where.field || t('class.editor.lesson')}: ${msg}`;
      }
    }
    this.render();
    const step = Math.min(...this.stepErrors.keys());
    if (first === null && Number.isFinite(step)) {
      first = /** @type {HTMLElement} */ (this.list.children[step].querySelector('.step-question'));
    }
    first?.focus();
    const n = detail.length;
    this.result.textContent = t('class.editor.reasons', { n });
  }
}
