"""The notebook view (sixdof.notebook): drawing rules, frames, controls, runs, the example.

No browser: the pythreejs/ipywidgets models are checked in Python, where their traits are
exactly what the front end receives.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pythreejs")
pytest.importorskip("ipywidgets")

import pythreejs as p3
from support.notebook_runs import status_while_running

from sixdof.dynamics.quaternion import from_euler, to_rotmat
from sixdof.notebook import BodyView, VisualWarning, as_scenario, load_catalogue
from sixdof.notebook.frames import (
    NED_ROOT_QUATERNION,
    NED_TO_THREE,
    quat_from_three,
    quat_to_three,
    rotmat_of_three_quat,
    vec_to_three,
    world_pose,
)
from sixdof.notebook.meshfiles import MeshFileError, read_mesh
from sixdof.notebook.plot import ChannelPlot, nice_ticks, svg_line_plot
from sixdof.scenario import Scenario, save_scenario_file

ROOT = Path(__file__).resolve().parents[2]
MESHES = ROOT / "meshes"
MATERIALS = json.loads((MESHES / "materials.json").read_text())


def body_scenario(**fields: object) -> dict:
    body = {"Name": "B", "Gravity": 0.0, **fields}
    return {"name": "t", "bodies": [body], "integration": {"method": "rk4", "stepsize": 1e-3}}


# ---------------------------------------------------------------------- frames


def test_ned_to_three_matches_the_page() -> None:
    """The page's Matrix4 in frontend/src/core/frames.js is the same C (rows)."""
    js = (ROOT / "frontend" / "src" / "core" / "frames.js").read_text()
    body = re.search(r"NED_TO_THREE = new Matrix4\(\)\.set\(([^)]*)\)", js)
    assert body, "frontend/src/core/frames.js no longer defines NED_TO_THREE as Matrix4().set(...)"
    m = np.array([float(x) for x in body.group(1).replace("\n", " ").split(",") if x.strip()])
    np.testing.assert_array_equal(m.reshape(4, 4)[:3, :3], NED_TO_THREE)


def test_mapping_is_a_rotation_with_down_down_on_screen() -> None:
    np.testing.assert_allclose(NED_TO_THREE @ NED_TO_THREE.T, np.eye(3), atol=1e-15)
    assert np.linalg.det(NED_TO_THREE) == pytest.approx(1.0)
    np.testing.assert_allclose(vec_to_three([0, 0, 1]), [0, -1, 0])  # NED down = three.js −y
    np.testing.assert_allclose(vec_to_three([1, 0, 0]), [1, 0, 0])  # north
    np.testing.assert_allclose(vec_to_three([0, 1, 0]), [0, 0, 1])  # east
    np.testing.assert_allclose(rotmat_of_three_quat(NED_ROOT_QUATERNION), NED_TO_THREE, atol=1e-15)


def test_world_pose_is_c_p_and_c_r() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        p = rng.normal(size=3) * 5
        pos_w, rot_w = world_pose(p, q)
        np.testing.assert_allclose(pos_w, NED_TO_THREE @ p, atol=1e-12)
        np.testing.assert_allclose(rot_w, NED_TO_THREE @ to_rotmat(q), atol=1e-12)
        np.testing.assert_allclose(quat_from_three(quat_to_three(q)), q, atol=1e-15)
    with pytest.raises(ValueError, match="Quater"):
        quat_to_three([0, 0, 0, 0])


# ---------------------------------------------------------------------- meshes, materials


@pytest.mark.parametrize(
    "entry", json.loads((MESHES / "meshes.json").read_text()), ids=lambda e: e["name"]
)
def test_mesh_files_read_as_catalogued(entry: dict) -> None:
    """Bounding box and enclosed volume (divergence theorem) of what we read = meshes.json."""
    data = read_mesh(MESHES / entry["file"])
    lo, hi = data.bounds()
    np.testing.assert_allclose(hi - lo, entry["size"], atol=2e-4)
    np.testing.assert_allclose(lo, entry["bbox_min"], atol=2e-4)
    p = data.positions.astype(float)
    tri = p[data.index].reshape(-1, 3, 3) if data.index is not None else p.reshape(-1, 3, 3)
    volume = np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6
    assert volume == pytest.approx(entry["volume"], rel=2e-3)  # also: outward winding kept
    np.testing.assert_allclose(np.linalg.norm(data.normals, axis=1), 1.0, atol=1e-5)


def test_bad_mesh_files_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 9\n")
    with pytest.raises(MeshFileError, match=r"broken\.obj.*does not exist"):
        read_mesh(bad)
    with pytest.raises(MeshFileError, match="unsupported mesh format"):
        read_mesh(tmp_path / "x.mesh")


def test_catalogue_resolves_names_like_the_page() -> None:
    cat = load_catalogue(MESHES)
    assert cat.resolve_mesh("fhSphere.mesh").name == "sphere"
    assert cat.resolve_mesh("some/folder/FHBOX.MESH").name == "box"
    assert cat.resolve_mesh("t_handle.obj").name == "t_handle"
    entry, warning = cat.lookup_mesh("teapot.mesh")
    assert entry.name == "sphere" and "teapot.mesh" in warning
    red = MATERIALS["Simple/Red"]
    look, warning = cat.material("simple/RED")
    assert (look.color, look.metalness, warning) == (red["color"], red["metalness"], None)
    assert cat.material("tomato")[0].color == "tomato"
    assert cat.material("#ff8800")[0].color == "#ff8800"
    look, warning = cat.material("Nope/Nothing")
    assert look.color == "#8a9099" and "Nope/Nothing" in warning


def test_builtin_table_without_json(tmp_path: Path) -> None:
    cat = load_catalogue(tmp_path)
    assert cat.builtin and cat.resolve_mesh("fhCylinder.mesh").name == "cylinder"
    assert cat.material("Simple/Blue")[0].color == MATERIALS["Simple/Blue"]["color"]


# ---------------------------------------------------------------------- the widget tree


def test_mesh_scale_offset_and_colour_follow_the_parameters() -> None:
    view = BodyView(
        body_scenario(
            Mesh="fhBox.mesh",
            MeshScale=(2.0, 1.0, 0.5),
            Size=(0.5, 0.4, 0.6),
            MeshOrigin=(0.1, -0.2, 0.0),
            CGOffset=(0.2, 0.0, 0.05),
            Material="Simple/Green",
        )
    )
    d = view.drawings[0]
    assert d.group in view.stage.ned.children and d.holder in d.group.children
    np.testing.assert_allclose(d.holder.scale, (1.0, 0.4, 0.3))  # MeshScale × Size
    np.testing.assert_allclose(d.holder.position, (0.3, -0.2, 0.05))  # CGOffset + MeshOrigin
    np.testing.assert_allclose(d.triad.position, (0.2, 0.0, 0.05))  # body axes at the CG
    assert d.mesh.material.color == MATERIALS["Simple/Green"]["color"]
    assert isinstance(d.mesh.geometry, p3.BoxBufferGeometry)
    assert (d.mesh.geometry.width, d.mesh.geometry.height, d.mesh.geometry.depth) == (1, 1, 1)
    np.testing.assert_allclose(view.stage.ned.quaternion, NED_ROOT_QUATERNION)

    # changed while it runs: the drawing follows the simulation
    view.sim.set_params(
        "B",
        MeshScale=(1.0, 1.0, 1.0),
        MeshOrigin=(0.0, 0.0, 0.0),
        Material="tomato",
        Mesh="t_handle",
    )
    view.refresh()
    np.testing.assert_allclose(d.holder.scale, (0.5, 0.4, 0.6))
    np.testing.assert_allclose(d.holder.position, (0.2, 0.0, 0.05))
    assert d.mesh.material.color == "tomato"
    positions = np.asarray(d.mesh.geometry.attributes["position"].array)
    np.testing.assert_allclose(np.ptp(positions, axis=0), (0.62, 1.0, 0.12), atol=1e-3)


def test_cylinder_axis_along_body_z() -> None:
    view = BodyView(body_scenario(Mesh="cylinder", Size=(0.4, 0.4, 2.0)))
    d = view.drawings[0]
    # three.js' cylinder stands along its y; the mesh's rotation must put that on body z
    axis = rotmat_of_three_quat(d.mesh.quaternion) @ [0.0, 1.0, 0.0]
    np.testing.assert_allclose(np.abs(axis), [0, 0, 1], atol=1e-12)
    assert d.mesh.geometry.height == pytest.approx(1.0)
    np.testing.assert_allclose(d.holder.scale, (0.4, 0.4, 2.0))


def test_unknown_names_warn_and_fall_back() -> None:
    with pytest.warns(VisualWarning) as caught:
        view = BodyView(body_scenario(Mesh="teapot.mesh", Material="NoSuch/Material"))
    assert len(caught) == 2
    d = view.drawings[0]
    assert isinstance(d.mesh.geometry, p3.SphereBufferGeometry)
    assert d.mesh.material.color == "#8a9099"
    assert "teapot.mesh" in view.status.value and "NoSuch/Material" in view.status.value


def test_pose_after_stepping_equals_the_simulation() -> None:
    q0 = from_euler(0.3, -0.4, 1.1)
    view = BodyView(
        body_scenario(
            Pos=(1.0, -2.0, 0.5),
            Quater=tuple(q0),
            LocalVel=(1.5, 0.2, -0.3),
            AngVel=(0.4, 1.2, -0.7),
        )
    )
    view.step(700)
    x = view.sim.state_array()[0]
    d = view.drawings[0]
    assert view.sim.t == pytest.approx(0.7)
    assert np.linalg.norm(x[0:3] - (1.0, -2.0, 0.5)) > 0.5  # it did move
    np.testing.assert_allclose(d.group.position, x[0:3], atol=1e-12)
    np.testing.assert_allclose(d.group.quaternion, quat_to_three(x[3:7]), atol=1e-12)
    # what three.js will draw: root (C) ∘ group = C p and C R(q)
    root = rotmat_of_three_quat(view.stage.ned.quaternion)
    np.testing.assert_allclose(
        root @ np.asarray(d.group.position), NED_TO_THREE @ x[0:3], atol=1e-12
    )
    np.testing.assert_allclose(
        root @ rotmat_of_three_quat(d.group.quaternion),
        NED_TO_THREE @ to_rotmat(x[3:7] / np.linalg.norm(x[3:7])),
        atol=1e-12,
    )


# ---------------------------------------------------------------------- controls


def test_controls_act_on_the_simulation() -> None:
    view = BodyView(body_scenario(Mass=2.0, InertiaRadi=(0.3, 0.4, 0.5)))
    c, sim = view.controls, view.sim
    for w, v in zip(c.force, (1.0, -2.0, 3.0), strict=True):
        w.value = v
    for w, v in zip(c.moment, (0.0, 0.5, 0.0), strict=True):
        w.value = v
    np.testing.assert_allclose(sim.applied_inputs()[0], (1, -2, 3, 0, 0.5, 0))
    assert sim.scenario.bodies[0].Force == (1.0, -2.0, 3.0)
    c.mass.value = 5.0
    c.radii[2].value = 0.8
    c.model.value = "fhsim"
    spec = sim.scenario.bodies[0]
    assert (spec.Mass, spec.InertiaRadi, spec.model) == (5.0, (0.3, 0.4, 0.8), "fhsim")
    c.time_scale.value = 0.25
    assert sim.time_scale == pytest.approx(0.25)
    c.frame.value = "body"
    assert sim.inputs()["B"]["constant"]["frame"] == "body"
    # F = m a along body x: with Force (1, -2, 3) N in body axes, LocalVel grows by F/m t
    view.step(1000)
    np.testing.assert_allclose(
        sim.state_array()[0, 7:10], np.array([1, -2, 3]) / 5.0 * 1.0, rtol=0, atol=2e-2
    )


def test_refused_values_change_nothing_and_say_why() -> None:
    view = BodyView(body_scenario(InertiaRadi=(0.3, 0.4, 0.5)))
    c, sim = view.controls, view.sim
    version = sim.version
    c.radii[0].value = -1.0
    assert sim.scenario.bodies[0].InertiaRadi == (0.3, 0.4, 0.5)
    assert sim.version == version
    assert "InertiaRadi" in c.message.value and "1000" in c.message.value  # field and range
    assert c.radii[0].value == pytest.approx(0.3)  # the widget shows what runs
    c.force[0].value = 1e9
    assert "Force" in c.message.value and "1e+07" in c.message.value
    assert c.force[0].value == 0.0 and sim.applied_inputs()[0, 0] == 0.0


# ---------------------------------------------------------------------- runs


def test_recorded_run_builds_keyframes_of_the_simulation() -> None:
    view = BodyView("coriolis_fhsim")
    rec = view.run(1.0, realtime=False, fps=20)
    assert view.sim.t == pytest.approx(1.0)
    assert rec.times[0] == 0.0 and rec.times[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(np.diff(rec.times), 0.05, atol=1e-9)
    clip = view.action.clip
    assert clip.duration == pytest.approx(1.0)
    tracks = {t.name: t for t in clip.tracks}
    pos = np.asarray(tracks["body0.position"].values).reshape(-1, 3)
    quat = np.asarray(tracks["body0.quaternion"].values).reshape(-1, 4)
    np.testing.assert_allclose(pos, rec.pos[:, 0], atol=1e-5)
    np.testing.assert_allclose(quat, quat_to_three(rec.quat[:, 0]), atol=1e-6)
    # fhsim circles with radius v/ω = 2.5 m about (0, 2.5, 0): every sample on that circle
    r = np.linalg.norm(rec.pos[:, 0, :2] - [0.0, 2.5], axis=1)
    np.testing.assert_allclose(r, 2.5, atol=1e-6)
    x = view.sim.state_array()[0]
    np.testing.assert_allclose(view.drawings[0].group.position, x[0:3], atol=1e-12)
    view.seek(0.5)
    np.testing.assert_allclose(view.drawings[0].group.position, rec.pos[10, 0], atol=1e-12)
    times, series = view.plot.data()
    assert times.size == rec.times.size
    np.testing.assert_allclose(series["AngVel r"], 2.0, atol=1e-12)


def test_live_run_in_a_thread_without_an_event_loop() -> None:
    view = BodyView(body_scenario(LocalVel=(1.0, 0.0, 0.0)))
    loop = view.run(0.2)
    assert loop.mode == "thread"
    assert loop.join(timeout=5.0)
    t = view.sim.t
    assert 0.2 - 1e-9 <= t <= 0.35 and not view.sim.running
    np.testing.assert_allclose(view.drawings[0].group.position, (t, 0.0, 0.0), atol=1e-9)


def test_live_run_as_a_task_and_controls_act_while_it_runs() -> None:
    async def scenario() -> BodyView:
        view = BodyView(body_scenario(Mass=2.0))
        loop = view.run(0.3)
        assert loop.mode == "task"
        await asyncio.sleep(0.1)  # the loop keeps stepping while this coroutine waits
        assert view.sim.t > 0.0 and view.sim.running
        view.controls.force[2].value = -4.0  # 2 m/s² up (NED z down)
        await loop.task
        return view

    view = asyncio.run(scenario())
    sim = view.sim
    vz = sim.state_array()[0, 9]
    assert not sim.running and 0.3 - 1e-9 <= sim.t <= 0.45
    # the force acted for the time after it was set: between 0.1 s and the whole run
    assert -2.0 * sim.t < vz < -2.0 * 0.05
    np.testing.assert_allclose(view.drawings[0].group.position, sim.state_array()[0, 0:3])


def test_stop_ends_a_live_run_and_reset_returns_to_start() -> None:
    view = BodyView(body_scenario(AngVel=(0.0, 0.0, 1.0)))
    loop = view.run(None)
    view.stop()
    assert not loop.active and not view.sim.running
    view.reset()
    assert view.sim.t == 0.0
    np.testing.assert_allclose(view.drawings[0].group.quaternion, (0, 0, 0, 1))
    with pytest.raises(ValueError, match="duration"):
        view.run(-1.0)
    with pytest.raises(ValueError, match="duration"):
        view.run(None, realtime=False)


# ---------------------------------------------------------------------- sources, plot


def test_scenario_sources(tmp_path: Path) -> None:
    assert as_scenario("tennis_racket").bodies[0].Mesh == "t_handle"
    spec = body_scenario(Mass=3.0)
    assert as_scenario(spec).bodies[0].Mass == 3.0
    scenario = Scenario.model_validate(spec)
    for suffix in (".json", ".xml"):
        path = tmp_path / f"s{suffix}"
        save_scenario_file(scenario, path)
        assert as_scenario(path).bodies[0].Mass == 3.0
        assert as_scenario(str(path)).bodies[0].Mass == 3.0
    with pytest.raises(ValueError, match="tennis_racket"):
        as_scenario("no_such_preset")
    with pytest.raises(ValueError, match="Mass"):
        as_scenario(body_scenario(Mass=-1.0))


def test_svg_plot_maps_data_linearly() -> None:
    t = np.linspace(0.0, 2.0, 21)
    svg = svg_line_plot(t, {"a": 3 * t - 1, "b": np.full_like(t, np.nan)}, width=300, height=200)
    pts = re.search(r'data-label="a"[^>]*points="([^"]*)"', svg).group(1)
    xy = np.array([p.split(",") for p in pts.split()], dtype=float)
    assert xy.shape == (21, 2)
    # a straight line stays straight: constant slope in pixels, y up on screen
    slope = np.diff(xy[:, 1]) / np.diff(xy[:, 0])
    np.testing.assert_allclose(slope, slope[0], atol=0.02)
    assert slope[0] < 0 and xy[0, 0] == pytest.approx(52.0) and xy[-1, 0] == pytest.approx(290)
    assert 'data-label="b"' in svg and 'points=""' in svg  # no data, no line, no crash
    assert nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(-3.0, 7.0, 5) == [-2.0, 0.0, 2.0, 4.0, 6.0]


def test_plot_channels_follow_the_simulation() -> None:
    view = BodyView(body_scenario(AngVel=(0.5, 0.0, 0.0)), channels=("AngVel", "TotalEnergy"))
    for _ in range(5):
        view.step(100)
    times, series = view.plot.data()
    np.testing.assert_allclose(times, np.arange(6) * 0.1, atol=1e-12)
    np.testing.assert_allclose(series["AngVel p"], 0.5, atol=1e-12)
    np.testing.assert_allclose(series["TotalEnergy"], 0.5 * 0.25 * 0.5**2, rtol=1e-9)
    with pytest.raises(ValueError, match="AngVel"):
        ChannelPlot(("Speed",))
    view.controls.channels.value = ("Pos",)
    assert view.plot.channels == ("Pos",) and b"Pos x" in bytes(view.plot.widget.value)


def test_simulation_layers_do_not_import_the_notebook_deps() -> None:
    code = (
        "import sys, sixdof.scenario, sixdof.simulation\n"
        "print([m for m in ('pythreejs', 'ipywidgets') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------- the example notebook


def test_example_notebook_runs_top_to_bottom() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(ROOT / "examples" / "tennis_racket.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(ROOT / "examples")}},
    )
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    flips = re.search(r"p changes sign at t = \[([^\]]*)\]", text)
    assert flips and 1 <= len(flips.group(1).split()) <= 3
    assert "largest change of AngVel in body axes: 0.0 rad/s" in text


# ---------------------------------------------------------------------- after the user trials


def test_the_camera_is_aimed_at_what_it_frames() -> None:
    """Placed and aimed: its −z axis points at the orbit target from the first display."""
    view = BodyView(body_scenario(Pos=(2.0, -1.0, 0.5)))
    cam = view.stage.camera
    x, y, z, w = cam.quaternion
    looking = to_rotmat(np.array([w, x, y, z])) @ np.array([0.0, 0.0, -1.0])
    towards = np.array(view.stage.controls.target) - np.array(cam.position)
    assert looking @ towards / np.linalg.norm(towards) == pytest.approx(1.0, abs=1e-12)
    right = to_rotmat(np.array([w, x, y, z])) @ np.array([1.0, 0.0, 0.0])
    assert abs(right[1]) < 1e-12  # level: the horizon stays horizontal


def test_view_and_panel_wrap_instead_of_overlapping() -> None:
    view = BodyView(body_scenario())
    layout = view.widget.layout
    assert (layout.display, layout.flex_flow) == ("flex", "row wrap")
    assert all(child.layout.flex == "0 0 auto" for child in view.widget.children)


def test_pause_is_released_when_a_live_run_ends_and_the_status_says_the_time_scale() -> None:
    """The pacing itself (the real-time factor it reaches) is a wall-clock figure:
    tests/timing/test_notebook_timing.py measures it."""
    view = BodyView(body_scenario())
    view.set_time_scale(0.11)
    seen = asyncio.run(status_while_running(view))
    assert "time scale 0.11" in seen
    assert not view.live and not view.sim.running
    assert view.controls.pause_button.value is False  # released, not left pressed
    assert "paused" in view.status.value


def test_the_slider_and_the_plot_cursor_follow_a_playback() -> None:
    view = BodyView(body_scenario(AngVel=(0.0, 0.0, 1.0)))
    view.set_time_scale(2.0)  # 1 s of simulation plays in 0.5 s
    seen: list[float] = []
    view.scrub.observe(lambda change: seen.append(change["new"]), names="value")
    rec = view.run(1.0, realtime=False)
    follower = view._follower
    assert follower is not None and follower.join(timeout=5.0)
    assert view.scrub.value == pytest.approx(float(rec.times[-1]))
    assert len(seen) >= 4 and seen == sorted(seen) and seen[0] < 0.5  # it moved along
    assert view.plot.cursor == pytest.approx(float(rec.times[-1]))
    assert 'class="cursor"' in view.plot.svg()


def test_the_legend_is_above_the_curves() -> None:
    svg = svg_line_plot([0.0, 1.0], {"p": [0.0, 1.0], "q": [1.0, 0.0]}, height=200)
    legend_y = [float(y) for y in re.findall(r'class="legend" x="[0-9.]+" y="([0-9.]+)"', svg)]
    plot_top = 22  # the plot area's top edge
    assert len(legend_y) == 2 and max(legend_y) < plot_top


def test_live_shows_a_running_servers_page_for_a_room() -> None:
    from sixdof.fields import FieldError
    from sixdof.notebook import live

    frame = live(room="physics1", url="http://127.0.0.1:8123/", token="t k")
    assert frame.src == "http://127.0.0.1:8123/?room=physics1&token=t+k"
    assert "iframe" in frame._repr_html_() and 'height="640"' in frame._repr_html_()
    with pytest.raises(FieldError, match="room: must be 1 to 64"):
        live(room="no spaces")
