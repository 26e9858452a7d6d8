"""A mesh of one's own, through the page (issue 42): an STL box dropped on the view is
uploaded and offered in Look → Mesh; chosen, with Inertia from shape = solid and a Density,
the hello's Mass, CGOffset and Inertia are the box's closed form (1e-9) and the body is drawn
with the uploaded mesh; Show → Inertia ellipsoid draws the box's equivalent ellipsoid along
its principal axes. A file the server refuses is shown with the server's reason, and the
Look folder's new controls pass axe."""

from __future__ import annotations

import base64
import struct

import numpy as np
import pytest
from a11ykit import axe
from playwright.sync_api import Page
from support.meshes import box, stl_bytes
from support.pagekit import WAIT_MS, PageRun, wait_frames

pytestmark = pytest.mark.browser

DIMS = (2.0, 0.5, 0.25)  # m: a box along x
CENTRE = (0.5, 0.125, -0.0625)  # its centre in the file (exact in an STL's float32)
DENSITY = 500.0

DROP_JS = """([b64, name]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name, {type: 'model/stl'}));
  const view = document.getElementById('view');
  for (const type of ['dragover', 'drop']) {
    view.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
  }
}"""


def open_look(page: Page) -> None:
    """The panel shown, its Look folder open."""
    if not page.locator("#panel").is_visible():
        page.click("#btn-panel")
    folder = page.locator(".lil-gui.lil-closed > .lil-title", has_text="Look")
    if folder.count():
        folder.first.click()


def wait_hello(page: Page, before: int, condition: str) -> dict:
    page.wait_for_function(
        f"(b) => __sixdof.helloCount > b && ({condition})", arg=before, timeout=WAIT_MS
    )
    return page.evaluate("__sixdof.hello.scenario.bodies[0]")


def drop(page: Page, data: bytes, name: str) -> None:
    page.evaluate(DROP_JS, [base64.b64encode(data).decode(), name])


def test_a_dropped_stl_is_offered_chosen_weighed_and_drawn(page_run: PageRun) -> None:
    page = page_run.page
    page.evaluate("__sixdof.send({type: 'pause'})")
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("__sixdof.send({type: 'set_params', MeshScale: [1, 1, 1], Size: [1, 1, 1]})")
    wait_hello(page, before, "__sixdof.hello.scenario.bodies[0].Size[0] === 1")
    open_look(page)
    drop(page, stl_bytes(box(*DIMS, CENTRE)), "brick.stl")
    page.wait_for_function("__sixdof.upload.last !== null", timeout=WAIT_MS)
    mesh = page.evaluate("__sixdof.upload.last")
    assert mesh["triangles"] == 12 and mesh["watertight"], mesh
    assert page.locator("#gyro").is_hidden()  # a mesh is not a gyroscope recording
    note = page.locator(".lil-gui .sixdof-note", has_text="brick.stl")
    assert "12 triangles" in note.inner_text()

    # offered in Look → Mesh by its file name, and chosen there
    before = page.evaluate("__sixdof.helloCount")
    page.get_by_label("Mesh", exact=True).select_option(label="brick.stl")
    wait_hello(page, before, f"__sixdof.hello.scenario.bodies[0].Mesh === '{mesh['id']}'")
    before = page.evaluate("__sixdof.helloCount")
    page.get_by_label("Inertia from shape", exact=True).select_option("solid")
    wait_hello(page, before, "__sixdof.hello.scenario.bodies[0].InertiaFrom === 'solid'")
    before = page.evaluate("__sixdof.helloCount")
    density = page.get_by_label("Density (kg/m³; shell kg/m²)", exact=True)
    density.fill(str(DENSITY))
    density.press("Enter")
    body = wait_hello(page, before, f"__sixdof.hello.scenario.bodies[0].Density === {DENSITY}")

    a, b, c = DIMS
    m = DENSITY * a * b * c
    assert body["Mass"] == pytest.approx(m, rel=1e-9)
    np.testing.assert_allclose(body["CGOffset"], CENTRE, rtol=0, atol=1e-9)
    np.testing.assert_allclose(body["MeshOrigin"], np.negative(CENTRE), rtol=0, atol=1e-9)
    closed = [m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12]
    np.testing.assert_allclose(body["Inertia"][:3], closed, rtol=1e-9, atol=0)
    np.testing.assert_allclose(body["Inertia"][3:], 0.0, rtol=0, atol=1e-9 * max(closed))

    # drawn with the uploaded mesh, placed as the file places it from the reference point
    page.wait_for_function(
        "(id) => { const b = __sixdof.bodyBox(); return b && b.loaded && b.resolved === id }",
        arg=mesh["id"], timeout=WAIT_MS,
    )  # fmt: skip
    wait_frames(page, 2)
    drawn = page.evaluate("__sixdof.bodyBox()")
    assert drawn["meshKnown"], drawn
    np.testing.assert_allclose(drawn["size"], DIMS, atol=1e-4)
    np.testing.assert_allclose(drawn["min"], np.subtract(CENTRE, np.divide(DIMS, 2)), atol=1e-4)
    # the HUD says the mass properties follow the shape; the fields the shape gives are disabled
    assert "follow the shape" in page.inner_text("[data-hud=shape]")
    assert page.get_by_label("Inertia (6, or empty)", exact=True).is_disabled()

    # Show → Inertia ellipsoid: the box's equivalent ellipsoid, a_k = d_k √(5/12)
    page.locator(".lil-gui", has_text="Show").get_by_label("Inertia ellipsoid").check()
    wait_frames(page, 2)
    shown = page.evaluate(
        "(({visible, semiAxes, moments}) => ({visible, semiAxes, moments}))"
        "(__sixdof.teach.principal)"
    )
    assert shown["visible"]
    np.testing.assert_allclose(shown["moments"], sorted(closed), rtol=1e-9)
    semi = np.sqrt(5 / 12) * np.array(sorted(DIMS, reverse=True))  # smallest moment: longest axis
    np.testing.assert_allclose(shown["semiAxes"], semi, rtol=1e-9)

    # the Look folder's new controls, the Show folder's new toggle: no serious axe violation
    serious = [v for v in axe(page) if v.impact in ("serious", "critical")]
    assert serious == []
    assert page_run.errors == []


def test_a_refused_file_shows_the_servers_reason(page_run: PageRun) -> None:
    page = page_run.page
    open_look(page)
    # an STL whose header claims 1,000 triangles where its bytes hold one
    one = stl_bytes(box(1.0, 1.0, 1.0))[: 84 + 50]
    lying = one[:80] + struct.pack("<I", 1000) + one[84:]
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Open file…").click()
    chooser.value.set_files(files=[{"name": "liar.stl", "mimeType": "model/stl", "buffer": lying}])
    error = page.locator(".lil-gui .sixdof-error", has_text="liar.stl")
    error.wait_for(timeout=WAIT_MS)
    reason = page.evaluate(
        """async (b64) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const r = await fetch('api/meshes?name=liar.stl', {method: 'POST', body: bytes});
            return [r.status, (await r.json()).detail];
        }""",
        base64.b64encode(lying).decode(),
    )
    assert reason[0] == 422
    assert reason[1] in error.inner_text()
    assert page.evaluate("__sixdof.upload.last") is None
    # the console has the browser's own line for each refused request (the page's and this
    # test's), nothing else
    assert len(page_run.errors) == 2 and all("status of 422" in e for e in page_run.errors)
