// @ts-check
// A PID controller's target in the view (issue 44): a level disc ringed in the controllers'
// colour where the controller holds its body's reference point (target.Pos, NED), drawn over
// everything (a barge's target is under its hull and under the water) and sized by its body.
// input/targetdrag.js moves it; the server's next hello puts it where the room has it.

import { CircleGeometry, DoubleSide, Group, Mesh, MeshBasicMaterial, RingGeometry } from 'three';
import { ELEMENT_COLOURS } from './elements.js';

/** @typedef {import('../net/messages.gen.js').Hello['scenario']['elements'][number]} ElementSpec */
/** @typedef {{k: number, body: string, group: Group, disc: Mesh}} Marker */

const disc = new CircleGeometry(1, 40);
const ring = new RingGeometry(0.86, 1, 40);
const ON_TOP = 999; // drawn after the bodies and the water, without the depth test

/** A PID's target position (NED), or null: no target (it holds where it starts) or not a PID. @param {ElementSpec} e */
export function pidTarget(e) {
  const c = /** @type {{kind: string, type?: string, target?: {Pos?: number[]} | null}} */ (e);
  if (c.kind !== 'controller' || (c.type ?? 'pid') !== 'pid' || !c.target) return null;
  return c.target.Pos ?? [0, 0, 0];
}

export class TargetMarkers {
  /** @param {import('three').Object3D} root  the NED root */
  constructor(root) {
    this.group = new Group();
    root.add(this.group);
    /** @type {Marker[]} */
    this.markers = [];
    this.key = '';
    const colour = ELEMENT_COLOURS.tag;
    const common = { color: colour, side: DoubleSide, depthTest: false, depthWrite: false, transparent: true };
    this.fill = new MeshBasicMaterial({ ...common, opacity: 0.25 });
    this.edge = new MeshBasicMaterial({ ...common, opacity: 0.9 });
  }

  /**
   * The markers of a hello's elements, rebuilt when the targets changed.
   * @param {ElementSpec[] | undefined} specs @param {(body: string) => number} extentOf  a body's size, m
   */
  setElements(specs, extentOf) {
    const list = (specs ?? []).map((e, k) => ({ k, body: e.body, at: pidTarget(e) })).filter((m) => m.at);
    const key = JSON.stringify(list);
    if (key === this.key) return;
    this.key = key;
    for (const m of this.markers) this.group.remove(m.group);
    this.markers = list.map(({ k, body, at }) => {
      const group = new Group();
      const inside = new Mesh(disc, this.fill);
      const rim = new Mesh(ring, this.edge);
      inside.renderOrder = rim.renderOrder = ON_TOP;
      group.add(inside, rim);
      group.scale.setScalar(Math.max(0.1, 0.35 * extentOf(body)));
      group.position.fromArray(/** @type {number[]} */ (at));
      this.group.add(group);
      return { k, body, group, disc: inside };
    });
  }

  /** What is drawn, for the tests: [{element, body, Pos (NED), radius}]. */
  describe() {
    return this.markers.map((m) => ({ element: m.k, body: m.body, Pos: m.group.position.toArray(), radius: m.group.scale.x }));
  }
}
