// @ts-check
// One body as FhSim describes it, drawn in NED inside the root group.
//
//   group        at Pos (the reference point o), turned by Quater
//     holder     at CGOffset + MeshOrigin (MeshOrigin is relative to the CG), scaled MeshScale × Size
//       mesh     the Mesh file, drawn with Material
//     triad      at CGOffset: the body axes x, y, z
//   velocity     at the CG, in NED: the CG's velocity (forces: fbd.js)
//   trail        the CG path, CG = Pos + R(Quater) CGOffset

import { Box3, Group, Mesh, Vector3 } from 'three';
import { Arrow, Trail, makeTriad } from './glyphs.js';
import { emergencyGeometry } from './meshes.js';
import { VIEW } from '../net/protocol.gen.js';

/** @typedef {import('../net/messages.gen.js').BodySpec} BodySpec */

/**
 * What the BodyView says about its mesh and material (the page's banners and tests read it).
 * @typedef {Object} BodyStatus
 * @property {string | null} mesh  the Mesh parameter drawn
 * @property {boolean} meshKnown  false: drawn as the fallback sphere
 * @property {string | null} [resolved]  the catalogue's name for it
 * @property {boolean} loaded  its file loaded (or failed)
 * @property {string} [error]  why it failed
 * @property {string | null} material  the Material parameter drawn
 * @property {boolean} materialKnown  false: drawn in grey
 * @property {string} [color]  the material's colour, #rrggbb
 * @property {number} [opacity]
 */

const COLORS = VIEW.GLYPH_COLOURS;
export { COLORS as ARROW_COLORS };

/** Metres per unit of the mesh file's coordinates (MeshUnits), as the server scales its hull. */
const UNITS = { m: 1, mm: 1e-3, in: 0.0254 };

/** @param {BodySpec} spec */
function unitOf(spec) {
  return UNITS[spec.MeshUnits ?? 'm'] ?? 1;
}

/**
 * `a` if it is three finite numbers, else `fallback`.
 * @param {readonly number[] | null | undefined} a
 * @param {readonly number[]} [fallback]
 * @returns {readonly number[]}
 */
function vec3(a, fallback = [0, 0, 0]) {
  return Array.isArray(a) && a.length === 3 && a.every(Number.isFinite) ? a : fallback;
}

export class BodyView {
  /**
   * ghost: a translucent body without axes, arrows or trail (a ghost run, ghost.py).
   * @param {import('three').Object3D} root  the NED root
   * @param {import('./meshes.js').MeshLibrary} library
   * @param {import('three').ColorRepresentation} background  the trail fades into it
   * @param {{ghost?: boolean}} [options]
   */
  constructor(root, library, background, { ghost = false } = {}) {
    this.ghost = ghost;
    this.root = root;
    this.library = library;
    this.group = new Group();
    this.holder = new Group();
    this.group.add(this.holder);
    root.add(this.group);
    /** @type {Mesh<import('three').BufferGeometry, import('three').Material>} */
    this.mesh = new Mesh(emergencyGeometry());
    this.holder.add(this.mesh);
    this.triad = makeTriad(1);
    this.group.add(this.triad);
    this.arrows = { velocity: new Arrow(COLORS.velocity) };
    for (const a of Object.values(this.arrows)) root.add(a);
    this.trail = new Trail(root, VIEW.GLYPH_COLOURS.trail, background);
    /** @type {BodySpec | null} */
    this.spec = null;
    this.extentCached = 1;
    /** @type {string | null} */
    this.meshKey = null;
    /** @type {string | null} */
    this.materialKey = null;
    /** @type {BodyStatus} */
    this.status = { mesh: null, meshKnown: true, material: null, materialKnown: true, loaded: false };
    this.cg = new Vector3();
    // reused every frame: the render loop allocates nothing
    this.scratch = { velocity: new Vector3() };
    /** @type {Promise<void>} the mesh's loading */
    this.loading = Promise.resolve();
  }

  /**
   * Apply a BodySpec from hello (visual parameters and CGOffset); reloads mesh/material only when they change.
   * @param {BodySpec} spec
   */
  setSpec(spec) {
    this.spec = spec;
    this.extentCached = this.computeExtent();
    const cg = vec3(spec.CGOffset);
    const origin = vec3(spec.MeshOrigin);
    const scale = vec3(spec.MeshScale, [1, 1, 1]).map((v) => v * unitOf(spec));
    const size = vec3(spec.Size, [1, 1, 1]);
    this.holder.position.set(cg[0] + origin[0], cg[1] + origin[1], cg[2] + origin[2]);
    // a zero scale would make a singular matrix: keep it tiny instead
    const s = [0, 1, 2].map((i) => (Math.abs(scale[i] * size[i]) < 1e-6 ? 1e-6 : scale[i] * size[i]));
    this.holder.scale.set(s[0], s[1], s[2]);
    this.triad.position.set(cg[0], cg[1], cg[2]);
    this.triad.scale.setScalar(Math.max(0.3, 1.0 * this.extent())); // long enough to stick out of the mesh
    if (spec.Material !== this.materialKey) {
      this.materialKey = spec.Material;
      const { material, known } = this.library.material(spec.Material);
      this.mesh.material.dispose();
      this.mesh.material = material;
      this.status.material = spec.Material;
      this.status.materialKnown = known;
      if (this.ghost) {
        material.transparent = true;
        material.opacity = 0.3;
        material.depthWrite = false;
      }
      this.status.color = `#${material.color.getHexString()}`;
      this.status.opacity = material.opacity;
    }
    if (spec.Mesh !== this.meshKey) {
      this.meshKey = spec.Mesh;
      const { entry, known } = this.library.lookup(spec.Mesh);
      this.status.mesh = spec.Mesh;
      this.status.meshKnown = known;
      this.status.resolved = entry?.name ?? null;
      this.status.loaded = false;
      if (entry) {
        const key = spec.Mesh;
        this.loading = this.library
          .geometry(entry)
          .then((g) => {
            if (this.meshKey !== key) return;
            this.mesh.geometry = g;
            this.status.loaded = true;
          })
          .catch((/** @type {unknown} */ err) => {
            this.status.meshKnown = false;
            this.status.error = err instanceof Error ? err.message : String(err);
            this.status.loaded = true;
          });
      } else {
        this.status.loaded = true;
      }
    }
  }

  /** A characteristic length of the drawn body (m): its largest scaled dimension. */
  extent() {
    return this.extentCached; // set with the spec: the overlays ask every frame
  }

  computeExtent() {
    if (!this.spec) return 1;
    const unit = unitOf(this.spec);
    const scale = vec3(this.spec.MeshScale, [1, 1, 1]).map((v) => v * unit);
    const size = vec3(this.spec.Size, [1, 1, 1]);
    return Math.max(0.05, ...[0, 1, 2].map((i) => Math.abs(scale[i] * size[i])));
  }

  /**
   * Pose the body from an interpolated sample {Pos, quat, frame} and update the velocity
   * arrow and the trail. `show` = {triad, velocity, trail}.
   * @param {{Pos: ArrayLike<number>, quat: import('three').Quaternion, frame: {CGVel?: number[], Vel?: number[]}}} sample
   * @param {{triad: boolean, velocity: boolean, trail: boolean}} show
   */
  update(sample, show) {
    const { Pos, quat, frame } = sample;
    this.group.position.set(Pos[0], Pos[1], Pos[2]);
    this.group.quaternion.copy(quat);
    const cgOff = vec3(this.spec?.CGOffset);
    this.cg.set(cgOff[0], cgOff[1], cgOff[2]).applyQuaternion(quat).add(this.group.position);
    this.triad.visible = show.triad && !this.ghost;
    const L = this.extent();
    // the CG's own velocity (the reference point's differs when the body turns about it)
    const v = this.scratch.velocity.fromArray(vec3(frame.CGVel ?? frame.Vel));
    // its length saturates so a fast body's arrow stays on screen; the HUD gives the number
    /** @param {number} x @param {number} cap */
    const sat = (x, cap) => cap * (1 - Math.exp(-x / cap));
    this.place(this.arrows.velocity, v, sat(v.length() * 0.5, 4 * L), show.velocity && !this.ghost); // where it is in 0.5 s
    this.trail.visible = show.trail && !this.ghost;
    this.trail.add([this.cg.x, this.cg.y, this.cg.z], L * 0.004);
  }

  /**
   * The arrow along `vec` (a scratch: normalised here) from the CG, `length` m at least 0.15 extents.
   * @param {Arrow} arrow
   * @param {Vector3} vec
   * @param {number} length
   * @param {boolean} visible
   */
  place(arrow, vec, length, visible) {
    const n = vec.length();
    if (!visible || !(n > 1e-9)) {
      arrow.visible = false;
      return;
    }
    arrow.radius = Math.max(0.01, 0.035 * this.extent());
    arrow.set(this.cg, vec.divideScalar(n), Math.max(length, 0.15 * this.extent())); // vec: a scratch
  }

  /** The mesh's bounding box in the body frame (m): what MeshScale × Size and MeshOrigin made of it. */
  bodyBox() {
    const g = this.mesh.geometry;
    g.computeBoundingBox();
    const bounds = g.boundingBox;
    if (!bounds) throw new Error('sixdof: computeBoundingBox() left no bounding box');
    this.holder.updateMatrix();
    const box = new Box3().copy(bounds).applyMatrix4(this.holder.matrix);
    return { min: box.min.toArray(), max: box.max.toArray(), size: box.getSize(new Vector3()).toArray() };
  }

  dispose() {
    this.root.remove(this.group);
    for (const a of Object.values(this.arrows)) this.root.remove(a);
    this.trail.clear();
    this.trail.flush();
    this.mesh.material.dispose();
  }
}
