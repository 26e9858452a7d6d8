"""The opt-in global-error estimate of adaptive runs (re-run at tol/10) against the true
error, which the exact method gives for a torque-free body."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sixdof
from sixdof.cli import main

RACKET = {
    "bodies": [{"Name": "T", "InertiaRadi": [0.2556, 0.1491, 0.2932], "Gravity": 0.0,
                "AngVel": [4.0, 0.0, 0.02]}],
    "integration": {"method": "dopri5", "HMax": 0.1, "TOutput": "0:0.1:10"},
}  # fmt: skip


@pytest.mark.parametrize("tol", [1e-6, 1e-8])
def test_the_estimate_is_close_below_the_true_error(tol: float) -> None:
    spec = {**RACKET, "integration": {**RACKET["integration"], "AbsTol": tol, "RelTol": tol}}
    run = sixdof.run(spec, estimate_error=True)
    true = float(np.max(np.abs(run.states - sixdof.run(spec, integrator="exact").states)))
    assert run.error_estimate is not None
    assert 0.8 * true <= run.error_estimate <= 1.05 * true  # measured 0.97, 0.92
    assert f"estimated global error {run.error_estimate:.3g}" in run.summary
    assert sixdof.run(spec).error_estimate is None  # opt-in


def test_fixed_step_runs_are_refused_and_the_cli_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="dopri5 and radau"):
        sixdof.run("tennis_racket", t_end=0.1, estimate_error=True)
    scenario = tmp_path / "racket.json"
    scenario.write_text(json.dumps(RACKET))
    out = tmp_path / "out.csv"
    code = main(["run", "--input-file", str(scenario), "--output-file", str(out),
                 "--estimate-error"])  # fmt: skip
    assert code == 0
    assert "estimated global error" in capsys.readouterr().err
