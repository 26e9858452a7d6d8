"""What the label and layout tests measure on the page: every drawn label's screen rectangle
and every body's projected box, the overlap of two rectangles, and the overlays the labels
belong to turned on."""

from __future__ import annotations

from playwright.sync_api import Page
from support.pagekit import wait_frames

#: every drawn label's screen rectangle [left, top, right, bottom] (CSS px) and every body's box
MEASURE = """() => {
  const cam = __sixdof.stage.camera;
  const canvas = __sixdof.stage.canvas;
  const W = canvas.clientWidth, H = canvas.clientHeight;
  cam.updateMatrixWorld();
  const px = (v) => [(v.x + 1) / 2 * W, (1 - v.y) / 2 * H];
  const labels = [];
  for (const l of __sixdof.teach.labels()) {
    l.updateWorldMatrix(true, false);
    // a sprite's quad: its centre in view space, offset by (u - center) * scale, then projected
    const mv = l.getWorldPosition(cam.position.clone()).applyMatrix4(cam.matrixWorldInverse);
    const s = l.getWorldScale(cam.position.clone());
    const corner = (u, v) => px(mv.clone().add(cam.position.clone().set(
      (u - l.center.x) * s.x, (v - l.center.y) * s.y, 0)).applyMatrix4(cam.projectionMatrix));
    const [x0, y0] = corner(0, 0), [x1, y1] = corner(1, 1);
    const w = (x1 - x0) * l.inkShare; // the text's part, from its anchored side
    const left = l.center.x === 0 ? x0 : x1 - w;
    labels.push({text: l.text, r: [left, Math.min(y0, y1), left + w, Math.max(y0, y1)]});
  }
  const bodies = [];
  for (const [name, mesh] of Object.entries(__sixdof.meshes)) {
    mesh.updateWorldMatrix(true, false);
    const g = mesh.geometry;
    g.computeBoundingBox();
    const b = g.boundingBox;
    const r = [Infinity, Infinity, -Infinity, -Infinity];
    for (let k = 0; k < 8; k++) {
      const p = b.min.clone().set(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y,
        k & 4 ? b.max.z : b.min.z).applyMatrix4(mesh.matrixWorld).project(cam);
      const [x, y] = px(p);
      r[0] = Math.min(r[0], x); r[1] = Math.min(r[1], y);
      r[2] = Math.max(r[2], x); r[3] = Math.max(r[3], y);
    }
    bodies.push({name, r});
  }
  return {labels, bodies, W, H};
}"""


def overlap(a: list[float], b: list[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def overlays_on(page: Page) -> None:
    """Forces and ω and L on (a preset's view may have turned them off)."""
    page.locator("#scene").focus()
    for key, on in (("1", "__sixdof.teach.fbd.visible"), ("2", "__sixdof.teach.omegaL.visible")):
        if not page.evaluate(on):
            page.keyboard.press(key)
            page.wait_for_function(on)
    wait_frames(page, 3)
