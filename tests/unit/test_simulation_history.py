"""The bounded history of the live simulation and its CSV export."""

import io

import numpy as np
import pytest

from sixdof.scenario import BodySpec, Integration, Scenario
from sixdof.simulation import LiveSimulation
from sixdof.simulation.history import WIDTH

H = 0.01

STANDARD = [
    "Pos[0]",
    "Pos[1]",
    "Pos[2]",
    "Vel[0]",
    "Vel[1]",
    "Vel[2]",
    "Quater[0]",
    "Quater[1]",
    "Quater[2]",
    "Quater[3]",
    "LocalVel[0]",
    "LocalVel[1]",
    "LocalVel[2]",
    "AngVel[0]",
    "AngVel[1]",
    "AngVel[2]",
]
EXTRA = [
    "Euler[0]",
    "Euler[1]",
    "Euler[2]",
    "Force[0]",
    "Force[1]",
    "Force[2]",
    "Moment[0]",
    "Moment[1]",
    "Moment[2]",
    "KineticEnergy",
    "PotentialEnergy",
    "TotalEnergy",
    "LinearMomentum[0]",
    "LinearMomentum[1]",
    "LinearMomentum[2]",
    "AngularMomentum[0]",
    "AngularMomentum[1]",
    "AngularMomentum[2]",
    "Draft",
    "Heel",
    "Trim",
    "WaveElevation",
    "StoredEnergy",
    "RadiatedEnergy",
    "JointGap",
    "JointGapAngle",
    "JointForce[0]",
    "JointForce[1]",
    "JointForce[2]",
    "JointMoment[0]",
    "JointMoment[1]",
    "JointMoment[2]",
    "CableForce[0]",
    "CableForce[1]",
    "CableForce[2]",
    "CableTension",
    "CableSeabedLength",
]


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_sim(clock: FakeClock, names: tuple[str, ...] = ("B",), **kw: object) -> LiveSimulation:
    bodies = [BodySpec(Name=n, AngVel=(0.2, 0.0, 1.0), LocalVel=(1.0, 0.0, 0.0)) for n in names]
    scenario = Scenario(bodies=bodies, integration=Integration(stepsize=H))
    return LiveSimulation(scenario, clock=clock, **kw)


def test_history_is_bounded_and_keeps_the_newest_rows() -> None:
    clock = FakeClock()
    sim = make_sim(clock, frame_rate=10.0, history_seconds=1.0)  # 10 rows
    for _ in range(25):
        clock.t += 0.1
        sim.advance()
    times = sim.history.arrays()["Time"]
    assert len(times) == 10
    np.testing.assert_allclose(times, 0.1 * np.arange(16, 26), atol=1e-12)
    assert sim.history.arrays()["B.Pos"].shape == (10, 3)
    assert sim.history.arrays()["B.TotalEnergy"].shape == (10,)


def test_csv_header_and_rows() -> None:
    clock = FakeClock()
    sim = make_sim(clock, names=("A", "C"))
    sim.set_input("C", (0.0, 0.0, -2.0))
    for _ in range(5):
        clock.t += 1.0 / 60.0
        sim.advance()
    text = sim.history.csv()
    lines = text.splitlines()
    header = lines[0].split(",")
    expected = (
        ["Time"]
        + [f"A.{c}" for c in STANDARD]
        + [f"C.{c}" for c in STANDARD]
        + [f"A.{c}" for c in EXTRA]
        + [f"C.{c}" for c in EXTRA]
    )
    assert header == expected
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert table.shape == (6, len(expected))  # the initial row and one per advance
    assert np.all(np.diff(table[:, 0]) > 0)
    assert table[0, 0] == 0.0
    assert table[-1, 0] == pytest.approx(sim.t, abs=1e-12)
    last = dict(zip(header, table[-1], strict=True))
    frame = sim.frame()["bodies"]
    for i, name in enumerate(("A", "C")):
        for quantity in (
            "Pos",
            "Vel",
            "Quater",
            "LocalVel",
            "AngVel",
            "Euler",
            "Force",
            "LinearMomentum",
            "AngularMomentum",
        ):
            for k, value in enumerate(frame[i][quantity]):
                assert last[f"{name}.{quantity}[{k}]"] == pytest.approx(value, rel=1e-13, abs=1e-14)
        assert last[f"{name}.TotalEnergy"] == pytest.approx(frame[i]["TotalEnergy"], rel=1e-13)
    assert last["C.Force[2]"] == -2.0


def test_step_records_a_row_every_frame_interval() -> None:
    sim = make_sim(FakeClock(), frame_rate=10.0)
    sim.step(100)  # 1 s at h = 0.01: a row every 0.1 s
    np.testing.assert_allclose(sim.history.arrays()["Time"], 0.1 * np.arange(11), atol=1e-12)


def test_reset_clears_history() -> None:
    sim = make_sim(FakeClock())
    sim.step(10)
    sim.reset()
    assert sim.history.csv().count("\n") == 2  # header and the t = 0 row


def test_long_step_keeps_the_last_rows_only() -> None:
    sim = make_sim(FakeClock(), frame_rate=10.0, history_seconds=1.0)  # 10 rows
    assert sim.step(1003) == 1003
    times = sim.history.arrays()["Time"]
    np.testing.assert_allclose(times, [*(0.1 * np.arange(92, 101)), 10.03], atol=1e-9)
    assert sim.t == pytest.approx(10.03, abs=1e-12)


def _twin_runs(**kw: object) -> tuple[LiveSimulation, LiveSimulation]:
    """The same tumbling, pushed run kept at float64 and at float32."""
    sims = []
    for precision in ("float64", "float32"):
        clock = FakeClock()
        sim = make_sim(clock, names=("A", "C"), history_precision=precision, **kw)
        sim.set_input("C", (0.0, 3.0, -2.0), (0.1, 0.0, 0.4))
        for _ in range(120):
            clock.t += 1.0 / 60.0
            sim.advance()
        sims.append(sim)
    return sims[0], sims[1]


def test_a_float32_history_holds_the_float64_run_rounded_to_float32() -> None:
    exact, short = _twin_runs()
    full, half = exact.history.arrays(), short.history.arrays()
    assert full.keys() == half.keys()
    np.testing.assert_array_equal(full["Time"], half["Time"])  # time stays float64
    differs = 0
    for key in full.keys() - {"Time"}:
        a, b = full[key], half[key]
        assert b.dtype == np.float64  # handed out as float64, like the float64 history
        # each number is the float64 one rounded to the nearest float32: no more, no less
        np.testing.assert_array_equal(b, a.astype(np.float32).astype(np.float64))
        differs += int(np.count_nonzero(a != b))
    assert differs > 1000  # the storage is float32 indeed: most numbers lost digits


def test_a_float32_history_takes_half_the_memory() -> None:
    exact, short = _twin_runs()
    rows = exact.history.capacity
    assert short.history.capacity == rows == 3600
    assert exact.history.nbytes == rows * (8 + 2 * WIDTH * 8)  # WIDTH = 53 numbers a body
    assert short.history.nbytes == rows * (8 + 2 * WIDTH * 4)
    # bounded in bytes, float32 keeps twice the rows (t's 8 bytes aside)
    a, b = _twin_runs(history_bytes=100_000, history_seconds=600)
    assert a.history.capacity == 100_000 // 856 and b.history.capacity == 100_000 // 432


def test_a_float32_history_csv_gives_back_every_stored_number() -> None:
    exact, short = _twin_runs()
    text = short.history.csv()
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    stored = short.history.table()
    np.testing.assert_allclose(table[:, 0], stored[:, 0], rtol=1e-14)  # Time: as float64
    # 9 significant digits read back to the very float32 stored
    assert np.array_equal(table[:, 1:].astype(np.float32), stored[:, 1:].astype(np.float32))
    widest = max(len(v.lstrip("-").replace(".", "").split("e")[0].lstrip("0"))
                 for line in text.splitlines()[1:] for v in line.split(",")[1:])  # fmt: skip
    assert widest <= 9
    pieces = "".join(short.history.csv_pieces(cells=500))  # the server's streamed export
    assert pieces == text
    assert len(exact.history.csv()) > len(text)  # float64 writes up to 17 digits (repr)


def test_history_precision_is_checked() -> None:
    from sixdof.fields import FieldError

    with pytest.raises(FieldError, match=r"history_precision: one of float64, float32, got 'f16'"):
        make_sim(FakeClock(), history_precision="f16")
