"""Example messages for docs/protocol.md, one or more per message type.

The tests validate every example against its model, so the documented examples cannot
drift from the protocol.
"""

from __future__ import annotations

from typing import Any

from sixdof.scenario import Scenario
from sixdof.server.protocol import PROTOCOL_VERSION, limits

_STATUS = {
    "running": True,
    "time_scale": 1.0,
    "rtf": 0.998,
    "overruns": 0,
    "paused_reason": None,
    "compute_limited": False,
    "forked_at": None,
    "recorded_from": 0.0,
    "integrator": "rk4",
    "step": 0.001,
}
_BODY = {
    "Name": "B",
    "Pos": [0.0, 0.0, -2.0],
    "Quater": [1.0, 0.0, 0.0, 0.0],
    "Vel": [0.5, 0.0, 0.0],
    "LocalVel": [0.5, 0.0, 0.0],
    "AngVel": [0.0, 0.0, 0.0],
    "Euler": [0.0, 0.0, 0.0],
    "Force": [0.5, 0.0, -9.81],
    "Moment": [0.0, 0.0, 0.0],
    "KineticEnergy": 0.125,
    "PotentialEnergy": 19.62,
    "TotalEnergy": 19.745,
    "LinearMomentum": [0.5, 0.0, 0.0],
    "AngularMomentum": [0.0, 0.0, 0.0],
    "CGPos": [0.0, 0.0, -2.0],
    "CGVel": [0.5, 0.0, 0.0],
    "AngVelGlobal": [0.0, 0.0, 0.0],
    "TranslationalEnergy": 0.125,
    "RotationalEnergy": 0.0,
    "Draft": 0.0,
    "Heel": 0.0,
    "Trim": 0.0,
    "WaveElevation": 0.0,
    "StoredEnergy": 0.0,
    "RadiatedEnergy": 0.0,
    "JointGap": 0.0,
    "JointGapAngle": 0.0,
    "JointForce": [0.0, 0.0, 0.0],
    "JointMoment": [0.0, 0.0, 0.0],
    "CableForce": [0.0, 0.0, 0.0],
    "CableTension": 0.0,
    "CableSeabedLength": 0.0,
    "Loads": [
        {
            "source": "constant",
            "Force": [0.0, 0.0, -9.81],
            "Moment": [0.0, 0.0, 0.0],
            "At": [0.0, 0.0, -2.0],
        },
        {
            "source": "push",
            "Force": [0.5, 0.0, 0.0],
            "Moment": [0.0, 0.0, 0.0],
            "At": [0.0, 0.0, -2.0],
        },
    ],
}


def examples() -> dict[str, list[dict[str, Any]]]:
    """One or more example objects per message type (each must validate against its model)."""
    scenario = Scenario(name="hover", caption="Gravity balanced by a constant lift.")
    return {
        "hello": [
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "version": "0.1.0",
                "room": "main",
                "can_control": True,
                "scenario": scenario.model_dump(mode="json"),
                "preset": "hover",
                "preset_modified": False,
                "integrator": "rk4",
                "step": 0.001,
                "presets": [
                    {
                        "name": "hover",
                        "title": "Hover",
                        "caption": "Gravity balanced.",
                        "question": "Push it once: what will it do then?",
                        "flip_axis": None,
                    }
                ],
                "limits": limits(),
                "status": _STATUS,
            }
        ],
        "state": [
            {"type": "state", "seq": 123, "t": 2.05, "status": _STATUS, "bodies": [_BODY]},
            {
                "type": "state",
                "seq": 124,
                "t": 2.0667,
                "status": _STATUS,
                "bodies": [_BODY],
                "elements": [  # a hinge of B to the world: its reaction, moment and gap
                    {
                        "point": [0.0, 0.0, -2.5],
                        "force": [0.0, 0.0, -9.81],
                        "other": [0.0, 0.0, -2.5],
                        "moment": [0.0, 0.0, 0.4],
                        "gap": [1.2e-13, 3.1e-14],
                    }
                ],
            },
        ],
        "ack": [{"type": "ack", "id": "7", "of": "set_params"}],
        "error": [
            {
                "type": "error",
                "id": "7",
                "code": "out_of_range",
                "message": "Mass: must be in [1e-06, 1e+06] kg, got -1",
                "field": "Mass",
            }
        ],
        "preparing": [
            {
                "type": "preparing",
                "message": "preparing the physics — the first start compiles it, about 90 s",
                "cold": True,
                "elapsed": 0.02,
            }
        ],
        "set_input": [
            {"type": "set_input", "id": 1, "body": "B", "Force": [0.0, 0.0, -9.81]},
            {
                "type": "set_input",
                "channel": "push",
                "frame": "body",
                "Force": [5.0, 0.0, 0.0],
                "point": [0.5, 0.0, 0.0],
            },
            {"type": "set_input", "channel": "push"},
        ],
        "set_params": [
            {
                "type": "set_params",
                "id": "7",
                "body": "B",
                "Mass": 2.0,
                "InertiaRadi": [0.3, 0.4, 0.5],
            },
            {"type": "set_params", "integrator": "euler", "step": 0.0005},
        ],
        "set_elements": [
            {
                "type": "set_elements",
                "id": "8",
                "elements": [
                    {"kind": "pivot", "body": "B", "point": [0.0, 0.0, -0.5]},
                    {
                        "kind": "spring",
                        "body": "B",
                        "point": [0.0, 0.0, 0.5],
                        "to": [0.0, 1.0, 0.0],
                        "stiffness": 50.0,
                        "damping": 0.5,
                    },
                ],
            },
            {"type": "set_elements", "elements": []},
        ],
        "set_water": [
            {
                "type": "set_water",
                "id": "9",
                "water": {
                    "density": 1000.0,
                    "level": 0.0,
                    "current": [0.5, 0.0, 0.0],
                    "waves": [{"amplitude": 0.5, "period": 6.0, "direction": 90.0}],
                    "depth": None,
                },
            },
            {"type": "set_water", "water": None},
        ],
        "pause": [{"type": "pause"}],
        "resume": [{"type": "resume"}],
        "step": [{"type": "step", "n": 10}],
        "reset": [
            {"type": "reset", "state": None},
            {"type": "reset", "body": "B", "state": {"Pos": [0, 0, -1], "AngVel": [0, 0, 1]}},
        ],
        "set_time_scale": [{"type": "set_time_scale", "time_scale": 0.25}],
        "auth": [{"type": "auth", "token": "s3cret", "id": 1}],
        "go_back": [{"type": "go_back", "t": 12.5, "id": 9}],
        "undo_go_back": [{"type": "undo_go_back", "id": 10}],
        "answer": [{"type": "answer", "question": 3, "text": "It flips over", "id": 12}],
        "set_ghost": [
            {"type": "set_ghost", "changes": {"model": "fhsim"}, "id": 11},
            {"type": "set_ghost", "changes": {"integrator": "euler", "step": 0.01}},
            {"type": "set_ghost", "changes": None},
        ],
        "load_scenario": [
            {"type": "load_scenario", "preset": "tennis_racket"},
            {"type": "load_scenario", "scenario": {"name": "drop", "bodies": [{"Mass": 2.0}]}},
        ],
    }
