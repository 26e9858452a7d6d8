"""The compact binary state frame: an option for rooms of many bodies (JSON is the default).

A client that connects with `/ws?…&frames=binary` gets `hello.frames == "binary"` and then
each state as one binary websocket message instead of the JSON `state`; everything else
(hello, ack, error) stays JSON. Layout, all little-endian:

| offset | type | field |
|---|---|---|
| 0 | 4 bytes | magic `SDOF` |
| 4 | u8 | layout version, 4 (3 had 63 numbers a body, 2 had 58, 1 had 50) |
| 5 | u8 | flags: bit 0 running, bit 1 compute_limited |
| 6 | u16 | N, bodies (in the order of `hello.scenario.bodies`) |
| 8 | u32 | seq (as the JSON frame's, modulo 2³²) |
| 12 | u32 | overruns |
| 16 | f64 | t, s |
| 24 | f64 | rtf |
| 32 | f64 | time_scale |
| 40 | N × 64 f64 | per body, the JSON frame's numbers in `BODY_FIELDS` order |

A body is 512 bytes (one-body JSON frame: about 1.3 KB with its Loads). Not carried:
`Loads`, `paused_reason` (a pause the room makes itself is also sent as an `error`) and
the elements (a cable's nodes and tensions: the JSON frame's).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..dynamics.model import laid_out
from ..dynamics.output_table import FRAME
from ..dynamics.quaternion import Array

MAGIC = b"SDOF"
LAYOUT_VERSION = 4
HEADER = struct.Struct("<4sBBHIIddd")
#: (name, width) of each body's numbers, in order: the JSON frame's per-body outputs.
BODY_FIELDS = FRAME
BODY_WIDTH = sum(w for _, w in BODY_FIELDS)


def encode_state(seq: int, t: float, status: Mapping[str, Any], outs: Mapping[str, Array]) -> bytes:
    """The binary state message (layout in the module docstring); ValueError if a number
    is not finite, as for the JSON frame."""
    n = len(outs["Pos"])
    block = laid_out(outs, BODY_FIELDS, n)
    if not (np.isfinite(block).all() and np.isfinite(t)):
        raise ValueError("a state frame holds a non-finite number")
    flags = int(bool(status["running"])) | (int(bool(status.get("compute_limited"))) << 1)
    header = HEADER.pack(MAGIC, LAYOUT_VERSION, flags, n, seq & 0xFFFFFFFF,
                         int(status["overruns"]) & 0xFFFFFFFF, float(t), float(status["rtf"]),
                         float(status["time_scale"]))  # fmt: skip
    return header + block.astype("<f8", copy=False).tobytes()


def decode_state(data: bytes) -> dict[str, Any]:
    """A binary state message as {"seq", "t", "status": {…}, "bodies": [{"Pos": […], …}]}
    (bodies without names: they are in the order of hello.scenario.bodies)."""
    magic, version, flags, n, seq, overruns, t, rtf, scale = HEADER.unpack_from(data)
    if magic != MAGIC or version != LAYOUT_VERSION:
        raise ValueError(f"not a sixdof binary state frame (magic {magic!r}, version {version})")
    expected = HEADER.size + 8 * n * BODY_WIDTH
    if len(data) != expected:
        raise ValueError(f"binary state frame of {len(data)} bytes; {n} bodies need {expected}")
    block = np.frombuffer(data, "<f8", offset=HEADER.size).reshape(n, BODY_WIDTH)
    bodies = []
    for row in block.tolist():
        body: dict[str, Any] = {}
        col = 0
        for name, width in BODY_FIELDS:
            body[name] = row[col] if width == 1 else row[col : col + width]
            col += width
        bodies.append(body)
    status = {"running": bool(flags & 1), "compute_limited": bool(flags & 2),
              "overruns": overruns, "rtf": rtf, "time_scale": scale}  # fmt: skip
    return {"seq": seq, "t": t, "status": status, "bodies": bodies}
