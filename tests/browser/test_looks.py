"""Every shipped mesh and material loads in the page and is drawn at the size FhSim asks for.

One page and one room for the module; each test sets Mesh/Material/MeshScale/Size/MeshOrigin
through set_params and reads the drawn mesh's bounding box (body frame, metres) from the test
hook, then checks the screen pixels where the body should be.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Browser
from support.pagekit import REPO, WAIT_MS, PageRun, Served, grab, open_page, wait_frames

CATALOGUE = json.loads((REPO / "meshes" / "meshes.json").read_text())
MATERIALS = json.loads((REPO / "meshes" / "materials.json").read_text())
BACKGROUND = np.array([0xE8, 0xED, 0xF2])


@pytest.fixture(scope="module")
def looks(browser: Browser, server: Served) -> Iterator[PageRun]:
    run = open_page(browser, server.url)
    page = run.page
    page.evaluate("__sixdof.send({type: 'pause'})")  # keep the body where it is
    page.click("#btn-follow")
    yield run
    run.close()


def set_looks(run: PageRun, **params: object) -> dict:
    """Send set_params with these visual parameters; wait until the page has drawn them."""
    page = run.page
    before = page.evaluate("__sixdof.helloCount")
    page.evaluate("(p) => __sixdof.send({type: 'set_params', ...p})", params)
    page.wait_for_function(
        "([b, p]) => __sixdof.helloCount > b && Object.entries(p).every(([k, v]) =>"
        " JSON.stringify(__sixdof.hello.scenario.bodies[0][k]) === JSON.stringify(v))"
        " && __sixdof.bodyBox().loaded",
        arg=[before, params],
        timeout=WAIT_MS,
    )
    wait_frames(page, 2)  # a frame or two to draw it
    return page.evaluate("__sixdof.bodyBox()")


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e["name"])
def test_each_mesh_is_drawn_at_mesh_scale_times_size(looks: PageRun, entry: dict) -> None:
    scale, size, origin = [1.5, 1.0, 1.0], [0.8, 1.2, 1.0], [0.1, 0.0, -0.05]
    alias = entry["aliases"][0]  # FhSim's name, e.g. fhSphere.mesh
    box = set_looks(
        looks, Mesh=alias, MeshScale=scale, Size=size, MeshOrigin=origin, Material="Simple/Red"
    )
    assert box["meshKnown"] and box["resolved"] == entry["name"], box
    factor = np.multiply(scale, size)
    np.testing.assert_allclose(box["size"], np.multiply(entry["size"], factor), atol=2e-3)
    # placed at MeshOrigin from the CG (CGOffset is 0 here), body frame
    np.testing.assert_allclose(
        box["min"], np.multiply(entry["bbox_min"], factor) + origin, atol=2e-3
    )
    # drawn: red pixels at the middle of its box on screen
    centre = ((np.array(box["min"]) + box["max"]) / 2).tolist()
    p = looks.page.evaluate("(c) => __sixdof.bodyScreenPosition(undefined, c)", centre)
    rgb = grab(looks.page, p["x"], p["y"], 3).reshape(-1, 3).astype(int)
    red = (rgb[:, 0] - rgb[:, 2] > 60) & (rgb[:, 0] - rgb[:, 1] > 60)
    assert red.mean() > 0.5, f"{entry['name']}: no red body on screen, mean RGB {rgb.mean(0)}"
    assert looks.errors == []


@pytest.mark.parametrize("name", sorted(MATERIALS))
def test_each_material_is_known_with_its_colour(looks: PageRun, name: str) -> None:
    box = set_looks(looks, Mesh="box", Material=name, MeshScale=[1, 1, 1], Size=[1, 1, 1],
                    MeshOrigin=[0, 0, 0])  # fmt: skip
    assert box["materialKnown"], box
    assert box["color"] == MATERIALS[name]["color"].lower()
    assert box["opacity"] == pytest.approx(MATERIALS[name].get("opacity", 1.0))
    assert looks.page.locator("[data-banner='looks']").count() == 0


def test_unknown_mesh_and_material_warn_and_fall_back(looks: PageRun) -> None:
    box = set_looks(looks, Mesh="fhTorpedo.mesh", Material="Simple/Plaid", Size=[2, 2, 2],
                    MeshScale=[1, 1, 1], MeshOrigin=[0, 0, 0])  # fmt: skip
    assert not box["meshKnown"] and box["resolved"] == "sphere"
    np.testing.assert_allclose(box["size"], [2, 2, 2], atol=2e-3)  # the unit sphere, scaled
    assert not box["materialKnown"] and box["color"] == "#8a9099"  # grey
    banner = looks.page.locator("[data-banner='looks']").inner_text()
    assert "fhTorpedo.mesh" in banner and "Simple/Plaid" in banner
    p = looks.page.evaluate("__sixdof.bodyScreenPosition()")
    rgb = grab(looks.page, p["x"], p["y"], 3).reshape(-1, 3).astype(int).mean(0)
    assert np.abs(rgb - BACKGROUND).max() > 25, "the fallback sphere is drawn"
    # a CSS colour is a material too, and the warning goes away
    box = set_looks(looks, Mesh="sphere", Material="tomato")
    assert box["materialKnown"] and box["color"] == "#ff6347"
    assert looks.page.locator("[data-banner='looks']").count() == 0
    assert looks.errors == []
