"""The stability view (dynamics/stability.py, `sixdof.stability`) against the closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sixdof
from sixdof.dynamics import quaternion as quat
from sixdof.dynamics.stability import axis_stability
from sixdof.scenario.presets import preset_scenario

RACKET_RADII = preset_scenario("tennis_racket").bodies[0].InertiaRadi


def test_intermediate_axis_has_the_real_pair_of_the_closed_form() -> None:
    result = sixdof.stability("tennis_racket", rate=4.0)["T"]
    i1, i2, i3 = sorted(np.square(RACKET_RADII))  # mass 1
    expected = 4.0 * math.sqrt((i2 - i1) * (i3 - i2) / (i1 * i3))
    assert expected == pytest.approx(2.72873, abs=1e-5)  # the number
    smallest, middle, largest = result
    assert [a.kind for a in result] == ["oscillating", "unstable", "oscillating"]
    assert middle.axis == (1.0, 0.0, 0.0)  # body x: the racket's intermediate axis
    reals = sorted(z[0] for z in middle.eigenvalues)
    assert reals[1] == pytest.approx(expected, rel=1e-9)
    assert reals[0] == pytest.approx(-expected, rel=1e-9)
    assert all(z[1] == 0.0 for z in middle.eigenvalues)
    assert middle.doubling_time == pytest.approx(math.log(2.0) / expected, rel=1e-9)
    for axis, (j, k) in ((smallest, (i2, i3)), (largest, (i1, i2))):
        i = axis.moment
        freq = 4.0 * math.sqrt((i - j) * (i - k) / (j * k))  # (I_i − I_j)(I_i − I_k) > 0
        assert all(abs(z[0]) <= 1e-12 for z in axis.eigenvalues)  # imaginary
        assert sorted(z[1] for z in axis.eigenvalues)[1] == pytest.approx(freq, rel=1e-9)
        assert axis.period == pytest.approx(2 * math.pi / freq, rel=1e-9)


def test_full_tensor_axes_and_tuned_inertia() -> None:
    """A rotated tensor: the axes are its eigenvectors and the rates follow the moments; a
    retuned moment that becomes the largest turns the unstable axis into a stable one."""
    rot = quat.to_rotmat(quat.from_euler(0.3, -0.2, 0.9))
    inertia = rot @ np.diag([1.0, 2.0, 3.0]) @ rot.T
    result = axis_stability(1.0, inertia, 2.0)
    assert [a.kind for a in result] == ["oscillating", "unstable", "oscillating"]
    np.testing.assert_allclose(np.abs(np.array(result[1].axis) @ rot[:, 1]), 1.0, atol=1e-12)
    assert result[1].growth == pytest.approx(2.0 * math.sqrt(1.0 * 1.0 / 3.0), rel=1e-9)
    tuned = axis_stability(1.0, np.diag([1.0, 4.0, 3.0]), 2.0)  # y now the largest
    assert [a.kind for a in tuned] == ["oscillating", "unstable", "oscillating"]
    assert tuned[1].axis[2] == pytest.approx(1.0) and tuned[2].axis[1] == pytest.approx(1.0)


def test_fhsim_and_a_sphere_are_neutral() -> None:
    assert {a.kind for a in axis_stability(1.0, np.diag([1.0, 2.0, 3.0]), 4.0, "fhsim")} == {
        "neutral"
    }
    assert {a.kind for a in axis_stability(1.0, np.eye(3), 4.0)} == {"neutral"}
