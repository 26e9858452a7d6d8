"""`sixdof fit`: inertia ratios from a gyroscope recording (analysis/gyro.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sixdof.analysis.gyro import GyroFileError, fit, read_gyro_text
from sixdof.cli import main
from sixdof.scenario import load_scenario_file

ROOT = Path(__file__).resolve().parents[2]
HEADER = '"Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"'
# A book-like body spun about its intermediate axis x: Ix/Iz = 0.7, Iy/Iz = 0.35.
RATIOS = (0.7, 0.35)


def flight(
    ratios: tuple[float, float] = RATIOS,
    w0: tuple[float, float, float] = (10.0, 0.6, 0.4),
    seconds: float = 4.0,
    rate: float = 100.0,
    noise: float = 0.02,
    seed: int = 7,
) -> tuple[np.ndarray, np.ndarray]:
    """A torque-free flight's ω sampled at `rate` with Gaussian noise (scipy's DOP853)."""
    a, b = ratios

    def rhs(_t: float, w: np.ndarray) -> list[float]:
        return [(b - 1) / a * w[1] * w[2], (1 - a) / b * w[2] * w[0], (a - b) * w[0] * w[1]]

    t = np.arange(0.0, seconds, 1.0 / rate)
    sol = solve_ivp(rhs, (0.0, t[-1]), w0, t_eval=t, rtol=1e-12, atol=1e-12, method="DOP853")
    rng = np.random.default_rng(seed)
    return t, sol.y.T + rng.normal(0.0, noise, (t.size, 3))


def phyphox(t: np.ndarray, w: np.ndarray, start: float = 3.5) -> str:
    """phyphox's CSV export: quoted header, Absolute column, E-notation."""
    rows = [
        f"{ti + start:.9E},{x:.9E},{y:.9E},{z:.9E},{np.sqrt(x * x + y * y + z * z):.9E}"
        for ti, (x, y, z) in zip(t, w, strict=True)
    ]
    return "\n".join([HEADER + ',"Absolute (rad/s)"', *rows]) + "\n"


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gyro") / "Raw Data.csv"
    path.write_text(phyphox(*flight()), encoding="utf-8")
    return path


def test_a_synthetic_flip_gives_its_ratios_within_2_percent(
    synthetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fit", str(synthetic), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    got = np.array(out["inertia_ratios"])
    assert np.all(np.abs(got / RATIOS - 1.0) < 0.02), got
    sigma = np.array(out["inertia_ratios_sigma"])
    assert np.all(sigma > 0) and np.all(np.abs(got - RATIOS) < 5 * sigma + 1e-3)
    assert out["residual_rms"] == pytest.approx(0.02, rel=0.2)  # the noise, nothing more
    assert out["intermediate_axis"] == "x" and out["flips_measured"] >= 2
    measured, predicted = out["flip_period_measured"], out["flip_period_predicted"]
    assert predicted == pytest.approx(measured, rel=0.05)
    assert np.allclose(out["initial_ang_vel"], (10.0, 0.6, 0.4), atol=0.05)
    body = out["scenario"]["bodies"][0]
    rx, ry, rz = body["InertiaRadi"]
    assert (rx / rz) ** 2 == pytest.approx(got[0]) and (ry / rz) ** 2 == pytest.approx(got[1])


def test_the_report_and_the_scenario_file(
    synthetic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "phone.xml"
    assert main(["fit", str(synthetic), "--scenario-file", str(out_file), "--mass", "0.3"]) == 0
    text = capsys.readouterr().out
    found = re.search(r"Ix/Iz = ([0-9.]+) ± \S+ +Iy/Iz = ([0-9.]+)", text)
    assert found and np.allclose([float(found[1]), float(found[2])], RATIOS, rtol=0.02)
    assert "residual" in text and "flip period       measured" in text and "predicted" in text
    scenario = load_scenario_file(out_file)
    assert scenario.bodies[0].Mass == 0.3 and scenario.bodies[0].Gravity == 0.0


def test_the_shipped_example_fits_the_phone_it_was_made_from() -> None:
    result = fit(read_gyro_text((ROOT / "examples" / "gyro_flip.csv").read_text()))
    length, width, depth = 0.1467, 0.0715, 0.00765
    iz = length**2 + width**2
    want = np.array([(length**2 + depth**2) / iz, (width**2 + depth**2) / iz])
    assert np.all(np.abs(result.ratios / want - 1.0) < 0.02)
    assert result.flip_measured == pytest.approx(result.flip_predicted, rel=0.02)


def test_plain_columns_without_a_header_in_degrees_too() -> None:
    t, w = flight(seconds=2.0)
    plain = "\n".join(f"{ti} {x} {y} {z}" for ti, (x, y, z) in zip(t, w, strict=True))
    assert np.allclose(fit(read_gyro_text(plain)).ratios, RATIOS, rtol=0.02)
    deg = "t;wx (deg/s);wy (deg/s);wz (deg/s)\n" + "\n".join(
        f"{ti};{x};{y};{z}" for ti, (x, y, z) in zip(t, np.degrees(w), strict=True)
    )
    data = read_gyro_text(deg)
    assert np.allclose(data.omega, w) and data.notes
    comma = (
        "\t".join(f'"{c}"' for c in HEADER.replace('"', "").split(","))
        + "\n"
        + "\n".join(
            "\t".join(f"{v:.6f}".replace(".", ",") for v in (ti, x, y, z))
            for ti, (x, y, z) in zip(t, w, strict=True)
        )
    )  # phyphox's "tab, decimal comma" export
    assert np.allclose(read_gyro_text(comma).omega, w, atol=1e-6)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('"Time (s)","Accel x","Gyroscope y (rad/s)","Gyroscope z (rad/s)"\n0,1,2,3\n',
         ["'Gyroscope x (rad/s)'", "'Accel x'"]),
        (HEADER + "\n" + "\n".join(f"{k / 100},1,2,3" for k in range(40)).replace(
            "0.05,1,2,3", "0.05,1,NaN,3"), ["row 6 (line 7)", "'Gyroscope y (rad/s)'", "NaN"]),
        (HEADER + "\n" + "\n".join(f"{k / 100},1,2,3" for k in range(40)).replace(
            "0.05,1,2,3", "0.05,1,,3"), ["row 6", "'Gyroscope y (rad/s)'", "not a number"]),
        (HEADER + "\n" + "\n".join(f"{k / 100},1,2,3" for k in range(5)), ["5 samples", "30"]),
        (HEADER + "\n" + "\n".join(f"{k / 100},1,2,3" for k in range(40)).replace(
            "0.07,1,2,3", "0.02,1,2,3"), ["row 8", "'Time (s)'", "does not come after"]),
        (HEADER + "\n" + "\n".join(f"{k / 100},1,2,3" for k in range(40)).replace(
            "0.07,1,2,3", "0.07,1"), ["row 8", "2 columns"]),
        ("1,2\n3,4\n", ["2 columns", "t, ωx, ωy, ωz"]),
        ("", ["empty"]),
    ],
)  # fmt: skip
def test_bad_files_say_which_column_or_row(text: str, says: list[str]) -> None:
    with pytest.raises(GyroFileError) as err:
        read_gyro_text(text, name="gyro.csv")
    message = str(err.value)
    assert message.startswith("gyro.csv: ")
    for part in says:
        assert part in message


def test_the_command_exits_2_with_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "g.csv"
    bad.write_text(HEADER + "\n0,1,2,3\n", encoding="utf-8")
    assert main(["fit", str(bad)]) == 2
    assert "1 samples" in capsys.readouterr().err or "samples" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "missing.csv")]) == 2
