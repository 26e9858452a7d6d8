"""A gyroscope fit's cost is known before it runs (issue 40, findings 1 and 17): rates outside
AngVel's range and fits over the ceiling are refused with a sentence, an ordinary throw is
accepted, and the fit does no more than was counted (analysis/gyro_cost.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.gyro_files import HEADER, spinning, tumbling, with_rate_at_row

import sixdof.analysis.gyro as gyro
from sixdof.analysis.gyro import GyroFileError, fit, read_gyro_text
from sixdof.analysis.gyro_cost import (
    MAX_EVALUATIONS,
    MAX_FIT_SECONDS,
    FitTooCostly,
    check_cost,
    fit_cost,
)
from sixdof.analysis.gyro_model import step_counts
from sixdof.cli import main

ROOT = Path(__file__).resolve().parents[2]
X = "'Gyroscope x (rad/s)'"


def test_finding_1_its_file_is_refused_before_anything_runs() -> None:
    text = spinning(1e5)  # 30 rows, 1e5 rad/s over 120 s: it held the server for hours
    assert len(text.encode()) < 1024
    with pytest.raises(GyroFileError) as err:
        read_gyro_text(text, name="gyro.csv")
    assert str(err.value).startswith(f"gyro.csv: row 1 (line 2), column {X}: 100000 is outside ")
    assert "±1e+04 rad/s (AngVel's limit" in str(err.value)


def test_a_fit_over_the_ceiling_names_rate_duration_and_the_largest_accepted() -> None:
    data = read_gyro_text(spinning(5e3), name="gyro.csv")  # within AngVel's range
    with pytest.raises(FitTooCostly) as err:
        check_cost(data, name="gyro.csv")
    message = str(err.value)
    assert message.startswith("gyro.csv: 30 samples over 120 s at up to 5e+03 rad/s: its fit ")
    assert f"at most {MAX_FIT_SECONDS:g} s are fitted" in message
    assert f"RK4 steps per integration, up to {MAX_EVALUATIONS} integrations" in message
    # 120 s at 5,000 rad/s in steps of a hundredth of a turn: 9.5e6 steps per integration
    cost = fit_cost(data)
    assert cost.steps == pytest.approx(120 * 5e3 / (0.01 * 2 * np.pi), rel=1e-3)
    assert cost.seconds > 10 * MAX_FIT_SECONDS
    found = re.search(
        r"The largest fit accepted: at 5e\+03 rad/s, a record of at most ([0-9.e+-]+) s "
        r"\(cut it to the flight\); over 120 s, rates of at most ([0-9.e+-]+) rad/s",
        message,
    )
    assert found, message
    # what it calls the largest is accepted, and a little more is not
    fastest = float(found[2])
    check_cost(read_gyro_text(spinning(fastest)))
    with pytest.raises(FitTooCostly):
        check_cost(read_gyro_text(spinning(1.05 * fastest)))


@pytest.mark.parametrize("value", ["1e308", "-1e308", "2e4"])
def test_finding_17_a_rate_out_of_range_is_refused_naming_the_column(value: str) -> None:
    with pytest.raises(GyroFileError) as err:
        read_gyro_text(with_rate_at_row(value), name="gyro.csv")
    assert str(err.value) == (
        f"gyro.csv: row 4 (line 5), column {X}: {value} is outside ±1e+04 rad/s (AngVel's "
        "limit: no body carrying a gyroscope turns that fast; check the column's units)"
    )


def test_samples_closer_than_a_microsecond_are_refused_naming_the_time_column() -> None:
    rows = [f"{k * 1e-310!r},1,2,3" for k in range(30)]  # the derivatives' step overflowed
    with pytest.raises(GyroFileError) as err:
        read_gyro_text("\n".join(["t,wx,wy,wz", *rows]), name="g.csv")
    assert str(err.value) == (
        "g.csv: row 2 (line 3), column 't': time 1e-310 s comes 1e-310 s after 0 s; samples "
        "1e-06 s apart at least are read (no gyroscope samples faster)"
    )


def test_the_spin_as_a_whole_and_rates_in_degrees_are_bounded_too() -> None:
    rows = [f"{k / 29:.4f},6000,6000,6000" for k in range(30)]  # each in range, |ω| 1.04e4
    with pytest.raises(GyroFileError) as err:
        read_gyro_text("\n".join([HEADER, *rows]), name="g.csv")
    assert "g.csv: row 1 (line 2), columns Gyroscope x (rad/s)" in str(err.value)
    assert "|ω| = 1.039e+04 rad/s is over 10000 rad/s (AngVel's limit" in str(err.value)
    degrees = "t;wx (deg/s);wy (deg/s);wz (deg/s)\n" + "\n".join(
        f"{k / 29:.4f};{6e5 if k == 2 else 100};1;1" for k in range(30)
    )
    with pytest.raises(GyroFileError) as err:
        read_gyro_text(degrees, name="g.csv")
    assert "row 3 (line 4), column 'wx (deg/s)': 600000.0 is outside ±5.73e+05 deg/s" in str(
        err.value
    )


def test_an_ordinary_throw_is_accepted_and_costs_little() -> None:
    data = read_gyro_text((ROOT / "examples" / "gyro_flip.csv").read_text())
    cost = check_cost(data)
    assert cost.samples == 160 and cost.seconds < 0.05 * MAX_FIT_SECONDS
    assert cost.step == 2e-3  # 16.5 rad/s at most: the 2 ms step, not the turn, bounds it
    assert np.allclose(fit(data).ratios, [0.8102, 0.1941], rtol=0.02)


def test_the_fit_does_no_more_than_its_cost_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every integration of the least squares takes the counted steps, and there are at most
    MAX_EVALUATIONS of them, however badly the equations fit (random rates)."""
    data = read_gyro_text(tumbling(rate=30.0, seconds=10.0, rows=200))
    cost = check_cost(data)
    over_record: list[int] = []  # steps of each integration over the recording's times
    elsewhere: list[int] = []  # and of the others (the flip period's prediction)
    simulate = gyro.simulate

    def counted(t: np.ndarray, *args: object) -> np.ndarray:
        step = args[3] if len(args) > 3 else None
        assert step is not None, "a fit integrates with its record's step"
        steps = int(step_counts(np.asarray(t), float(step)).sum())  # type: ignore[arg-type]
        (over_record if t is data.t else elsewhere).append(steps)
        return simulate(t, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(gyro, "simulate", counted)
    result = fit(data)
    assert set(over_record) == {cost.steps}
    assert result.evaluations == len(over_record) - 1  # and the fitted curve
    assert 100 < result.evaluations <= MAX_EVALUATIONS  # random rates: it searched
    assert sum(elsewhere) <= 85 * 10.0 / cost.step + 4 * 20_001


def test_sixdof_fit_refuses_the_same_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text, says in (
        (spinning(5e3), "its fit would take up to"),
        (spinning(1e5), "100000 is outside ±1e+04 rad/s"),
        (with_rate_at_row("1e308"), "1e308 is outside ±1e+04 rad/s"),
    ):
        path = tmp_path / "gyro.csv"
        path.write_text(text, encoding="utf-8")
        assert main(["fit", str(path)]) == 2
        err = capsys.readouterr().err
        assert says in err and str(path) in err and "Traceback" not in err
