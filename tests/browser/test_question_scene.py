"""Every preset's question can be answered by looking (issue 45): what the question is about is
drawn and in the view when the preset loads, at 1366×800. The compound pendulum asks about "a
ball on a 1 m string": the ball is there beside the bar, on its 1 m string; the spring pair's
question compares the light ball alone on the spring tied to a wall: it swings beside them; the
chain is asked to be compared with a stiff rod of its length: the rod is there. Each preset's
entry names the bodies its question needs and what else must show (an element drawn, the
water, an overlay, a plot). Read on the laptop sweep's one visit of each preset
(presetsweep.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page
from presetsweep import LOADED, Sweep, in_sweep, probe

from sixdof.scenario.presets import ORDER

WATER = {"water": True}
#: preset -> (bodies its question is about, what else must show)
NEEDS: dict[str, tuple[list[str], dict]] = {
    "hover": (["B"], {}),
    "free_fall": (["Ball"], {"overlay": "ground", "plot": "Height"}),  # how far: the ruler
    "projectile": (["Brick"], {"overlay": "ground", "plot": "Height"}),  # where it lands
    "tennis_racket": (["T"], {"plot": "AngVel"}),
    "symmetric_top": (["Top"], {"overlay": "omegaL"}),  # the axis against L
    "spin_up": (["B"], {"plot": "AngVel"}),
    "coriolis_full": (["Ship"], {}),
    "coriolis_fhsim": (["Ship"], {}),
    "offset_cg": (["Bar"], {}),
    "compound_pendulum": (["Bar", "Ball"], {"string": ("Ball", 1.0)}),
    "heavy_top": (["Top"], {}),
    "gyroscope": (["Wheel"], {"string": ("Wheel", 0.25)}),  # the axle held at its far end
    "two_masses_spring": (["Light", "Heavy", "Lone"], {"coil": "Lone"}),
    "bouncing_ball": (["Ball"], {"floor": True}),
    "spring_mount": (["Box"], {"coil": "Box"}),
    "floating_box": (["Barge"], WATER),
    "stiff_and_tender": (["Stiff", "Tender"], WATER),
    "buoy_in_waves": (["Buoy"], {"water": True, "plot": "Water"}),  # the surface beside it
    "heeled_ship": (["Ship"], {"water": True, "plot": "Euler"}),  # its angle
    "drift_in_current": (["Barge"], WATER),
    # the two models: the sphere and its linear twin, how far apart in the Ghost plot
    "oes_sphere_1m": (["Sphere", "GhostSphere"], {"water": True, "plot": "Ghost"}),
    "oes_sphere_5m": (["Sphere", "GhostSphere"], {"water": True, "plot": "Ghost"}),
    # the two barges side by side, their heave in the Height plot
    "barge_in_waves": (["Barge", "Undamped"], {"water": True, "plot": "Height"}),
    "double_pendulum": (["Upper", "Lower", "GhostUpper", "GhostLower"], {"plot": "Divergence"}),
    "chain": ([f"Link{k}" for k in range(1, 9)] + ["Rod"], {}),
    "gimbal_gyroscope": (["Outer", "Inner", "Rotor"], {}),
    "four_bar": (["Crank", "Coupler", "Rocker"], {}),
    "crane_barge": (["Barge", "Boom", "Load"], WATER),
    "station_keeping": (["Barge"], WATER),
    "moored_buoy": (["Buoy"], WATER),  # its lines: cables drawn with it
    "crane_lowering": (["Barge", "Boom", "Load"], WATER),
    "cart_pole": (["Cart", "Pole"], {}),
    # flips sooner or later as it is stretched: the spin's axis against the inertia ellipsoid
    "stretch_it": (["Bar"], {"overlay": "inertia", "plot": "AngVel"}),
}

#: each body's mesh: drawn, and its projected centre inside the view
SEEN = """(names) => {
  const cam = __sixdof.stage.camera;
  cam.updateMatrixWorld();
  const out = {};
  for (const n of names) {
    const mesh = __sixdof.meshes[n];
    if (!mesh) { out[n] = 'missing'; continue; }
    mesh.updateWorldMatrix(true, false);
    let shown = mesh.visible;
    for (let o = mesh.parent; o; o = o.parent) shown = shown && o.visible;
    const c = mesh.geometry.boundingSphere ?? (mesh.geometry.computeBoundingSphere(),
      mesh.geometry.boundingSphere);
    const p = c.center.clone().applyMatrix4(mesh.matrixWorld).project(cam);
    out[n] = !shown ? 'hidden' : Math.abs(p.x) < 1 && Math.abs(p.y) < 1 && p.z < 1 ? 'seen' : 'off';
  }
  return out;
}"""


def drawn_element(elements: list[dict], kind: str, body: str) -> dict:
    found = [e for e in elements if e["kind"] == kind]
    return next(e for e in found if e["body"] == body)


def test_every_preset_has_an_entry() -> None:
    assert sorted(NEEDS) == sorted(ORDER)


@probe("question", ("laptop",), LOADED)
def question(page: Page, name: str) -> dict:
    """Where the question's bodies are, the elements drawn, the water, overlays and plots."""
    return {
        "seen": page.evaluate(SEEN, NEEDS[name][0]),
        "elements": page.evaluate("__sixdof.elements()"),
        "water": page.evaluate("__sixdof.water(0, 0).visible"),
        "overlays": page.evaluate("__sixdof.view.current().overlays"),
        "plots": page.evaluate("__sixdof.plotsChosen"),
    }


@in_sweep("laptop")
@pytest.mark.parametrize("name", ORDER)
def test_what_the_question_asks_about_is_in_the_scene(
    preset_sweep: Callable[[str], Sweep], name: str
) -> None:
    sweep = preset_sweep("laptop")
    got = sweep.get(name, "question")
    bodies, more = NEEDS[name]
    assert got["seen"] == dict.fromkeys(bodies, "seen"), name
    elements = got["elements"]
    if "string" in more:  # a pivot held away from the body: its string or axle drawn
        body, length = more["string"]
        assert drawn_element(elements, "pivot", body)["string"] == pytest.approx(length, rel=0.01)
    if "coil" in more:
        coil = drawn_element(elements, "spring", more["coil"])
        assert coil["visible"] and coil["length"] > 0.1
    if "floor" in more:
        assert drawn_element(elements, "ground", bodies[0])["visible"]
    if "water" in more:
        assert got["water"]
    else:
        assert not got["water"]
    if "overlay" in more:
        assert more["overlay"] in got["overlays"]
    if "plot" in more:
        assert more["plot"] in got["plots"]
    # the page's console, before the first preset and while this one was visited
    assert sweep.errors.get("(open)", []) + sweep.errors.get(name, []) == []
