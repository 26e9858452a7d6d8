// @ts-check
// The lecturer's view (/class/?token=T): every room of the server, or those whose name starts
// with a prefix, as a tile (tile.js), refreshed a few times a second from /api/class/rooms;
// the selected rooms load a preset or a lesson's step, pause, resume or reset together
// (/api/class/act, which carries the message out in each room as its own controller would).
// A lesson's step (its preset, saved scenario or Share link's scenario) is loaded by the
// server, and the rooms ask the step's question: students' pages show it with an answer
// box, and each tile shows its room's answers tallied. "Next step" moves on to the next
// step of the same lesson and loads it.
// Both need the token: a watcher's page gets 403 and is told so. "Write a lesson" opens the
// lesson editor (editor.js); a lesson it saves is in the step chooser at once. In the
// page's language (core/i18n.js: ?lang=, else the browser's), as the lab is; what the server
// says (a refusal's reason) stays in its English.

import { presetText, t, translateDom } from '../core/i18n.js';
import { client } from './api.js';
import { LessonEditor } from './editor.js';
import { Tile } from './tile.js';
import './class.css';

const POLL_MS = 250;
translateDom();
document.title = t('class.doc.title');
const params = new URLSearchParams(location.search);
const token = params.get('token') ?? '';
/** @type {Map<string, Tile>} */
const tiles = new Map();

/** @param {string} id */
function find(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} is missing from class/index.html`);
  return el;
}

const status = find('status');
const result = find('result');
const grid = find('tiles');
const prefix = /** @type {HTMLInputElement} */ (find('prefix'));
const presetSelect = /** @type {HTMLSelectElement} */ (find('preset'));
const stepSelect = /** @type {HTMLSelectElement} */ (find('step'));
prefix.value = params.get('prefix') ?? '';
const api = client(token);

function selected() {
  return [...tiles.values()].filter((t) => t.selected).map((t) => t.room);
}

/** @param {Record<string, unknown>} message */
async function act(message) {
  const rooms = selected();
  if (rooms.length === 0) {
    result.textContent = t('class.select.first');
    return;
  }
  const answer = await api('class/act', { method: 'POST', body: JSON.stringify({ rooms, message }) });
  const refused = Object.entries(answer.results).filter(([, r]) => /** @type {any} */ (r).type !== 'ack');
  result.textContent = refused.length === 0
    ? t('class.acted', { type: String(message.type), n: rooms.length })
    : refused.map(([room, r]) => `${room}: ${/** @type {any} */ (r).message}`).join('; ');
}

async function poll() {
  try {
    const { rooms } = await api(`class/rooms?prefix=${encodeURIComponent(prefix.value)}`);
    const seen = new Set();
    for (const data of rooms) {
      seen.add(data.room);
      let tile = tiles.get(data.room);
      if (tile === undefined) {
        tile = new Tile(data.room, token);
        tiles.set(data.room, tile);
        grid.append(tile.element);
      }
      tile.update(data);
    }
    for (const [room, tile] of tiles) {
      if (!seen.has(room)) {
        tile.element.remove();
        tiles.delete(room);
      }
    }
    status.textContent = t('class.rooms', { n: tiles.size });
    status.dataset.state = 'ok';
  } catch (err) {
    status.dataset.state = 'error';
    status.textContent = /** @type {Error} */ (err).message === 'forbidden'
      ? t('class.forbidden')
      : t('class.unreachable', { error: /** @type {Error} */ (err).message });
  }
  setTimeout(poll, POLL_MS);
}

let filling = 0;

/** The lessons' steps in the chooser; `chosen`: a lesson whose first step is selected. */
async function fillSteps(chosen = '') {
  const mine = ++filling;
  /** @type {HTMLOptionElement[]} */
  const options = [];
  for (const lesson of await api('lessons')) {
    const full = await api(`lessons/${lesson.id}`);
    full.steps.forEach((/** @type {any} */ step, /** @type {number} */ i) => {
      const label = `${lesson.title} · ${i + 1}${step.question ? `: ${step.question}` : ''}`;
      options.push(new Option(label, JSON.stringify({ lesson: lesson.id, step: i })));
    });
  }
  if (mine !== filling) return; // a later fill (a lesson saved meanwhile) has its say
  const keep = chosen ? JSON.stringify({ lesson: chosen, step: 0 }) : stepSelect.value;
  // no lesson yet: an empty chooser and two buttons that did nothing told the lecturer nothing
  const none = options.length === 0;
  if (none) options.push(new Option(t('class.no.lessons'), ''));
  stepSelect.replaceChildren(...options);
  for (const control of [stepSelect, find('load-step'), find('next-step')]) {
    /** @type {HTMLSelectElement | HTMLButtonElement} */ (control).disabled = none;
  }
  if (options.some((o) => o.value === keep)) stepSelect.value = keep;
}

const editor = new LessonEditor(api, fillSteps);

async function fillChoices() {
  try {
    const presets = await api('presets');
    for (const p of presets) presetSelect.add(new Option(presetText(p, 'title'), p.name));
    editor.setPresets(presets);
    await fillSteps();
  } catch {
    // poll() says what is wrong
  }
}

/** Load the chosen lesson step into the selected rooms. */
async function loadStep() {
  if (stepSelect.value) await act({ type: 'lesson_step', ...JSON.parse(stepSelect.value) });
}

/** @param {string} id @param {() => Promise<void>} run */
function onClick(id, run) {
  find(id).addEventListener('click', () => {
    run().catch((err) => { result.textContent = String(err.message ?? err); });
  });
}

onClick('select-all', async () => tiles.forEach((t) => { t.check.checked = true; }));
onClick('select-none', async () => tiles.forEach((t) => { t.check.checked = false; }));
onClick('load', () => act({ type: 'load_scenario', preset: presetSelect.value }));
onClick('load-step', loadStep);
onClick('next-step', async () => {
  const next = stepSelect.options[stepSelect.selectedIndex + 1];
  const lesson = (/** @type {string} */ value) => JSON.parse(value).lesson;
  if (next === undefined || lesson(next.value) !== lesson(stepSelect.value)) {
    result.textContent = t('class.no.next');
    return;
  }
  stepSelect.selectedIndex += 1;
  await loadStep();
});
onClick('pause', () => act({ type: 'pause' }));
onClick('resume', () => act({ type: 'resume' }));
onClick('reset', () => act({ type: 'reset' }));

fillChoices();
poll();
