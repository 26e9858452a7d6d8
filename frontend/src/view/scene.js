// @ts-check
// The 3-D stage: renderer, camera, orbit controls with a follow mode, lights, the ground grid
// with labelled N/E/D axes. Bodies are added by the caller into `ned` (see frames.js).

import {
  AmbientLight,
  BufferGeometry,
  Color,
  DirectionalLight,
  Float32BufferAttribute,
  Group,
  HemisphereLight,
  LineBasicMaterial,
  LineSegments,
  PerspectiveCamera,
  PMREMGenerator,
  Scene,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';
import { makeNedRoot, nedToThree } from '../core/frames.js';
import { Arrow, disposeTree, makeLabel } from './glyphs.js';
import { niceStep } from './labels.js';
import { VIEW } from '../net/protocol.gen.js';
import { SceneWatch } from './watch.js';

export const BACKGROUND = VIEW.BACKGROUND;
// Default view direction from the target, NED: from the south (a little west) and above, so
// north runs away from the viewer, east to the right, down is down: the arrow keys match.
const VIEW_FROM = VIEW.VIEW_FROM;
/** @type {Array<['N' | 'E' | 'D', [number, number, number]]>} */
const WORLD_AXES = [['N', [1, 0, 0]], ['E', [0, 1, 0]], ['D', [0, 0, 1]]];

/**
 * The ground grid in the NED x-y plane (z = 0), `cells` × `cells` of size `cell`, fading into
 * the background towards its edge. Made of one segment per cell edge rather than a few long
 * lines: long lines that pass behind the camera are dropped by some software rasterisers.
 * @param {number} cell  m
 * @param {number} cells  along a side
 */
function makeGrid(cell, cells) {
  const half = (cell * cells) / 2;
  /** @type {number[]} */
  const pos = [];
  /** @type {number[]} */
  const col = [];
  const major = new Color(VIEW.GRID_MAJOR);
  const minor = new Color(VIEW.GRID_MINOR);
  const bg = new Color(BACKGROUND);
  const c = new Color();
  /** @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1 @param {boolean} isMajor */
  const push = (x0, y0, x1, y1, isMajor) => {
    for (const [x, y] of [[x0, y0], [x1, y1]]) {
      pos.push(x, y, 0);
      const fade = Math.min(1, (Math.hypot(x, y) / half) ** 2);
      c.copy(isMajor ? major : minor).lerp(bg, fade);
      col.push(c.r, c.g, c.b);
    }
  };
  for (let i = 0; i <= cells; i++) {
    const k = -half + i * cell;
    const isMajor = i === cells / 2 || i % 5 === 0;
    for (let j = 0; j < cells; j++) {
      const a = -half + j * cell;
      push(k, a, k, a + cell, isMajor);
      push(a, k, a + cell, k, isMajor);
    }
  }
  const g = new BufferGeometry();
  g.setAttribute('position', new Float32BufferAttribute(pos, 3));
  g.setAttribute('color', new Float32BufferAttribute(col, 3));
  return new LineSegments(g, new LineBasicMaterial({ vertexColors: true }));
}

/**
 * The GPU's name as a WebGL context reports it ("" when hidden).
 * @param {WebGLRenderingContext | WebGL2RenderingContext} gl
 */
function rendererName(gl) {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
}

/** The name from a throwaway context (the real one's options are fixed at creation). */
function probeRendererName() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return '';
  const name = rendererName(gl);
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return name;
}

/** @param {string} name  a renderer's */
const isSoftware = (name) => /swiftshader|llvmpipe|softpipe|software/i.test(name);

/** The cell of the ground grid for a body of characteristic length `extent` (m). @param {number} extent */
const cellFor = (extent) => niceStep(Math.max(0.25, extent * 0.75));

export class Stage {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    // reused every frame: the render loop allocates nothing
    this.scratch = { moved: new Vector3(), err: new Vector3(), screen: new Vector3() };
    this.canvas = canvas;
    // A software rasteriser (SwiftShader, llvmpipe: a VM, a browser without a GPU) pays for
    // every sample of multisampling on the CPU: it draws without antialiasing. It also takes
    // seconds to compile the image-based-lighting shaders: there the lights alone shade.
    this.software = isSoftware(probeRendererName());
    this.renderer = new WebGLRenderer({ canvas, antialias: !this.software });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.watch = new SceneWatch();
    // a context lost and given back has lost the picture, though nothing in the scene changed
    canvas.addEventListener('webglcontextrestored', () => this.watch.forget());
    this.scene = new Scene();
    this.scene.background = new Color(BACKGROUND);
    this.renderer_name = rendererName(this.renderer.getContext());
    this.software = isSoftware(this.renderer_name);
    if (!this.software) {
      const pmrem = new PMREMGenerator(this.renderer);
      this.scene.environment = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
      this.scene.environmentIntensity = 0.55;
      pmrem.dispose();
    }
    this.scene.add(new HemisphereLight('#ffffff', '#8d9aa6', this.software ? 1.8 : 1.2));
    this.scene.add(new AmbientLight('#ffffff', this.software ? 0.5 : 0.2));
    const sun = new DirectionalLight('#ffffff', 2.0);
    sun.position.set(-4, 10, 6);
    this.scene.add(sun);
    this.ned = makeNedRoot();
    this.scene.add(this.ned);

    this.camera = new PerspectiveCamera(45, 1, 0.01, 5000);
    /** @type {[number, number]} the view's size, CSS px */
    this.size = [0, 0];
    /** the bands the page's cards cover (setInsets) */
    /** @type {{left: number, top: number, right: number, bottom: number, avoid?: number[][]}} */
    this.insets = { left: 0, top: 0, right: 0, bottom: 0 };
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.12;
    this.follow = true;
    /** @type {Vector3 | null} the CG at the previous follow update (three world) */
    this.lastCg = null;
    this.scale = 0; // grid cell size now drawn
    this.ground = new Group();
    this.ned.add(this.ground);
    this.showWorldAxes = true;
    const first = this.makeGround(cellFor(1));
    this.grid = first.grid;
    this.worldAxes = first.worldAxes;
    this.resetView(new Vector3(), 1);
  }

  /**
   * Rebuild grid and axes for a body of characteristic length `extent` (m).
   * @param {number} extent
   */
  setScale(extent) {
    const cell = cellFor(extent);
    if (cell === this.scale) return;
    const made = this.makeGround(cell);
    this.grid = made.grid;
    this.worldAxes = made.worldAxes;
  }

  /**
   * Replace the ground's grid and world axes by new ones with cells of `cell` m.
   * @param {number} cell
   */
  makeGround(cell) {
    this.scale = cell;
    for (const c of [...this.ground.children]) {
      this.ground.remove(c);
      disposeTree(c); // the old grid, axes and labels: free their GPU buffers and textures
    }
    const grid = makeGrid(cell, 40);
    this.ground.add(grid);
    const L = VIEW.WORLD_AXIS_CELLS * cell;
    const worldAxes = new Group();
    worldAxes.visible = this.showWorldAxes;
    for (const [name, dir] of WORLD_AXES) {
      const color = VIEW.WORLD_AXIS_COLOURS[name];
      const a = new Arrow(color, { radius: 0.008 * cell });
      a.set(new Vector3(), new Vector3(...dir), L);
      worldAxes.add(a);
      const label = makeLabel(name, color, 0.4 * cell);
      label.position.set(dir[0] * (L + 0.4 * cell), dir[1] * (L + 0.4 * cell), dir[2] * (L + 0.4 * cell));
      worldAxes.add(label);
    }
    this.ground.add(worldAxes);
    return { grid, worldAxes };
  }

  /**
   * Show or hide the world's N, E, D axes.
   * @param {boolean} on
   */
  setWorldAxes(on) {
    this.showWorldAxes = on;
    this.worldAxes.visible = on;
  }

  /**
   * A camera preset: look at `targetNed` (Vector3, NED) from the NED direction `from` at a
   * distance fit for `extent`. Top looks down with north up the screen; Side looks from the
   * east (the starboard side of a body heading north); Front looks from the north, back at
   * a body heading north.
   * @param {string} name  top, side or front (anything else: nothing happens)
   * @param {Vector3} targetNed
   * @param {number} extent  m
   */
  viewFrom(name, targetNed, extent) {
    /** @type {Record<string, number[] | undefined>} */
    const presets = { top: [-1e-3, 0, -1], side: [0, 1, -0.12], front: [1, 0, -0.12] };
    const from = presets[name];
    if (!from) return;
    const target = nedToThree([targetNed.x, targetNed.y, targetNed.z]);
    const dist = Math.max(4.5, 6 * extent) * Math.max(1, (1 / this.camera.aspect) ** 0.8);
    this.controls.target.copy(target);
    this.camera.position.copy(target).add(nedToThree(from).normalize().multiplyScalar(dist));
    this.lastCg = null;
    this.controls.update();
  }

  /**
   * The projector look: white background, darker grid (the page's CSS does the text).
   * @param {boolean} on
   */
  setProjector(on) {
    this.scene.background = new Color(on ? '#ffffff' : BACKGROUND);
  }

  /** @param {number} width  CSS px @param {number} height  CSS px */
  resize(width, height) {
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / Math.max(1, height);
    this.size = [width, height];
    this.setInsets(this.insets);
  }

  /**
   * The bands along the view's edges that the page's cards cover (CSS px, panel/insets.js):
   * the picture's centre moves to the middle of the rest (a view offset of the camera), so a
   * body at the target is not under the caption or the timeline; framing fits the rest.
   * @param {{left: number, top: number, right: number, bottom: number, avoid?: number[][]}} insets  avoid: what the bodies keep out of (view px)
   */
  setInsets(insets) {
    this.insets = insets;
    const [w, h] = this.size;
    const dx = (insets.left - insets.right) / 2;
    const dy = (insets.top - insets.bottom) / 2;
    if ((dx === 0 && dy === 0) || !(w > 0 && h > 0)) this.camera.clearViewOffset();
    else this.camera.setViewOffset(w, h, -dx, -dy, w, h);
    this.camera.updateProjectionMatrix();
  }

  /** What the bodies keep out of in the free part (a phone's push pad), NDC: [x0, x1, y0, y1] each. */
  avoidNdc() {
    const [w, h] = this.size;
    if (!(w > 0 && h > 0)) return [];
    return (this.insets.avoid ?? []).map(([l, t, r, b]) => [-1 + (2 * l) / w, -1 + (2 * r) / w, 1 - (2 * b) / h, 1 - (2 * t) / h]);
  }

  /** The part of the view no card covers, in normalised device coordinates: [x0, x1, y0, y1]. */
  freeNdc() {
    const [w, h] = this.size;
    const { left, top, right, bottom } = this.insets;
    if (!(w > 0 && h > 0)) return [-1, 1, -1, 1];
    return [-1 + (2 * left) / w, 1 - (2 * right) / w, -1 + (2 * bottom) / h, 1 - (2 * top) / h];
  }

  /**
   * Put the camera back to the default view of `targetNed` (NED) at a distance fit for `extent`.
   * @param {Vector3} targetNed
   * @param {number} extent  m
   */
  resetView(targetNed, extent) {
    const target = nedToThree([targetNed.x, targetNed.y, targetNed.z]);
    // a portrait screen sees less sideways: step back so the axes still fit
    const dist = Math.max(4.5, 6 * extent) * Math.max(1, (1 / this.camera.aspect) ** 0.8);
    const from = nedToThree(VIEW_FROM).normalize().multiplyScalar(dist);
    this.controls.target.copy(target);
    this.camera.position.copy(target).add(from);
    this.lastCg = null;
    this.controls.update();
  }

  /**
   * Follow mode: carry target and camera along with the body's CG (three world Vector3) and
   * close any remaining gap exponentially (time constant 1/ω, ω = 5 rad/s). Carrying the
   * body's own displacement first means no lag at any speed (a spring alone trails a body at
   * 10 m/s by 4 m, off the screen's edge); the gap left by a reset or a turn of the camera
   * closes smoothly. A jump (reset, new scenario) moves the camera at once.
   * @param {Vector3} cgWorld
   * @param {number} dt  s since the last update
   */
  followTo(cgWorld, dt) {
    if (!this.follow) {
      this.lastCg = null;
      return;
    }
    const far = 50 * Math.max(1, this.scale);
    const moved = this.scratch.moved.set(0, 0, 0);
    if (this.lastCg) moved.copy(cgWorld).sub(this.lastCg);
    this.lastCg = (this.lastCg ?? new Vector3()).copy(cgWorld);
    const err = this.scratch.err.copy(cgWorld).sub(this.controls.target);
    if (err.length() > far || moved.length() > far) {
      this.camera.position.add(err);
      this.controls.target.add(err);
      return;
    }
    const gap = err.sub(moved).multiplyScalar(1 - Math.exp(-5 * Math.min(dt, 0.05)));
    const step = moved.add(gap);
    this.camera.position.add(step);
    this.controls.target.add(step);
  }

  /**
   * Keep the grid under the body: move it by whole cells horizontally (NED x, y).
   * @param {Vector3} cgNed
   */
  centreGround(cgNed) {
    const c = this.scale * 2;
    this.grid.position.set(Math.round(cgNed.x / c) * c, Math.round(cgNed.y / c) * c, 0);
  }

  /**
   * Draw the view if it would differ from the frame drawn last (watch.js), or if `always`;
   * whether it drew.
   * @param {boolean} [always]
   */
  render(always = false) {
    this.controls.update();
    if (!this.watch.look(this.scene, this.camera, this.canvas) && !always) return false;
    this.renderer.render(this.scene, this.camera);
    // read again after drawing: three.js draws a transparent two-sided material (the water) in
    // two passes, a side each, and counts each as a change of the material
    this.watch.look(this.scene, this.camera, this.canvas);
    this.watch.drew();
    return true;
  }

  /**
   * Screen position (CSS px, page coordinates) of a three world point; null when behind the camera.
   * @param {Vector3} world
   */
  toScreen(world) {
    const p = this.scratch.screen.copy(world).project(this.camera);
    if (p.z > 1) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
  }

  /** A PNG of the view: rendered now and read back at once (no preserveDrawingBuffer needed). */
  screenshot() {
    this.renderer.render(this.scene, this.camera);
    return this.canvas.toDataURL('image/png');
  }
}
