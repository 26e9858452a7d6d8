// @ts-check
// Legible labels (issue 45): the overlays put each label at the tip of its arrow, and on a
// small body those tips pile up ("pivot 13.2 N", "net 3.86 N", "W 9.81 N" over a 60 px drum).
// Once a frame, after the overlays are posed and before the view is drawn, this sizes every
// label in screen pixels (larger in projector mode), then places them one by one in priority
// order: each at its arrow's tip if that spot is free, else at the nearest free spot on rings
// around it, free meaning inside the view and off the page's cards (panel/insets.js), clear of every label placed before it, and covering
// at most BODY_SHARE of any body's projected box. A label moved off its tip gets a leader line
// back to it. The rectangles are the text's ink, not the whole canvas (labels.js inkShare).

import { Box3, BufferAttribute, BufferGeometry, LineBasicMaterial, LineSegments, Vector3 } from 'three';
import { writeVertex } from './watch.js';

/** Drawn height of a label's quad, CSS px: a laptop, a projector (the back row), a phone. */
const QUAD_PX = { normal: 21, projector: 34, small: 19 };
/** The most of a body's projected box a label may cover (the issue allows a quarter). */
const BODY_SHARE = 0.1;
/** Rings of candidate spots around the tip, a quad's height apart, 12 spots each. */
const RINGS = 9;
const SPOTS = 12;
/** Clearance between labels, px. */
const GAP = 2;
/** A label this far (px) or more from its tip gets a leader line. */
const LEADER_PX = 6;
const MAX_LABELS = 32;

/** @typedef {import('./labels.js').TextLabel} TextLabel */
/** @typedef {[number, number, number, number]} Rect  left, top, right, bottom (CSS px, y down) */

/** @param {Rect} a @param {Rect} b  the area they share, px² */
export function overlapArea(a, b) {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? w * h : 0;
}

export class Declutter {
  /** @param {import('three').Object3D} root  the NED root: the leader lines hang there */
  constructor(root) {
    const positions = new BufferAttribute(new Float32Array(MAX_LABELS * 6), 3);
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', positions);
    geometry.setDrawRange(0, 0);
    this.leaders = new LineSegments(geometry, new LineBasicMaterial({ color: 0x343a40, depthTest: false, transparent: true }));
    this.leaders.renderOrder = 10;
    this.leaders.frustumCulled = false;
    root.add(this.leaders);
    this.positions = positions;
    /** @type {Rect[]} the labels' rectangles as placed last (tests read them through the hook) */
    this.placed = [];
    /** @type {Rect[]} the bodies' projected boxes as last measured */
    this.bodies = [];
    /** @type {Rect} where labels may go: the view less the bands under the page's cards */
    this.free = [0, 0, 1, 1];
    this.scratch = { a: new Vector3(), b: new Vector3(), box: new Box3() };
  }

  /**
   * Size and place `labels` (visible ones, in priority order) for `camera` over a view of
   * `width` × `height` CSS px, clear of the `meshes`' projected boxes.
   * @param {TextLabel[]} labels
   * @param {Iterable<import('three').Object3D>} meshes
   * @param {import('three').PerspectiveCamera} camera
   * @param {number} width @param {number} height
   * @param {boolean} projector
   * @param {{left: number, top: number, right: number, bottom: number}} [insets]  bands the page's cards cover: kept clear too
   */
  place(labels, meshes, camera, width, height, projector, insets) {
    const s = this.scratch;
    this.free = insets ? [insets.left, insets.top, width - insets.right, height - insets.bottom] : [0, 0, width, height];
    camera.updateMatrixWorld();
    this.measureBodies(meshes, camera, width, height);
    const quad = projector ? QUAD_PX.projector : Math.min(width, height) < 500 ? QUAD_PX.small : QUAD_PX.normal;
    const tanHalf = Math.tan((camera.fov * Math.PI) / 360);
    this.placed.length = 0;
    let lines = 0;
    let moved = false;
    for (const label of labels) {
      if (!label.visible || !label.parent) continue;
      label.parent.updateWorldMatrix(true, false);
      // the tip: where the overlay put the label (its anchor, `center`), on the screen
      label.getWorldPosition(s.a);
      const depth = s.b.copy(s.a).applyMatrix4(camera.matrixWorldInverse).z;
      if (depth >= 0) continue; // behind the camera
      label.setHeight((quad * 2 * -depth * tanHalf) / height);
      s.b.copy(s.a).project(camera);
      const ndcZ = s.b.z;
      const tipX = ((s.b.x + 1) / 2) * width;
      const tipY = ((1 - s.b.y) / 2) * height;
      const w = (quad * label.canvas.width * label.inkShare) / label.canvas.height;
      // the anchor sits at the text's start (right) or end (left), halfway up
      const left0 = label.center.x === 0 ? tipX : tipX - w;
      const top0 = tipY - quad / 2;
      /** @type {Rect} */
      const r = this.spot(left0, top0, w, quad);
      this.placed.push(r);
      const dx = r[0] - left0;
      const dy = r[1] - top0;
      if (Math.hypot(dx, dy) < 0.5) continue;
      // moved: the label's anchor to the new spot, at the tip's depth, and a line back to the tip
      const ax = tipX + dx;
      const ay = tipY + dy;
      s.b.set((ax / width) * 2 - 1, 1 - (ay / height) * 2, ndcZ).unproject(camera);
      label.parent.worldToLocal(s.b);
      label.position.copy(s.b);
      if (Math.hypot(dx, dy) >= LEADER_PX && lines < MAX_LABELS) {
        // from the tip to the rectangle's nearest point
        const nx = Math.min(Math.max(tipX, r[0]), r[2]);
        const ny = Math.min(Math.max(tipY, r[1]), r[3]);
        s.b.set((nx / width) * 2 - 1, 1 - (ny / height) * 2, ndcZ).unproject(camera);
        this.leaders.worldToLocal(s.b);
        this.leaders.worldToLocal(s.a);
        const arr = /** @type {Float32Array} */ (this.positions.array);
        moved = writeVertex(arr, 6 * lines, s.a.x, s.a.y, s.a.z) || moved;
        moved = writeVertex(arr, 6 * lines + 3, s.b.x, s.b.y, s.b.z) || moved;
        lines++;
      }
    }
    this.leaders.geometry.setDrawRange(0, lines * 2);
    this.leaders.visible = lines > 0;
    // sent to the GPU again only when a line moved: a paused page draws nothing (view/watch.js)
    if (moved) this.positions.needsUpdate = true;
  }

  /**
   * The free spot nearest (left, top) for a w × h rectangle: rings of SPOTS around it; the
   * least crowded one seen when none is free (a view too small for all its labels).
   * @param {number} left @param {number} top @param {number} w @param {number} h
   * @returns {Rect}
   */
  spot(left, top, w, h) {
    /** @type {Rect} */
    let best = [left, top, left + w, top + h];
    let bestCost = Infinity;
    for (let ring = 0; ring <= RINGS; ring++) {
      const radius = ring * h;
      const n = ring === 0 ? 1 : SPOTS;
      for (let k = 0; k < n; k++) {
        const angle = (2 * Math.PI * k) / n;
        // wider steps sideways: a label is several times wider than high
        const x = left + Math.cos(angle) * radius * 1.6;
        const y = top + Math.sin(angle) * radius;
        /** @type {Rect} */
        const r = [x, y, x + w, y + h];
        const cost = this.cost(r);
        if (cost === 0) return r;
        if (cost < bestCost) {
          bestCost = cost;
          best = r;
        }
      }
    }
    return best;
  }

  /**
   * 0 for a free spot; otherwise how badly it fails (px² over the limits).
   * @param {Rect} r
   */
  cost(r) {
    let c = 0;
    // outside the view, or under a card
    const f = this.free;
    c += Math.max(0, f[0] - r[0]) + Math.max(0, r[2] - f[2]) + Math.max(0, f[1] - r[1]) + Math.max(0, r[3] - f[3]);
    c *= r[3] - r[1];
    /** @type {Rect} */
    const padded = [r[0] - GAP, r[1] - GAP, r[2] + GAP, r[3] + GAP];
    for (const p of this.placed) c += 4 * overlapArea(padded, p);
    for (const b of this.bodies) {
      const area = (b[2] - b[0]) * (b[3] - b[1]);
      c += Math.max(0, overlapArea(r, b) - BODY_SHARE * area);
    }
    return c;
  }

  /**
   * Each mesh's bounding box projected, corner by corner, as a screen rectangle.
   * @param {Iterable<import('three').Object3D>} meshes
   * @param {import('three').PerspectiveCamera} camera @param {number} width @param {number} height
   */
  measureBodies(meshes, camera, width, height) {
    const s = this.scratch;
    let n = 0;
    for (const mesh of meshes) {
      if (!mesh.visible) continue;
      mesh.updateWorldMatrix(true, false);
      const box = s.box.setFromObject(mesh);
      if (box.isEmpty()) continue;
      /** @type {Rect} */
      const r = (this.bodies[n] ??= [0, 0, 0, 0]);
      r[0] = r[1] = Infinity;
      r[2] = r[3] = -Infinity;
      let behind = false;
      for (let k = 0; k < 8; k++) {
        s.a.set(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z).project(camera);
        if (s.a.z > 1) behind = true;
        const x = ((s.a.x + 1) / 2) * width;
        const y = ((1 - s.a.y) / 2) * height;
        r[0] = Math.min(r[0], x);
        r[1] = Math.min(r[1], y);
        r[2] = Math.max(r[2], x);
        r[3] = Math.max(r[3], y);
      }
      if (!behind) n++;
    }
    this.bodies.length = n;
  }
}
