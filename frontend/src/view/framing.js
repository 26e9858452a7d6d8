// @ts-check
// Framing: the camera placed so the bodies fill a useful share of the view (issue 45: the
// gyroscope was 90 px wide on a 1920 px screen), and the share they fill, measured the same way
// by the page and by its tests: each body's mesh bounding box, projected corner by corner.

import { Box3, Vector3 } from 'three';

/** The share of the view's smaller side the bodies' bounding sphere spans once framed. */
const FILL = 0.5;
/** Framing moves closer while the boxes cover less than this share of the height... */
const WANT = 0.3;
/** ...and every box's corners stay within this share of the view's half-size. */
const INSIDE = 0.92;

/**
 * Each body's mesh bounding box, three world (its pose as last drawn).
 * @param {Iterable<import('./body.js').BodyView>} views
 */
export function bodyBoxes(views) {
  /** @type {Box3[]} */
  const boxes = [];
  for (const v of views) {
    v.mesh.updateWorldMatrix(true, false);
    const box = new Box3().setFromObject(v.mesh);
    if (!box.isEmpty()) boxes.push(box);
  }
  return boxes;
}

/**
 * The projected boxes in normalised device coordinates: [xmin, xmax, ymin, ymax] each, not
 * clipped; null for a box with a corner behind the camera.
 * @param {import('three').PerspectiveCamera} camera @param {Box3[]} boxes
 */
function projected(camera, boxes) {
  camera.updateMatrixWorld();
  const p = new Vector3();
  return boxes.map((b) => {
    const r = [Infinity, -Infinity, Infinity, -Infinity];
    for (let k = 0; k < 8; k++) {
      p.set(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y, k & 4 ? b.max.z : b.min.z).project(camera);
      if (p.z > 1 || p.z < -1) return null;
      r[0] = Math.min(r[0], p.x);
      r[1] = Math.max(r[1], p.x);
      r[2] = Math.min(r[2], p.y);
      r[3] = Math.max(r[3], p.y);
    }
    return r;
  });
}

/**
 * The share of the view's height the boxes cover: the union of their vertical extents, clipped
 * to the view (a body off the screen covers nothing), 0 to 1.
 * @param {import('three').PerspectiveCamera} camera @param {Box3[]} boxes
 */
export function heightShare(camera, boxes) {
  /** @type {Array<[number, number]>} */
  const spans = [];
  for (const r of projected(camera, boxes)) {
    if (!r || r[1] < -1 || r[0] > 1) continue;
    const lo = Math.max(-1, r[2]);
    const hi = Math.min(1, r[3]);
    if (hi > lo) spans.push([lo, hi]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let end = -1;
  for (const [lo, hi] of spans) {
    if (hi <= end) continue;
    covered += hi - Math.max(lo, end);
    end = hi;
  }
  return covered / 2;
}

/**
 * Whether every box lies within INSIDE of `free` (the part of the view no card covers, NDC)
 * and off every rectangle of `avoid` (NDC, [x0, x1, y0, y1] each).
 * @param {import('three').PerspectiveCamera} camera @param {Box3[]} boxes @param {number[]} free
 * @param {number[][]} [avoid]
 */
function allInside(camera, boxes, free, avoid = []) {
  const [x0, x1, y0, y1] = free;
  const mx = ((1 - INSIDE) * (x1 - x0)) / 2;
  const my = ((1 - INSIDE) * (y1 - y0)) / 2;
  const off = (/** @type {number[]} */ r) => avoid.every((a) => r[1] <= a[0] || r[0] >= a[1] || r[3] <= a[2] || r[2] >= a[3]);
  return projected(camera, boxes).every((r) => r !== null && r[0] > x0 + mx && r[1] < x1 - mx && r[2] > y0 + my && r[3] < y1 - my && off(r));
}

/**
 * Place `camera` looking at the boxes' centre from direction `from` (three world, any length):
 * first at the distance where their bounding sphere spans FILL of the smaller side, then closer
 * while they cover less than WANT of the height and all stay inside the view (bodies far apart
 * and small: as close as keeps them all in sight). Returns the target (three world), or null
 * when there is nothing to frame. `free`: the part of the view no card covers (NDC, the camera's
 * view offset centres the picture in it): the bodies are fitted there. `avoid`: rectangles
 * in it the bodies keep out of (a phone's push pad flanking them, NDC [x0, x1, y0, y1] each):
 * the camera first steps back until they do, and the last step closer is halved until it
 * stops short of them (the pad's corners leave little room; a whole step wastes much of it).
 * @param {import('three').PerspectiveCamera} camera @param {Box3[]} boxes @param {Vector3} from
 * @param {number[]} [free] @param {number[][]} [avoid]
 */
export function frameBoxes(camera, boxes, from, free = [-1, 1, -1, 1], avoid = []) {
  if (!boxes.length) return null;
  const all = boxes.reduce((u, b) => u.union(b), new Box3());
  const target = all.getCenter(new Vector3());
  const radius = Math.max(1e-3, all.getSize(new Vector3()).length() / 2);
  const tanV = Math.tan(((camera.fov / 2) * Math.PI) / 180);
  const tanMin = Math.min((tanV * (free[3] - free[2])) / 2, (tanV * camera.aspect * (free[1] - free[0])) / 2);
  const dir = from.clone().normalize();
  const place = (/** @type {number} */ dist) => {
    camera.position.copy(target).addScaledVector(dir, dist);
    camera.lookAt(target);
    camera.updateMatrixWorld();
  };
  let dist = Math.max(1.5 * radius, radius / (FILL * tanMin));
  place(dist);
  for (let k = 0; avoid.length && k < 8 && !allInside(camera, boxes, free, avoid); k++) place((dist *= 1.25));
  for (let k = 0; k < 8; k++) {
    const share = heightShare(camera, boxes);
    if (share >= WANT) break;
    const closer = Math.max(1.2 * radius, dist * Math.max(0.7, share / WANT));
    if (closer >= dist) break;
    place(closer);
    if (!allInside(camera, boxes, free, avoid)) {
      let near = closer;
      for (let j = 0; avoid.length && j < 4; j++) {
        const mid = (near + dist) / 2;
        place(mid);
        if (allInside(camera, boxes, free, avoid)) dist = mid;
        else near = mid;
      }
      place(dist);
      break;
    }
    dist = closer;
  }
  return target;
}

/**
 * Frame from the first of `dirs` (three world directions), or from another that shows the
 * boxes at least half as tall again: on a phone's portrait view a long, flat mechanism seen
 * side on is as narrow as the screen; seen along its length from above it stands up. The
 * target (three world), or null when there is nothing to frame.
 * @param {import('three').PerspectiveCamera} camera @param {Box3[]} boxes @param {Vector3[]} dirs
 * @param {number[]} [free] @param {number[][]} [avoid]  as frameBoxes takes them
 */
export function frameBest(camera, boxes, dirs, free, avoid) {
  if (!boxes.length) return null;
  let best = dirs[0];
  const first = frameBoxes(camera, boxes, best, free, avoid);
  let share = heightShare(camera, boxes);
  if (share >= WANT) return first;
  for (const dir of dirs.slice(1)) {
    frameBoxes(camera, boxes, dir, free, avoid);
    const s = heightShare(camera, boxes);
    if (s > 1.5 * share) [best, share] = [dir, s];
  }
  return frameBoxes(camera, boxes, best, free, avoid);
}
