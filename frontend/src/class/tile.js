// @ts-check
// One room's tile in the lecturer's view: its bodies drawn small (each body's axes, seen
// from the page's usual side), its name (a link to the room full size), viewers, time and
// energy, and a box to select it. Drawn on a 2-D canvas: fifty WebGL contexts would be past
// what a browser keeps alive.

import { Vector3 } from 'three';
import { nedToThree, rotateBodyToNed } from '../core/frames.js';
import { num, t } from '../core/i18n.js';

/** @typedef {{Name: string, Pos: number[], Quater: number[]}} TileBody */
/** @typedef {{question: {id: number, text: string, preset: string | null}, answers: number, tally: [string, number][], others: number}} Tally */
/** @typedef {{room: string, viewers: number, t: number, running: boolean, energy: number, bodies: TileBody[], answers?: Tally | null}} TileData */

const SIZE = 160;
const AXES = [
  { v: [1, 0, 0], colour: '#d33' },
  { v: [0, 1, 0], colour: '#2a2' },
  { v: [0, 0, 1], colour: '#36d' },
];
// The view: from the south-east and a little above, as the page's camera starts.
const RIGHT = new Vector3(1, 0, -1).normalize();
const UP = new Vector3(0, 1, 0);

/** A three.js world point as canvas pixels around the tile's centre, `scale` px per m. */
function project(/** @type {Vector3} */ p, /** @type {number} */ scale) {
  return [SIZE / 2 + scale * p.dot(RIGHT), SIZE / 2 - scale * (p.dot(UP) + 0.3 * p.z)];
}

export class Tile {
  /** @param {string} room @param {string} token */
  constructor(room, token) {
    this.room = room;
    this.element = document.createElement('article');
    this.element.className = 'tile';
    this.element.dataset.room = room;
    this.check = document.createElement('input');
    this.check.type = 'checkbox';
    this.check.setAttribute('aria-label', t('class.tile.select', { room }));
    const link = document.createElement('a');
    const query = new URLSearchParams({ room, ...(token ? { token } : {}) });
    link.href = `../?${query}`;
    link.target = '_blank';
    link.textContent = room;
    this.canvas = document.createElement('canvas');
    this.canvas.width = SIZE;
    this.canvas.height = SIZE;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', t('class.tile.bodies', { room }));
    this.info = document.createElement('div');
    this.info.className = 'tile-info';
    const head = document.createElement('div');
    head.append(this.check, ' ', link);
    // the room's question and its answers, most common first (server/answers.py)
    this.tally = document.createElement('div');
    this.tally.className = 'tile-tally';
    this.element.append(head, this.canvas, this.info, this.tally);
    /** @type {TileData | null} */
    this.data = null;
  }

  get selected() {
    return this.check.checked;
  }

  /** @param {TileData} data */
  update(data) {
    this.data = data;
    this.element.dataset.t = String(data.t);
    this.element.dataset.running = String(data.running);
    const state = data.running ? '' : t('class.tile.paused');
    const e = num(data.energy, null, { maximumSignificantDigits: 4 });
    this.info.textContent = t('class.tile.info', { viewers: data.viewers, t: num(data.t, 2), e }) + state;
    this.showTally(data.answers ?? null);
    this.draw(data.bodies);
  }

  /** @param {Tally | null} answers */
  showTally(answers) {
    this.tally.hidden = answers === null;
    this.element.dataset.answers = String(answers?.answers ?? 0);
    if (answers === null) return;
    const lines = [`${answers.question.text}`, t('class.tile.answers', { n: answers.answers })];
    for (const [text, n] of answers.tally) lines.push(`${n} × ${text}`);
    if (answers.others > 0) lines.push(t('class.tile.others', { n: answers.others }));
    const text = lines.join('\n');
    if (this.tally.textContent !== text) this.tally.textContent = text;
  }

  /** @param {TileBody[]} bodies */
  draw(bodies) {
    const ctx = this.canvas.getContext('2d');
    if (ctx === null) return;
    ctx.clearRect(0, 0, SIZE, SIZE);
    if (bodies.length === 0) return;
    // The bodies around their mean position, one metre about a third of the tile.
    const mean = [0, 1, 2].map((k) => bodies.reduce((s, b) => s + b.Pos[k], 0) / bodies.length);
    const scale = SIZE / 3;
    ctx.lineWidth = 2;
    for (const body of bodies) {
      const centre = nedToThree(body.Pos.map((x, k) => x - mean[k]));
      const [cx, cy] = project(centre, scale);
      for (const axis of AXES) {
        const tip = nedToThree(rotateBodyToNed(body.Quater, axis.v)).multiplyScalar(0.5).add(centre);
        const [x, y] = project(tip, scale);
        ctx.strokeStyle = axis.colour;
        ctx.beginPath();
        ctx.moveTo(cx, cy);
        ctx.lineTo(x, y);
        ctx.stroke();
      }
    }
  }
}
