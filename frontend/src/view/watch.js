// @ts-check
// Draw on demand: a still picture redrawn at every display frame costs a quarter of a core in
// a software-rendered browser (SwiftShader: a VM, a laptop without a GPU) and a phone's battery
// for nothing. The render loop draws only when the picture would differ from the one drawn last.
// Rather than have every part of the page say when it changed (and miss one: a mesh loaded late,
// a label rewritten, an overlay toggled by a key), this reads what the renderer would use: the
// canvas's size, the camera, the background, and every visible object's world matrix, geometry
// and material (their update counters, colour, opacity, texture), and compares it with what was
// read when the last frame was drawn. Reading a few hundred objects costs far less than drawing.

/** @typedef {import('three').Object3D} Object3D */
/** @typedef {import('three').Material} Material */

// A number that moved less than this (relative) since the drawn frame is not redrawn: a camera
// easing towards its target or damping its orbit creeps by ever smaller steps for seconds, below
// a pixel long before it stops. Compared with the drawn frame, not the last look, so a slow
// creep is drawn once it adds up.
const TOLERANCE = 1e-7;

export class SceneWatch {
  constructor() {
    /** what the renderer would use now */
    this.now = new Float64Array(2048);
    /** ... and when the last frame was drawn (NaN: nothing drawn yet) */
    this.drawn = new Float64Array(2048).fill(NaN);
    this.length = 0; // of `now`, after the last look
    this.drawnLength = -1;
    this.i = 0;
    /** @param {Object3D} o */
    this.visit = (o) => this.object(o);
  }

  /**
   * Read the picture's inputs; whether they differ from the drawn frame's.
   * @param {import('three').Scene} scene
   * @param {import('three').Camera} camera
   * @param {HTMLCanvasElement} canvas
   */
  look(scene, camera, canvas) {
    this.i = 0;
    scene.updateMatrixWorld();
    camera.updateMatrixWorld();
    this.put(canvas.width);
    this.put(canvas.height);
    this.matrix(camera.matrixWorld.elements);
    this.matrix(camera.projectionMatrix.elements);
    const bg = /** @type {any} */ (scene.background);
    if (bg && bg.isColor) this.colour(bg);
    scene.traverseVisible(this.visit);
    this.length = this.i;
    if (this.length !== this.drawnLength) return true;
    const { now, drawn } = this;
    for (let k = 0; k < this.length; k++) {
      const a = now[k];
      const b = drawn[k];
      if (a !== b && !(Math.abs(a - b) <= TOLERANCE * (1 + Math.abs(a)))) return true;
    }
    return false;
  }

  /** The frame just drawn shows what the last look read (a look after drawing it). */
  drew() {
    const was = this.drawn;
    this.drawn = this.now;
    this.now = was;
    this.drawnLength = this.length;
  }

  /** Nothing is drawn: the next look differs whatever it reads. */
  forget() {
    this.drawnLength = -1;
  }

  /** @param {number} x */
  put(x) {
    if (this.i === this.now.length) {
      const bigger = new Float64Array(2 * this.now.length);
      bigger.set(this.now);
      this.now = bigger;
      const drawn = new Float64Array(bigger.length).fill(NaN);
      drawn.set(this.drawn);
      this.drawn = drawn;
    }
    this.now[this.i++] = x;
  }

  /** @param {ArrayLike<number>} e */
  matrix(e) {
    for (let k = 0; k < 16; k++) this.put(e[k]);
  }

  /** @param {{r: number, g: number, b: number}} c */
  colour(c) {
    this.put(c.r);
    this.put(c.g);
    this.put(c.b);
  }

  /** @param {Object3D} o */
  object(o) {
    this.put(o.id);
    this.matrix(o.matrixWorld.elements);
    const drawable = /** @type {any} */ (o);
    const geometry = drawable.geometry;
    if (geometry) {
      this.put(geometry.id);
      for (const name in geometry.attributes) {
        const a = geometry.attributes[name];
        this.put(a.isInterleavedBufferAttribute ? a.data.version : a.version);
      }
      if (geometry.index) this.put(geometry.index.version);
      this.put(geometry.drawRange.start);
      this.put(geometry.drawRange.count);
      this.put(geometry.instanceCount ?? 0);
    }
    const material = drawable.material;
    if (Array.isArray(material)) for (const m of material) this.material(m);
    else if (material) this.material(material);
  }

  /** @param {Material} m */
  material(m) {
    const any = /** @type {any} */ (m);
    this.put(m.id);
    this.put(m.version);
    this.put(m.opacity);
    if (any.color) this.colour(any.color);
    if (any.emissive) this.colour(any.emissive);
    if (any.map) this.put(any.map.version);
  }
}

/**
 * A vertex written in place, P[k..k+2] = (x, y, z); whether that changed it (compared as
 * stored, Float32). Geometry a frame rewrites is sent to the GPU again only when it did, so a
 * paused page draws nothing (the water's streaks, the labels' leader lines).
 * @param {Float32Array} P @param {number} k @param {number} x @param {number} y @param {number} z
 */
export function writeVertex(P, k, x, y, z) {
  const changed = P[k] !== Math.fround(x) || P[k + 1] !== Math.fround(y) || P[k + 2] !== Math.fround(z);
  P[k] = x;
  P[k + 1] = y;
  P[k + 2] = z;
  return changed;
}
