"""The page's state buffer (frontend/src/net/interp.js), run in Node on the page's own module:
frames are interpolated within one scenario and never across a hello.

A preset with as many bodies as the one before it, loaded paused at the same t, was blended
with the old one's poses for a frame or two; the camera, framed on the first posed frame,
was framed on that blend (barge_in_waves after oes_sphere_5m: 3 loads in 12 at half the
distance, its Undamped barge under the timeline).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"

SCRIPT = """
import { StateBuffer } from './src/net/interp.js';
const frame = (seq, gen, t, x) => ({ seq, gen, t, status: {}, bodies: [
  { Name: 'A', Pos: [x, 0, 0], Quater: [1, 0, 0, 0] },
  { Name: 'B', Pos: [-x, 0, 0], Quater: [1, 0, 0, 0] }] });
const buffer = new StateBuffer();
const out = [];
for (let k = 0; k < 5; k++) buffer.push(frame(k, 1, 0, 1), k / 60);  // the old scenario, paused
out.push(buffer.sample(1 / 60).bodies.map((b) => b.Pos[0]));
buffer.push(frame(5, 2, 0, 15), 5 / 60);  // a hello, then the new one's first frame at the same t
const drawn = [];  // the playhead walks from the old frames onto the new one at a 240 Hz display
for (let k = 0; k < 12; k++) {
  const s = buffer.sample(1 / 240);
  drawn.push([s.gen, s.bodies[0].Pos[0], s.bodies[1].Pos[0]]);
}
out.push(drawn);
buffer.push(frame(6, 2, 0.01, 16), 6 / 60);  // within the new scenario: interpolated
const within = buffer.sample(1 / 60);
out.push([within.bodies[0].Pos[0], within.gen]);
console.log(JSON.stringify(out));
"""


def test_frames_are_never_blended_across_a_hello() -> None:
    node = shutil.which("node")
    if node is None or not (FRONTEND / "node_modules" / "three").is_dir():
        pytest.fail("node and frontend/node_modules are needed (make frontend-deps)")
    done = subprocess.run([node, "--input-type=module", "-e", SCRIPT], cwd=FRONTEND,
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    old, drawn, within = json.loads(done.stdout)
    assert old == [1, -1]
    # each drawn sample is the old scenario's or the new one's, never a blend of the two
    assert {gen for gen, _, _ in drawn} == {1, 2}, drawn
    for gen, a, b in drawn:
        assert (a, b) == ((1, -1) if gen == 1 else (15, -15)), f"blended across the hello: {drawn}"
    # between the new scenario's two frames, strictly inside
    assert 15 < within[0] < 16 and within[1] == 2, within
