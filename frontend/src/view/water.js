// @ts-check
// The water (issue 28, DESIGN.md section 8): the scenario's `water` drawn in the NED scene, a
// translucent surface that moves with exactly the server's linear (Airy) waves, drifting
// streaks and a labelled arrow for the current, and a card with the selected body's waterline
// (Draft, Heel, Trim from the frames) and, when the hello carries them, its GM and natural
// periods (watercard.js). Nothing is drawn when the scenario has no water.
//
// The waves are water.py's (waves.js), drawn at the drawn frame's simulated time (not the wall
// clock): paused, the water stands still; the timeline's past shows the water of that moment.
//
// One PlaneGeometry whose vertices are rewritten in place each frame (heights and analytic
// normals), as large as the ground grid round the selected body and moved by whole vertex
// spacings so its vertices stay put in the world. It is drawn after the opaque bodies without
// writing depth, so the hull under it shows through.

import {
  BufferAttribute,
  BufferGeometry,
  DoubleSide,
  Group,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshPhongMaterial,
  PlaneGeometry,
  Vector3,
} from 'three';
import { Arrow } from './glyphs.js';
import { TextLabel, magnitude } from './labels.js';
import { t } from '../core/i18n.js';
import { elevation, waveTable } from './waves.js';
import { WaterCard } from './watercard.js';
import { writeVertex } from './watch.js';

/** @typedef {import('../net/messages.gen.js').WaterSpec} WaterSpec */
/** @typedef {import('../net/messages.gen.js').Hello} Hello */
/** @typedef {import('./body.js').BodyView} BodyView */
/** @typedef {import('../net/interp.js').BodySample} BodySample */
/** @typedef {import('./watercard.js').Hydrostatics} Hydrostatics */

export const WATER_COLOURS = { surface: '#0f6cb0', specular: '#e7f5ff', lines: '#e7f5ff', streak: '#ffffff', current: '#0b7285' };
const OPACITY = 0.36; // the surface's, at its middle (it fades out towards the edge)
const LINES_OPACITY = 0.55; // the lines on it (every vertex row and column), which show the waves' shape
const MAX_SEGMENTS = 160; // per side of the patch
const PER_WAVELENGTH = 8; // vertices per shortest wavelength at least
const STREAKS = 48;
/** The water a buoyancy element floats in when the scenario has none (water.py's defaults). */
const STILL_SEA = Object.freeze({ density: 1025, level: 0, current: /** @type {[number, number, number]} */ ([0, 0, 0]), waves: [], depth: null });
const CARD_HZ = 5;

/** `x` wrapped into [−span/2, span/2). @param {number} x @param {number} span */
const wrap = (x, span) => x - span * Math.floor(x / span + 0.5);

export class WaterView {
  /**
   * @param {import('./scene.js').Stage} stage  the water goes into its NED root; its ground
   *   grid (NED z = 0, usually the still level) is hidden while there is water: the lines on
   *   the water take its place, a patch as large as the grid
   * @param {HTMLElement} view  the view's element: the card goes there
   */
  constructor(stage, view) {
    this.stage = stage;
    this.group = new Group();
    this.group.visible = false;
    stage.ned.add(this.group);
    this.material = new MeshPhongMaterial({
      color: WATER_COLOURS.surface, specular: WATER_COLOURS.specular, shininess: 80,
      transparent: true, opacity: OPACITY, depthWrite: false, side: DoubleSide, vertexColors: true,
    }); // prettier-ignore
    /** @type {Mesh<BufferGeometry, MeshPhongMaterial>} */
    this.mesh = new Mesh(new BufferGeometry(), this.material);
    this.mesh.frustumCulled = false; // its heights change every frame
    this.mesh.renderOrder = 1; // after the bodies; the glyphs (2) and labels over it
    // lines along the vertex rows and columns, sharing the surface's vertices: they follow the
    // waves, and stay put in the world as the patch moves
    this.lines = new LineSegments(new BufferGeometry(), new LineBasicMaterial({ color: WATER_COLOURS.lines, transparent: true, opacity: LINES_OPACITY, depthWrite: false, vertexColors: true }));
    this.lines.frustumCulled = false;
    this.lines.renderOrder = 1;
    this.group.add(this.mesh, this.lines);
    // the current: short streaks drifting with it on the surface, and one labelled arrow
    this.streakPositions = new Float32Array(STREAKS * 6);
    const streakGeometry = new BufferGeometry();
    streakGeometry.setAttribute('position', new BufferAttribute(this.streakPositions, 3));
    this.streaks = new LineSegments(streakGeometry, new LineBasicMaterial({ color: WATER_COLOURS.streak, transparent: true, opacity: 0.95, depthWrite: false }));
    this.streaks.frustumCulled = false;
    this.streaks.renderOrder = 2;
    this.seeds = Float64Array.from({ length: 2 * STREAKS }, (_, i) => (Math.sin(12.9898 * (i + 1)) * 43758.5453) % 1).map((x) => Math.abs(x));
    this.currentArrow = new Arrow(WATER_COLOURS.current);
    this.currentLabel = new TextLabel(WATER_COLOURS.current, 0.2, 'right', 20);
    this.group.add(this.streaks, this.currentArrow, this.currentLabel);
    this.card = new WaterCard(view);
    /** @type {WaterSpec | null} */
    this.water = null;
    this.implicit = false; // the water drawn is the default still sea (no water entry)
    this.table = new Float64Array(0);
    this.key = '';
    this.size = 0; // the patch's side, m
    this.segments = 0;
    this.spacing = 1;
    /** @type {Hydrostatics[]} */
    this.hydrostatics = [];
    this.drawnT = NaN; // the simulated time of the water drawn last
    /** what the surface's vertices were last written for @type {{geometry: BufferGeometry | null, table: Float64Array | null, level: number, t: number, cx: number, cy: number}} */
    this.shown = { geometry: null, table: null, level: NaN, t: NaN, cx: NaN, cy: NaN };
    this.lastCard = -Infinity;
    this.scratch = { slope: new Float64Array(3), v: new Vector3(), dir: new Vector3(), at: new Vector3() };
    this.time = 0; // the simulated time of the frame being drawn
    this.costs = new Float64Array(240); // the last draws' durations, ms (the tests report them)
    this.draws = 0;
  }

  /**
   * Follow a hello: the water (null: none), the gravity of the selected body, and the
   * hydrostatics when the hello carries them.
   * @param {Hello} hello @param {string | null} bodyName
   */
  fromHello(hello, bodyName) {
    // without a water entry a buoyancy element floats its body in still sea water (the
    // server's default, scenario/elements.py): that water is drawn, so what floats is seen
    const floats = (hello.scenario.elements ?? []).some((e) => e.kind === 'buoyancy');
    const water = hello.scenario.water ?? (floats ? STILL_SEA : null);
    this.implicit = !hello.scenario.water && floats;
    const spec = hello.scenario.bodies.find((b) => b.Name === bodyName) ?? hello.scenario.bodies[0];
    const gravity = spec?.Gravity ?? 9.81;
    this.hydrostatics = hello.hydrostatics ?? [];
    this.water = water;
    this.group.visible = !!water;
    this.card.el.hidden = !water;
    document.body.classList.toggle('water-open', !!water);
    this.stage.grid.visible = !water;
    if (!water) return;
    this.table = waveTable(water, gravity);
    this.key = ''; // the patch is sized again at the next draw
  }

  /** Size the patch for a grid cell `cell` (m): as large as the grid unless short waves need it smaller. @param {number} cell */
  resize(cell) {
    let shortest = Infinity;
    for (let i = 0; i < this.table.length; i += 5) if (this.table[i] > 0 && this.table[i + 2] > 0) shortest = Math.min(shortest, (2 * Math.PI) / this.table[i + 2]);
    let size = 40 * cell;
    let segments = Number.isFinite(shortest) ? Math.ceil((size * PER_WAVELENGTH) / shortest) : 48;
    if (segments > MAX_SEGMENTS) {
      segments = MAX_SEGMENTS;
      size = (MAX_SEGMENTS * shortest) / PER_WAVELENGTH;
    }
    segments = Math.max(48, segments);
    const key = `${size}|${segments}`;
    if (key === this.key) return;
    this.key = key;
    this.size = size;
    this.segments = segments;
    this.spacing = size / segments;
    const plane = new PlaneGeometry(size, size, segments, segments);
    plane.rotateX(Math.PI); // its front faces NED −z: up
    const n = plane.attributes.position.count;
    // white, its alpha fading towards the edge (the material's colour and opacity on top)
    const colour = new Float32Array(4 * n);
    const pos = plane.attributes.position.array;
    for (let i = 0; i < n; i++) {
      const r = Math.max(Math.abs(pos[3 * i]), Math.abs(pos[3 * i + 1])) / (size / 2);
      const fade = Math.min(1, Math.max(0, (1 - r) / 0.35));
      colour.set([1, 1, 1, fade * fade * (3 - 2 * fade)], 4 * i);
    }
    plane.setAttribute('color', new BufferAttribute(colour, 4));
    this.mesh.geometry.dispose();
    this.mesh.geometry = plane;
    /** @type {number[]} */
    const index = [];
    const row = segments + 1;
    for (let i = 0; i <= segments; i++) {
      for (let j = 0; j < segments; j++) index.push(i * row + j, i * row + j + 1, j * row + i, (j + 1) * row + i);
    }
    const lines = new BufferGeometry();
    lines.setAttribute('position', plane.attributes.position);
    lines.setAttribute('color', plane.attributes.color);
    lines.setIndex(index);
    this.lines.geometry.dispose();
    this.lines.geometry = lines;
  }

  /**
   * Every rendered frame: the surface at simulated time `time` round the selected body, the
   * current, and the card (CARD_HZ times a second).
   * @param {number} time  s, the drawn frame's
   * @param {BodyView | null} view  the selected body
   * @param {BodySample | null | undefined} body  its sample (the frame: Draft, Heel, …)
   * @param {number} nowMs  the render loop's clock
   */
  draw(time, view, body, nowMs) {
    const water = this.water;
    this.time = time;
    if (!water) return;
    const started = performance.now();
    this.resize(this.stage.scale);
    this.stage.grid.visible = false; // (a new grid comes with a new scale)
    const s = this.scratch;
    const level = water.level;
    const extent = view ? view.extent() : 1;
    // round the body, by whole vertex spacings: the vertices stay put in the world
    const h = this.spacing;
    const cx = view ? Math.round(view.cg.x / h) * h : 0;
    const cy = view ? Math.round(view.cg.y / h) * h : 0;
    this.mesh.position.set(cx, cy, 0);
    this.lines.position.set(cx, cy, 0);
    const g = this.mesh.geometry;
    const P = /** @type {Float32Array} */ (g.attributes.position.array);
    const N = /** @type {Float32Array} */ (g.attributes.normal.array);
    const waves = this.table.length > 0;
    // written (and sent to the GPU again) only when the surface changed: still water is flat
    // wherever the patch is; waves move with the time and the patch's place
    const shown = this.shown;
    if (shown.geometry !== g || shown.table !== this.table || shown.level !== level || (waves && (shown.t !== time || shown.cx !== cx || shown.cy !== cy))) {
      shown.geometry = g;
      shown.table = this.table;
      shown.level = level;
      shown.t = time;
      shown.cx = cx;
      shown.cy = cy;
      for (let i = 0; i < P.length; i += 3) {
        const eta = waves ? elevation(this.table, time, cx + P[i], cy + P[i + 1], s.slope) : 0;
        P[i + 2] = level - eta;
        // the surface z = level − η: its upward (NED −z) normal is (−η_x, −η_y, −1), normalised
        const nx = waves ? -s.slope[1] : 0;
        const ny = waves ? -s.slope[2] : 0;
        const len = Math.hypot(nx, ny, 1);
        N[i] = nx / len;
        N[i + 1] = ny / len;
        N[i + 2] = -1 / len;
      }
      g.attributes.position.needsUpdate = true;
      g.attributes.normal.needsUpdate = true;
    }
    this.drawnT = time;
    this.drawCurrent(water, time, view, extent, nowMs);
    this.costs[this.draws++ % this.costs.length] = performance.now() - started;
    if (nowMs - this.lastCard >= 1000 / CARD_HZ) {
      this.lastCard = nowMs;
      const name = view?.spec?.Name ?? body?.frame?.Name ?? '';
      this.card.write(name, body?.frame ?? null, this.hydrostatics.find((x) => x.body === name) ?? null, waves, this.implicit);
    }
  }

  /**
   * Streaks that drift with the current's horizontal part over a square round the body, and
   * an arrow along the whole current beside the body, labelled with its speed.
   * @param {WaterSpec} water @param {number} time @param {BodyView | null} view @param {number} extent @param {number} nowMs
   */
  drawCurrent(water, time, view, extent, nowMs) {
    const [vn, ve, vd] = water.current;
    const speed = Math.hypot(vn, ve, vd);
    const flat = Math.hypot(vn, ve);
    this.streaks.visible = flat > 1e-6;
    this.currentArrow.visible = this.currentLabel.visible = speed > 1e-6;
    if (speed <= 1e-6) return;
    const s = this.scratch;
    const ox = view ? view.cg.x : 0;
    const oy = view ? view.cg.y : 0;
    if (flat > 1e-6) {
      const span = Math.min(this.size, Math.max(12 * extent, 8));
      const len = Math.max(0.25, 0.35 * extent);
      const ux = vn / flat;
      const uy = ve / flat;
      const P = this.streakPositions;
      let moved = false; // sent to the GPU again only when moved: a paused page draws nothing (view/watch.js)
      for (let i = 0; i < STREAKS; i++) {
        // fixed in the water: seed + v t, seen in the square round the body
        const x = ox + wrap(this.seeds[2 * i] * span + vn * time - ox, span);
        const y = oy + wrap(this.seeds[2 * i + 1] * span + ve * time - oy, span);
        const z = water.level - elevation(this.table, time, x, y) - 0.01 * extent;
        const k = 6 * i; // written in place: nothing is allocated per frame
        moved = writeVertex(P, k, x - 0.5 * len * ux, y - 0.5 * len * uy, z) || moved;
        moved = writeVertex(P, k + 3, x + 0.5 * len * ux, y + 0.5 * len * uy, z) || moved;
      }
      if (moved) this.streaks.geometry.attributes.position.needsUpdate = true;
    }
    // the arrow on the surface to the left of the body as the camera sees it (the toolbar
    // is on the right), a little towards the viewer: beside the body, clear of its labels
    const cam = this.stage.camera.position; // three: x north, z east
    const toX = cam.x - ox;
    const toY = cam.z - oy;
    const to = Math.hypot(toX, toY) || 1;
    const ax = ox + ((-toY * 2.0 + toX * 0.6) * extent) / to; // −right = (−to_y, to_x) · …
    const ay = oy + ((toX * 2.0 + toY * 0.6) * extent) / to;
    const at = s.at.set(ax, ay, water.level - elevation(this.table, time, ax, ay) - 0.05 * extent);
    this.currentArrow.radius = Math.max(0.01, 0.03 * extent);
    this.currentArrow.set(at, s.dir.set(vn, ve, vd).divideScalar(speed), Math.max(0.8 * extent, Math.min(1.5 * extent, speed * 2 * extent)));
    this.currentLabel.position.copy(at).add(s.v.set(0, 0, 0.3 * extent)); // under its tail
    this.currentLabel.setHeight(Math.max(0.05, 0.14 * extent));
    if (nowMs - this.lastCard >= 1000 / CARD_HZ) this.currentLabel.setText(t('water.current', { v: magnitude(speed) }));
  }

  /**
   * What is drawn, for the tests: whether, the time drawn, the patch, and the NED height of
   * the surface's vertex nearest (x, y) with that vertex's (x, y).
   * @param {number} [x] @param {number} [y]
   */
  describe(x = 0, y = 0) {
    const P = this.mesh.geometry.attributes.position?.array;
    let best = -1;
    let bestD = Infinity;
    const cx = this.mesh.position.x;
    const cy = this.mesh.position.y;
    for (let i = 0; P && i < P.length; i += 3) {
      const d = (cx + P[i] - x) ** 2 + (cy + P[i + 1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    return {
      visible: this.group.visible && this.mesh.visible,
      implicit: this.implicit,
      level: this.water?.level ?? null,
      t: this.drawnT,
      size: this.size,
      segments: this.segments,
      spacing: this.spacing,
      centre: [cx, cy],
      opacity: this.material.opacity,
      vertex: best >= 0 && P ? [cx + P[best], cy + P[best + 1], P[best + 2]] : null,
      streaks: this.streaks.visible,
      current: this.currentArrow.visible ? this.currentLabel.text : null,
      card: this.card.el.hidden ? null : this.card.el.innerText,
      vertices: P ? P.length / 3 : 0,
      /** median of the last draws (surface, normals, current, card), ms */
      cost: [...this.costs.slice(0, Math.min(this.draws, this.costs.length))].sort((a, b) => a - b)[Math.floor(Math.min(this.draws, this.costs.length) / 2)] ?? null,
    };
  }
}
