"""The one per-body output table (dynamics/output_table.py) describes what `outputs` computes."""

from __future__ import annotations

import numpy as np

from sixdof.dynamics import Bodies, BodyParams, make_state, outputs
from sixdof.dynamics.output_table import FRAME, HISTORY_EXTRA, OUTPUTS, PORTS


def test_every_output_is_a_row_with_its_width() -> None:
    body = BodyParams.from_radii(2.0, (0.3, 0.4, 0.5), r_cg_body=(0.1, 0.0, 0.0))
    bodies = Bodies.of([body, body])
    x = np.stack([make_state(ang_vel=(0.1, 0.2, 0.3)), make_state(local_vel=(1.0, 0, 0))])
    outs = outputs(x, np.zeros((2, 6)), bodies)
    assert set(outs) == {o.name for o in OUTPUTS}
    for o in OUTPUTS:
        assert outs[o.name].shape == ((2,) if o.width == 1 else (2, o.width)), o.name


def test_the_rows_are_told_apart_and_the_ports_numbered_once() -> None:
    names = [o.name for o in OUTPUTS]
    assert len(set(names)) == len(names)
    ports = sorted(o.port for o in OUTPUTS if o.port is not None)
    assert ports == list(range(len(ports)))
    assert all(o.width >= 1 for o in OUTPUTS)
    assert not any(o.history and o.port is not None for o in OUTPUTS), "a port is always kept"


def test_the_derived_column_lists() -> None:
    assert FRAME == tuple((o.name, o.width) for o in OUTPUTS)
    assert PORTS == (("Pos", 3), ("Vel", 3), ("Quater", 4), ("LocalVel", 3), ("AngVel", 3))
    assert {name for name, _ in HISTORY_EXTRA} <= {name for name, _ in FRAME}


def test_the_notebook_labels_every_part_of_each_channel_it_plots() -> None:
    from sixdof.notebook.plot import CHANNELS

    width = {o.name: o.width for o in OUTPUTS}
    for name, (parts, _) in CHANNELS.items():  # its unit is the table's own
        assert len(parts) == (0 if width[name] == 1 else width[name]), name
