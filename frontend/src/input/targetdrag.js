// @ts-check
// Dragging a PID's target (issue 44): a plain drag that starts on a target's marker
// (view/targets.js) moves it level, at its depth, under the pointer (the camera stays put);
// on release the controller's new target goes to the room as a live element change, the
// whole list as the Elements panel sends it (set_elements), so a refusal shows there. Shift
// is left to the body's push (input.js), touches to the camera.

import { Plane, Raycaster, Vector2, Vector3 } from 'three';

/**
 * What TargetDrag needs from the page (main.js).
 * @typedef {object} TargetDragDeps
 * @property {import('../view/scene.js').Stage} stage
 * @property {HTMLElement} container  the view's element (the canvas is inside it)
 * @property {import('../view/targets.js').TargetMarkers} markers
 * @property {(k: number, pos: number[]) => void} send  element k's target Pos is now `pos` (NED)
 * @property {() => boolean} canDrag  false while watching
 */

export class TargetDrag {
  /** @param {TargetDragDeps} deps */
  constructor({ stage, container, markers, send, canDrag }) {
    this.stage = stage;
    this.markers = markers;
    this.sendTarget = send;
    this.canDrag = canDrag;
    this.ray = new Raycaster();
    this.mouse = new Vector2();
    /** @type {{marker: import('../view/targets.js').Marker, plane: Plane} | null} the drag in progress */
    this.active = null;
    this.scratch = { hit: new Vector3(), down: new Vector3() };
    // capture phase on the container: before OrbitControls' listener on the canvas
    container.addEventListener('pointerdown', (ev) => this.start(ev), { capture: true });
    window.addEventListener('pointermove', (ev) => this.move(ev));
    window.addEventListener('pointerup', () => this.stop(true));
    window.addEventListener('pointercancel', () => this.stop(false));
  }

  /** @param {PointerEvent} ev */
  aimAt(ev) {
    const r = this.stage.canvas.getBoundingClientRect();
    this.mouse.set(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
    this.ray.setFromCamera(this.mouse, this.stage.camera);
  }

  /** @param {PointerEvent} ev */
  start(ev) {
    if (!this.canDrag() || ev.shiftKey || ev.button !== 0 || ev.pointerType === 'touch') return;
    if (ev.target !== this.stage.canvas || !this.markers.markers.length) return;
    this.aimAt(ev);
    let best = null;
    for (const m of this.markers.markers) {
      const hit = this.ray.intersectObject(m.disc, false)[0];
      if (hit && (!best || hit.distance < best.distance)) best = { marker: m, distance: hit.distance };
    }
    if (!best) return;
    ev.stopPropagation();
    ev.preventDefault();
    const at = best.marker.group.getWorldPosition(new Vector3());
    // level in NED: the plane through the marker whose normal is NED's down, in three's world
    const down = this.scratch.down.set(0, 0, 1).transformDirection(this.markers.group.matrixWorld);
    this.active = { marker: best.marker, plane: new Plane().setFromNormalAndCoplanarPoint(down, at) };
    this.stage.controls.enabled = false;
  }

  /** @param {PointerEvent} ev */
  move(ev) {
    const a = this.active;
    if (!a) return;
    this.aimAt(ev);
    const hit = this.ray.ray.intersectPlane(a.plane, this.scratch.hit);
    if (hit) a.marker.group.position.copy(this.markers.group.worldToLocal(hit));
  }

  /** @param {boolean} send  false: the drag was cancelled, nothing is sent */
  stop(send) {
    const a = this.active;
    if (!a) return;
    this.active = null;
    this.stage.controls.enabled = true;
    if (send) this.sendTarget(a.marker.k, a.marker.group.position.toArray());
  }
}
