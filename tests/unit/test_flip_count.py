"""The flip count the page shows, computed headless: sixdof.teaching.count_flips."""

from __future__ import annotations

import numpy as np

import sixdof
from sixdof.scenario.presets import PRESETS
from sixdof.teaching import FLIP_LEVEL, count_flips


def test_the_tennis_racket_flips_twice_in_ten_seconds_and_never_in_fhsim() -> None:
    preset = PRESETS["tennis_racket"]
    axis = preset.flip_axis
    assert axis == 0
    w0 = preset.scenario().bodies[0].AngVel[axis]
    full = sixdof.run("tennis_racket", t_end=10.0).arrays()["T.AngVel"][:, axis]
    assert count_flips(full, w0) == 2
    # each flip really takes AngVel x to about −ω₀ and back
    assert full.min() < -0.95 * w0 and full[-1] > 0.95 * w0
    fhsim = sixdof.run("tennis_racket", t_end=10.0, model="fhsim").arrays()["T.AngVel"][:, axis]
    assert count_flips(fhsim, w0) == 0


def test_a_wobble_about_zero_is_not_a_flip_and_sampling_does_not_matter() -> None:
    t = np.linspace(0.0, 10.0, 10_001)
    # a sign change every 2.5 s of a ±4 rad/s component, with a ±0.3 wobble on top
    component = 4.0 * np.cos(2 * np.pi * t / 5.0) + 0.3 * np.sin(40 * t)
    assert count_flips(component, 4.0) == 4
    assert count_flips(component[::17], 4.0) == 4  # the page samples at its frame rate
    # wobbling across zero without reaching −½ω₀ is no flip
    assert count_flips(0.4 * FLIP_LEVEL * 4.0 * np.sin(7 * t) + 0.1, 4.0) == 0
    assert count_flips([1.0, -1.0], 0.0) == 0
