"""The process that runs a page's BEM job for the server: `python -m sixdof.analysis.bem_child
PARENT_PID`, `sixdof bem`'s work (bem_run) with its steps told as it goes (server/bem.py starts
it, one job per server, and kills it at its deadline and when the server stops).

Capytaine holds its process's cores for seconds to minutes; in the server it would stop every
room. Here it runs on one thread (OMP_NUM_THREADS=1, set by the server) at a lower priority, so
the room's physics keeps the other core and wins over it on a busy machine.

One line of JSON in, on standard input: {"scenario": a Scenario as JSON, "body": name or null,
"frequencies": count or null}. Lines of JSON out, on standard output:
- {"panels": P, "frequencies": N, "body": name}: the job as set up (bem_run.job_for); it then
  waits for a line "go" (the server charges its cost first) and ends at anything else;
- {"done": k, "total": n} after each frequency solved (the infinite one counted);
- {"fit": the radiation element's `fit`}: the file Capytaine wrote, read and fitted
  (scenario/radiation_files.fit_of) as a scenario file's would be;
- {"error": sentence}: a job that cannot be set up, run or fitted.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from .gyro_child import _die_with_parent


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(parent: int) -> int:
    _die_with_parent(parent)
    os.nice(5)  # the room's physics first
    from ..fields import FieldError
    from ..scenario import Scenario
    from ..scenario.radiation_files import fit_of
    from .bem_run import BemError, job_for, run, write

    request = json.loads(sys.stdin.readline() or "{}")
    try:
        scenario = Scenario.model_validate(request["scenario"])
        job = job_for(scenario, request.get("body"), frequencies=request.get("frequencies"))
    except (BemError, ValueError, KeyError) as exc:
        _say({"error": str(exc)})
        return 0
    _say({"panels": len(job.faces), "frequencies": len(job.omega), "body": job.body})
    if sys.stdin.readline().strip() != "go":
        return 0
    try:
        dataset = run(job, quiet=True, done=lambda k, n: _say({"done": k, "total": n}))
        with tempfile.TemporaryDirectory(prefix="sixdof-bem-") as folder:
            path = Path(folder) / f"{job.body}.nc"
            write(dataset, path)
            fit = fit_of(path.read_bytes(), path.name)
    except (BemError, FieldError) as exc:
        _say({"error": str(getattr(exc, "message", exc))})
        return 0
    except Exception as exc:  # Capytaine's own failures, said rather than a bare exit
        _say({"error": f"Capytaine failed: {type(exc).__name__}: {exc}"})
        return 0
    _say({"fit": fit})
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
