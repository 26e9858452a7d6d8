// @ts-check
// The answer box (issue 46): while the room asks a prediction question (the hello's
// `question`: a preset's, or the step of a lesson the lecturer loaded), every page of the
// room, a watcher's too, shows it with a field to answer; the answer goes to the server as
// an `answer` message naming the question's id, and the lecturer's view tallies them. A new
// question empties the field; an answer may be changed (the server keeps the last one).

import { presetText, t } from '../core/i18n.js';
import { setText } from '../core/dom.js';

/** @typedef {{id: number, text: string, preset: string | null}} AskedQuestion */
/** @typedef {(msg: {type: 'answer', question: number, text: string}, handlers: {onAck?: () => void, onError?: (e: {message: string}) => void}) => unknown} SendAnswer */

export class AnswerBox {
  /**
   * @param {HTMLFormElement} form  #answer: a .answer-question, an input, a submit button, a .answer-status
   * @param {SendAnswer} send
   */
  constructor(form, send) {
    this.form = form;
    this.send = send;
    this.questionEl = /** @type {HTMLElement} */ (form.querySelector('.answer-question'));
    this.input = /** @type {HTMLInputElement} */ (form.querySelector('input'));
    this.statusEl = /** @type {HTMLElement} */ (form.querySelector('.answer-status'));
    /** @type {AskedQuestion | null} */
    this.question = null;
    // on a phone the question is cut to one line (style.css): a tap shows it whole
    this.questionEl.addEventListener('click', () => form.classList.toggle('whole'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
  }

  /**
   * The room's question from its hello (and the preset list, for the page's language).
   * @param {AskedQuestion | null | undefined} question
   * @param {{name: string}[]} presets
   */
  fromHello(question, presets) {
    if (question?.id === this.question?.id) return;
    this.question = question ?? null;
    this.form.hidden = this.question === null;
    if (this.question === null) return;
    const preset = this.question.preset ? presets.find((p) => p.name === this.question?.preset) : undefined;
    const text = (preset && presetText(preset, 'question')) || this.question.text;
    setText(this.questionEl, t('caption.predict', { question: text }));
    this.questionEl.title = text;
    this.form.classList.remove('whole');
    this.input.value = '';
    setText(this.statusEl, '');
  }

  submit() {
    const asked = this.question;
    const text = this.input.value.trim();
    if (asked === null || !text) return;
    this.send({ type: 'answer', question: asked.id, text }, {
      onAck: () => setText(this.statusEl, t('answer.sent', { text })),
      onError: (e) => setText(this.statusEl, e.message),
    });
  }
}
