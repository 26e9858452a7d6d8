"""The Stretch it preset (issue 42): a bar weighed by its shape, whose flips follow its Size."""

from __future__ import annotations

import numpy as np
import pytest
from presetkit import V, run

from sixdof.headless import RunResult, run_scenario
from sixdof.scenario import Scenario
from sixdof.scenario.presets import PRESETS


def flip_intervals(r: RunResult) -> np.ndarray:
    """Times between sign changes of AngVel x, s."""
    wx = r.states[:, 0, 10]
    return np.diff(r.times[1:][np.sign(wx[1:]) != np.sign(wx[:-1])])


def test_stretch_it_is_weighed_by_its_shape_and_flips_as_captioned() -> None:
    s = PRESETS["stretch_it"].scenario()
    b, v = s.bodies[0], V("stretch_it")
    a, w, h = b.Size
    m = b.Density * a * w * h
    assert b.InertiaFrom == "solid" and b.Mass == pytest.approx(m, rel=1e-12)
    closed = [m * (w * w + h * h) / 12, m * (a * a + h * h) / 12, m * (a * a + w * w) / 12]
    np.testing.assert_allclose(b.Inertia, [*closed, 0, 0, 0], rtol=1e-12, atol=1e-18)
    assert closed[1] < closed[0] < closed[2]  # x is the middle axis
    np.testing.assert_allclose(flip_intervals(run("stretch_it")), v["flip"], rtol=2e-3)
    # stretched to twice its length: a new shape, weighed again (the live path: test_stretch_it)
    data = s.model_dump()
    for key in ("Mass", "Inertia", "CGOffset", "MeshOrigin"):
        del data["bodies"][0][key]
    data["bodies"][0]["Size"] = [a, v["long_y"], h]
    longer = run_scenario(Scenario.model_validate(data))
    assert longer.scenario.bodies[0].Mass == pytest.approx(2 * m, rel=1e-12)
    np.testing.assert_allclose(flip_intervals(longer), v["long_flip"], rtol=2e-3)
    assert v["long_flip"] < 0.6 * v["flip"]
    # squeezed below its width: x is the axis of least inertia and the bar spins on
    data["bodies"][0]["Size"] = [a, 0.9 * a, h]
    squeezed = run_scenario(Scenario.model_validate(data))
    assert len(flip_intervals(squeezed)) == 0 and squeezed.states[:, 0, 10].min() > 3.9
