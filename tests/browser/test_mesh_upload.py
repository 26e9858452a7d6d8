"""An STL uploaded from the page (POST api/meshes) is drawn with three.js' own loader at
its size in its units, and weighed as a solid: the page's box and the hello's Mass agree
with the file."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from playwright.sync_api import Browser
from support.meshes import box, stl_bytes
from support.pagekit import WAIT_MS, Served, open_page, wait_frames

pytestmark = pytest.mark.browser


def test_an_uploaded_stl_is_drawn_and_weighed(browser: Browser, server: Served) -> None:
    dims_mm = (2000.0, 500.0, 250.0)
    data = stl_bytes(box(*dims_mm, (1000.0, 0.0, 0.0)))
    run = open_page(browser, server.url)
    page = run.page
    try:
        page.evaluate("__sixdof.send({type: 'pause'})")
        answer = page.evaluate(
            """async (b64) => {
                const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
                const r = await fetch('api/meshes?name=brick.stl', {method: 'POST', body: bytes});
                return r.json();
            }""",
            base64.b64encode(data).decode(),
        )
        assert answer["triangles"] == 12 and answer["watertight"], answer
        params = {"Mesh": answer["id"], "MeshUnits": "mm", "InertiaFrom": "solid",
                  "Density": 500.0, "Size": [1, 1, 1], "MeshScale": [1, 1, 1]}  # fmt: skip
        before = page.evaluate("__sixdof.helloCount")
        page.evaluate("(p) => __sixdof.send({type: 'set_params', ...p})", params)
        page.wait_for_function(
            "([b, id]) => __sixdof.helloCount > b"
            " && __sixdof.hello.scenario.bodies[0].Mesh === id && __sixdof.bodyBox().loaded",
            arg=[before, answer["id"]],
            timeout=WAIT_MS,
        )
        wait_frames(page, 2)
        drawn = page.evaluate("__sixdof.bodyBox()")
        assert drawn["meshKnown"], drawn
        np.testing.assert_allclose(drawn["size"], np.array(dims_mm) / 1000, atol=1e-4)
        body = page.evaluate("__sixdof.hello.scenario.bodies[0]")
        assert body["Mass"] == pytest.approx(500.0 * 2.0 * 0.5 * 0.25, rel=1e-9)
        assert body["CGOffset"] == pytest.approx([1.0, 0.0, 0.0], abs=1e-9)
        # placed as its file places it from the reference point: from x = 0 to 2 m
        np.testing.assert_allclose(drawn["min"], [0.0, -0.25, -0.125], atol=1e-4)
        assert run.errors == []
    finally:
        run.close()
