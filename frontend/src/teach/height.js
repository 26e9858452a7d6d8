// @ts-check
// Show → "Ground and height": a reference for translation. NED's z points down, so the
// height above the ground plane (z = 0) is h = −D. Drawn: a shadow on the ground under the
// CG, a drop line from the CG to the ground, a height scale along that line with ticks and
// labels in h (only the ticks near the body, so a body 500 m up still has numbers beside
// it), and the height of the CG as a label.

import { BufferGeometry, CircleGeometry, Float32BufferAttribute, Group, LineBasicMaterial, LineSegments, Mesh, MeshBasicMaterial, Vector3 } from 'three';
import { TextLabel, magnitude, niceStep } from '../view/labels.js';
import { t } from '../core/i18n.js';

const TICKS = 7; // ticks drawn around the body's height
const INK = '#343a40';

export class HeightGuide {
  /** @param {import('three').Object3D} root  the NED root */
  constructor(root) {
    this.group = new Group();
    root.add(this.group);
    this.shadow = new Mesh(new CircleGeometry(1, 40), new MeshBasicMaterial({ color: '#000000', transparent: true, opacity: 0.22, depthWrite: false }));
    this.group.add(this.shadow);
    // the drop line, one segment per tick and the ruler's spine: positions rewritten in place
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new Float32BufferAttribute(new Float32Array((2 + TICKS) * 2 * 3), 3));
    this.lines = new LineSegments(geometry, new LineBasicMaterial({ color: INK }));
    this.lines.frustumCulled = false;
    this.group.add(this.lines);
    this.tickLabels = Array.from({ length: TICKS }, () => new TextLabel(INK, 0.2, 'right', 9));
    this.heightLabel = new TextLabel('#1d3557', 0.2, 'right', 22);
    this.group.add(...this.tickLabels, this.heightLabel);
    this.visible = false;
    this.group.visible = false;
    this.height = 0; // m, the last drawn height of the CG (−D)
    this.scratch = new Vector3();
  }

  /** @param {boolean} on */
  setVisible(on) {
    this.visible = on;
    this.group.visible = on;
  }

  /**
   * Draw for the body `view` (its drawn CG and extent); `labels`: rewrite the texts now.
   * @param {import('../view/body.js').BodyView} view
   * @param {boolean} labels
   */
  update(view, labels) {
    if (!this.visible) return;
    const cg = view.cg; // NED
    const extent = view.extent();
    const h = -cg.z;
    this.height = h;
    const size = Math.max(0.3, 0.6 * extent);
    this.shadow.position.set(cg.x, cg.y, -1e-3 * extent); // just above the grid
    this.shadow.scale.setScalar(size);
    const attr = /** @type {import('three').BufferAttribute} */ (this.lines.geometry.getAttribute('position'));
    attr.setXYZ(0, cg.x, cg.y, cg.z);
    attr.setXYZ(1, cg.x, cg.y, 0);
    // ticks every `step` m of height around the body (a ruler it moves along), spaced for
    // the body's size so that they are on screen wherever the body is
    const step = niceStep(Math.max(extent * 0.75, 0.1));
    const first = Math.round(h / step) - Math.floor(TICKS / 2);
    const half = 0.12 * extent + 0.05;
    const textHeight = Math.max(0.06, 0.13 * extent);
    const x = cg.x + 0.9 * extent; // beside the body, not through it
    for (let k = 0; k < TICKS; k++) {
      const z = -(first + k) * step;
      attr.setXYZ(2 + 2 * k, x - half, cg.y, z);
      attr.setXYZ(3 + 2 * k, x + half, cg.y, z);
      const label = this.tickLabels[k];
      label.position.set(x + half * 1.3, cg.y, z);
      label.setHeight(textHeight);
      if (labels) label.setText(`${magnitude((first + k) * step)} m`);
    }
    // the ruler's spine, beside the body (segment 0 is the drop line to the ground)
    attr.setXYZ(2 * TICKS + 2, x, cg.y, -first * step);
    attr.setXYZ(2 * TICKS + 3, x, cg.y, -(first + TICKS - 1) * step);
    attr.needsUpdate = true;
    this.heightLabel.position.set(cg.x, cg.y, cg.z - 0.9 * extent);
    this.heightLabel.setHeight(textHeight * 1.3);
    if (labels) this.heightLabel.setText(t('label.height', { h: magnitude(h) }));
  }
}
