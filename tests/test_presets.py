"""Presets: each validates, looks like its inertia, and does what its caption says."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from sixdof.dynamics.quaternion import rotate
from sixdof.headless import RunResult, run_scenario
from sixdof.scenario import Scenario
from sixdof.scenario.presets import DEFAULT_PRESET, PRESETS, Preset, preset_scenario

ROOT = Path(__file__).resolve().parents[1]
G = 9.81
MESHES = {"sphere", "box", "cylinder", "t_handle", "ship", "arrow"}
NAMES = [
    "hover",
    "free_fall",
    "projectile",
    "tennis_racket",
    "symmetric_top",
    "spin_up",
    "coriolis_full",
    "coriolis_fhsim",
    "offset_cg",
]


def run(name: str, t_end: float | None = None, **changes: object) -> RunResult:
    scenario = PRESETS[name].scenario()
    for key, value in changes.items():
        setattr(scenario.bodies[0], key, value)
    return run_scenario(scenario, t_end=t_end)


def test_names_default_and_settings() -> None:
    assert list(PRESETS) == NAMES and DEFAULT_PRESET == "hover"
    for name, preset in PRESETS.items():
        assert isinstance(preset, Preset) and preset.name == name
        scenario = preset.scenario()
        assert isinstance(scenario, Scenario) and scenario.name == name
        assert scenario.caption == preset.caption and 60 < len(preset.caption) < 400
        assert preset.title and len(re.findall(r"[.!?](?:\s|$)", preset.caption)) <= 2, name
        integ = scenario.integration
        assert (integ.method, integ.stepsize) == ("rk4", 1e-3)
        expected_model = "fhsim" if name == "coriolis_fhsim" else "full"
        assert all(b.model == expected_model for b in scenario.bodies)
        assert Scenario.model_validate_json(scenario.model_dump_json()) == scenario
    assert preset_scenario("hover") == PRESETS["hover"].scenario()
    with pytest.raises(KeyError, match="presets are"):
        preset_scenario("nope")


def test_visuals_use_shipped_meshes_and_materials() -> None:
    materials = json.loads((ROOT / "meshes" / "materials.json").read_text())
    for preset in PRESETS.values():
        for body in preset.scenario().bodies:
            assert body.Mesh in MESHES
            assert body.Material in materials or re.fullmatch(r"#[0-9a-f]{6}", body.Material)


def test_inertia_matches_the_mesh_as_drawn() -> None:
    """InertiaRadi equal the radii of gyration of the mesh as drawn (a uniform solid
    scaled by MeshScale × Size), from the per-mesh radii in meshes/meshes.json."""
    meshes = {m["name"]: m for m in json.loads((ROOT / "meshes" / "meshes.json").read_text())}
    for preset in PRESETS.values():
        for body in preset.scenario().bodies:
            rx, ry, rz = np.array(meshes[body.Mesh]["radii"]) ** 2
            second = 0.5 * np.array(
                [ry + rz - rx, rx + rz - ry, rx + ry - rz]
            )  # E[x²], E[y²], E[z²]
            second = second * (np.array(body.Size) * np.array(body.MeshScale)) ** 2
            drawn = np.sqrt([second[1] + second[2], second[0] + second[2], second[0] + second[1]])
            np.testing.assert_allclose(body.InertiaRadi, drawn, rtol=0.02, err_msg=preset.name)


def test_hover_stays_put_and_spins_gently() -> None:
    r = run("hover", 2.0)
    b = r.scenario.bodies[0]
    assert b.Force == (0.0, 0.0, -b.Mass * G)
    assert np.max(np.linalg.norm(r.states[:, 0, 0:3], axis=1)) < 1e-3
    np.testing.assert_allclose(r.states[:, 0, 10:13], [b.AngVel] * len(r.times), atol=1e-12)
    assert 0.1 < np.linalg.norm(b.AngVel) < 1.0


def test_free_fall_as_captioned() -> None:
    r = run("free_fall", 2.0)
    z = r.states[:, 0, 2]
    np.testing.assert_allclose(z, 0.5 * G * r.times**2, rtol=1e-12)
    assert z[r.times.tolist().index(1.0)] == pytest.approx(4.905, abs=1e-9)
    assert "4.905 m after 1 s" in PRESETS["free_fall"].caption


def test_projectile_parabola_as_captioned() -> None:
    r = run("projectile")
    b = r.scenario.bodies[0]
    v, t = b.LocalVel[0], r.times
    pos = r.states[:, 0, 0:3]
    np.testing.assert_allclose(pos[:, 0], v * t, rtol=1e-9)
    np.testing.assert_allclose(pos[:, 2], -v * t + 0.5 * G * t**2, atol=1e-9)
    assert -pos[:, 2].min() == pytest.approx(v**2 / (2 * G), abs=1e-3)
    caption = PRESETS["projectile"].caption
    assert f"{v**2 / (2 * G):.2f} m" in caption and f"{2 * v / G:.2f} s" in caption
    assert np.ptp(r.states[:, 0, 3]) > 1.0  # it does tumble


def test_tennis_racket_flips_in_full_not_in_fhsim() -> None:
    full = run("tennis_racket")
    wx = full.states[:, 0, 10]
    flips = full.times[1:][np.sign(wx[1:]) != np.sign(wx[:-1])]
    assert 0 < flips[0] < 20.0 and len(flips) >= 2
    assert wx.min() < -0.9 * wx[0]
    fhsim = run("tennis_racket", model="fhsim")
    np.testing.assert_allclose(fhsim.states[:, 0, 10:13], [(4.0, 0.0, 0.02)] * len(fhsim.times))
    radii = PRESETS["tennis_racket"].scenario().bodies[0].InertiaRadi
    assert radii[1] < radii[0] < radii[2]  # x is the intermediate axis


def test_symmetric_top_precesses_as_captioned() -> None:
    r = run("symmetric_top", 4.0)
    b = r.scenario.bodies[0]
    x = r.states[:, 0]
    inertia = b.Mass * np.array(b.InertiaRadi) ** 2
    l_world = rotate(x[:, 3:7], inertia * x[:, 10:13])
    np.testing.assert_allclose(l_world - l_world[0], 0.0, atol=1e-9)
    axis = rotate(x[:, 3:7], np.broadcast_to([0.0, 0.0, 1.0], (len(x), 3)))
    unit_l = l_world[0] / np.linalg.norm(l_world[0])
    cone = np.degrees(np.arccos(axis @ unit_l))
    np.testing.assert_allclose(cone, cone[0], atol=1e-6)
    caption = PRESETS["symmetric_top"].caption
    assert f"cone of {cone[0]:.0f}°" in caption
    period = float(re.search(r"once every ([\d.]+) s", caption).group(1))
    rate = np.linalg.norm(l_world[0]) / inertia[0]
    assert period == pytest.approx(2 * np.pi / rate, abs=0.006)
    # the axis's direction about L turns at the precession rate
    perp = axis - np.outer(axis @ unit_l, unit_l)
    angle = np.unwrap(np.arctan2(np.cross(perp[0], perp) @ unit_l, perp @ perp[0]))
    np.testing.assert_allclose(angle, rate * r.times, atol=1e-6)


def test_spin_up_is_linear_in_time() -> None:
    r = run("spin_up", 5.0)
    b = r.scenario.bodies[0]
    izz = b.Mass * b.InertiaRadi[2] ** 2
    np.testing.assert_allclose(r.states[:, 0, 12], b.Moment[2] * r.times / izz, rtol=1e-9)
    np.testing.assert_allclose(r.states[:, 0, 10:12], 0.0, atol=1e-12)
    assert np.max(np.abs(r.states[:, 0, 0:3])) < 1e-3
    assert f"{b.Moment[2] / izz:.2f} rad/s every second" in PRESETS["spin_up"].caption


def test_coriolis_full_goes_straight_fhsim_circles() -> None:
    full = run("coriolis_full")
    pos = full.states[:, 0, 0:3]
    np.testing.assert_allclose(pos, np.outer(full.times, [5.0, 0.0, 0.0]), atol=1e-9)
    assert full.states[:, 0, 3].min() < -0.99  # while the hull spins round
    fhsim = run("coriolis_fhsim")
    pos = fhsim.states[:, 0, 0:3]
    np.testing.assert_allclose(np.hypot(pos[:, 0], pos[:, 1] - 2.5), 2.5, atol=1e-9)
    np.testing.assert_allclose(pos[:, 2], 0.0, atol=1e-12)
    k = int(np.argmin(np.abs(fhsim.times - math.pi)))
    assert np.linalg.norm(pos[k]) < 5.0 * abs(fhsim.times[k] - math.pi) + 1e-6  # once per π s
    assert "2.5 m" in PRESETS["coriolis_fhsim"].caption


def test_offset_cg_turns_about_its_cg() -> None:
    r = run("offset_cg")
    b = r.scenario.bodies[0]
    x = r.states[:, 0]
    assert np.linalg.norm(b.CGOffset) == 0.5
    cg = x[:, 0:3] + rotate(x[:, 3:7], np.broadcast_to(b.CGOffset, (len(x), 3)))
    np.testing.assert_allclose(cg, np.outer(r.times, [0.0, 1.0, 0.0]) + cg[0], atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(x[:, 0:3] - cg, axis=1), 0.5, atol=1e-12)
    assert np.ptp(x[:, 0]) == pytest.approx(1.0, abs=1e-3)  # Pos swings ±0.5 m around the CG
