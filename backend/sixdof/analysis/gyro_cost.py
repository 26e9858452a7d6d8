"""What a fit of a recording costs, known before it runs; a fit over MAX_FIT_SECONDS is refused.

A fit (gyro.fit) integrates the Euler equations over the whole record again and again: least
squares' residuals and their finite-difference Jacobian (five more integrations per
iteration), from a few starts, MAX_EVALUATIONS integrations in all at most. One integration
takes RK4 steps of at most `step_for(the fastest rate recorded)` between every two samples
(gyro_model.step_counts), and each costs least squares' linear algebra over the samples.
Predicting the flip period integrates up to FLIP_SPANS record lengths more, on grids of at
most FLIP_POINTS points; the server's comparison runs the room's body twice over the record
with the headless runner. Each is counted in CPU seconds of the development machine:
`fit_seconds` is an upper bound of what the fit takes there, whatever the recording holds
(a recording the equations fit well takes a tenth of it or less).

1e5 rad/s over 120 s is 1.9e8 RK4 steps per integration: up to ~2,300 s of computing for a
file of 943 bytes, refused here before anything runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .gyro_file import GyroData, GyroFileError
from .gyro_model import step_for

#: Integrations of the record that a fit makes at most, over all its starts (each start's
#: least squares gets at most what is left: `fit` counts them).
MAX_EVALUATIONS = 600
#: Predicting the flip period integrates spans of 1, 4, 16 and 64 record lengths at most ...
FLIP_SPANS = 85.0
#: ... on grids of at most this many points each (four of them).
FLIP_POINTS = 4 * 20_001
#: The headless runner's step for the comparison (gyro_body.simulate_body) and its outputs.
BODY_STEP = 1e-3
BODY_OUTPUT = 0.01
#: CPU seconds on the development machine (2 cores, loaded: measured 15-20 ns, 0.14-0.57 µs,
#: 0.17-0.35 µs and ~0.5 µs), each rounded up: an RK4 step of the compiled Euler equations;
#: a sample in one integration of least squares (its residuals, Jacobian and linear algebra);
#: a step of the headless runner's one body; a sample in the Python loops that find flips.
STEP_SECONDS = 2e-8
SAMPLE_SECONDS = 6e-7
BODY_STEP_SECONDS = 5e-7
LOOP_SECONDS = 1e-6
#: Most computing a fit may be estimated at, s: at 100 Hz, rates up to ~4,000 rad/s for a 10 s
#: record and ~190 rad/s for the longest (120 s); at 500 Hz, ~25,000 samples (50 s) of a slow
#: one. A thrown phone (a few seconds at 100-500 Hz, under 35 rad/s) is estimated at 0.2-1 s.
MAX_FIT_SECONDS = 10.0


class FitTooCostly(GyroFileError):
    """A recording whose fit would take more than MAX_FIT_SECONDS: the message says how long,
    why (samples, duration, rate) and the largest fit accepted."""


@dataclass(frozen=True)
class FitCost:
    """A fit's work, counted before it runs."""

    samples: int
    duration: float  # s
    rate: float  # the fastest |ω| recorded, rad/s
    step: float  # the RK4 step of every integration, s
    steps: float  # RK4 steps of one integration over the record
    seconds: float  # most computing the fit takes on the development machine, s

    def to_json(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "duration": self.duration,
            "rate": self.rate,
            "step": self.step,
            "steps": self.steps,
            "evaluations": MAX_EVALUATIONS,
            "seconds": self.seconds,
        }


def fit_seconds(samples: int, duration: float, rate: float, steps: float | None = None) -> float:
    """The most CPU seconds a fit of `samples` samples over `duration` s with rates up to
    `rate` rad/s takes on the development machine: gyro.fit's integrations, the flip
    prediction, and the server's two comparisons. `steps`: RK4 steps of one integration
    (default: their bound for evenly spread samples, samples − 1 + duration / step)."""
    h = step_for(rate)
    if not h > 0.0:  # rates read_gyro_text refuses (an infinite |ω|)
        return math.inf
    if steps is None:
        steps = max(0, samples - 1) + duration / h
    fit = MAX_EVALUATIONS * (steps * STEP_SECONDS + samples * SAMPLE_SECONDS)
    flips = (FLIP_SPANS * duration / h + FLIP_POINTS) * STEP_SECONDS
    loops = (samples + FLIP_POINTS) * LOOP_SECONDS
    span = max(duration, BODY_OUTPUT)  # the comparison runs one output step at least
    body = 2.0 * (span / min(BODY_STEP, h) + span / BODY_OUTPUT + 1.0) * BODY_STEP_SECONDS
    return fit + flips + loops + body


def fit_cost(data: GyroData) -> FitCost:
    """The cost of fitting `data` (the fastest rate sets every integration's step). Counted
    in floating point: rates beyond read_gyro_text's range cost infinitely much, never a
    wrapped-around integer."""
    with np.errstate(all="ignore"):
        rate = float(np.max(np.linalg.norm(data.omega, axis=1)))
        step = step_for(rate)
        steps = float(np.sum(np.maximum(1.0, np.ceil(np.diff(data.t) / step))))
    duration = float(data.t[-1])
    seconds = fit_seconds(len(data.t), duration, rate, steps)
    return FitCost(len(data.t), duration, rate, step, steps, seconds)


def check_cost(data: GyroData, *, name: str = "the file") -> FitCost:
    """`fit_cost(data)`, or FitTooCostly when it is over MAX_FIT_SECONDS."""
    cost = fit_cost(data)
    if cost.seconds <= MAX_FIT_SECONDS:  # NaN is not: refused
        return cost
    n, duration, rate = cost.samples, cost.duration, cost.rate
    frequency = max(0.0, n - 1) / duration
    # the same recording cut shorter (its sampling kept), and the whole of it spinning slower
    shorter = _largest(lambda d: fit_seconds(max(2, round(frequency * d) + 1), d, rate), duration)
    slower = _largest(lambda r: fit_seconds(n, duration, r), rate)
    largest = f"at {rate:.3g} rad/s, a record of at most {shorter:.3g} s (cut it to the flight)"
    if fit_seconds(n, duration, 0.0) <= MAX_FIT_SECONDS:
        largest += f"; over {duration:.4g} s, rates of at most {slower:.3g} rad/s"
    raise FitTooCostly(
        f"{name}: {n:,} samples over {duration:.4g} s at up to {rate:.3g} rad/s: its fit "
        f"would take up to {cost.seconds:.3g} s of computing ({cost.steps:,.0f} RK4 steps per "
        f"integration, up to {MAX_EVALUATIONS} integrations); at most {MAX_FIT_SECONDS:g} s "
        f"are fitted. The largest fit accepted: {largest}"
    )


def _largest(seconds: Any, upper: float) -> float:
    """The largest x in [0, upper] with seconds(x) ≤ MAX_FIT_SECONDS (seconds grows with x),
    by bisection; 0 when none."""
    low, high = 0.0, min(upper, 1e9)
    for _ in range(60):
        mid = 0.5 * (low + high)
        if seconds(mid) <= MAX_FIT_SECONDS:
            low = mid
        else:
            high = mid
    return low if seconds(low) <= MAX_FIT_SECONDS else 0.0


def largest_rate(duration: float, samples: int) -> float:
    """The fastest rate, rad/s, at which `samples` samples over `duration` s are fitted
    (0 when none is): for documentation and tests."""
    return _largest(lambda r: fit_seconds(samples, duration, r), 1e9)


__all__ = [
    "MAX_EVALUATIONS",
    "MAX_FIT_SECONDS",
    "FitCost",
    "FitTooCostly",
    "check_cost",
    "fit_cost",
    "fit_seconds",
    "largest_rate",
]
