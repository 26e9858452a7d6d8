"""The least an exact still-water buoyancy can cost per stage, against issue 28's budget.

    python benchmarks/bench_hull_floor.py            # table
    python benchmarks/bench_hull_floor.py --quick    # fewer attitudes and repeats

Issue 28 asks that a floating hull of a few thousand triangles cost ≤ 4 × a free body per RK4
step, so its buoyancy may add 3 × a free body's stage to each stage. Whatever the method, an
exact force must look at every triangle the waterline crosses: the submerged volume is a sum
of rational terms, one per crossed edge (t = d_a / (d_a − d_b)), none of which the others
determine, so none can be skipped or tabled exactly. The count of crossed triangles grows
with the square root of the hull's size (the waterline's length over an edge's).

This script measures that floor on this machine with an oracle: for each hull at random
attitudes it hands a compiled loop, for free, the crossed triangles already found, gathered
into contiguous arrays with their odd corner first, and everything else (the sums over the
triangles wholly under water) as well. The loop then only clips those triangles: three
heads, two divisions and a tip cone each, branch-free with `fastmath` so numba may
vectorise it. "volume" computes the submerged volume alone (one of the four integrals a force
and moment need), "force+moment" the volume and its first moment. The oracle's volume is
checked against `dynamics.hull_cut.cut` before anything is timed.

Its columns: crossed triangles (mean over the attitudes), the oracle's ns per stage, the
budget (3 × the free body's stage, measured in the same run through the real kernel) and
the oracle over the budget: above 1, no exact method on this CPU can meet the target, before
finding the crossed triangles or any other work. The last column is the shipped kernel's
cost per stage (the hull tree, `_still_buoyancy`) for comparison.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from bench_water import RHO, STEP, icosphere, per_step
from numba import njit

from sixdof.dynamics import BodyParams, make_state
from sixdof.dynamics import kernel as K
from sixdof.dynamics.elements import Buoyancy
from sixdof.dynamics.hull_cut import cut
from sixdof.dynamics.water import Water
from sixdof.scenario import Scenario
from sixdof.scenario.elements import hull_triangles


def uv_sphere(segments: int, rings: int) -> np.ndarray:
    """A unit-diameter UV sphere, 2 · segments · (rings − 1) triangles, outward."""
    theta = np.linspace(0.0, math.pi, rings + 1)
    phi = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    pts = 0.5 * np.stack(
        [
            np.outer(np.sin(theta), np.cos(phi)),
            np.outer(np.sin(theta), np.sin(phi)),
            np.outer(np.cos(theta), np.ones_like(phi)),
        ],
        axis=-1,
    )
    out = []
    for i in range(rings):
        for j in range(segments):
            a, b = pts[i, j], pts[i, j + 1]
            c, d = pts[i + 1, j], pts[i + 1, j + 1]
            if i > 0:
                out.append((a, d, b))
            if i < rings - 1:
                out.append((a, c, d))
    return np.array(out)


def hulls() -> list[tuple[str, np.ndarray]]:
    out = []
    for mesh in ("box.stl", "ship.glb", "fhSphere.mesh"):
        sc = Scenario.model_validate({"bodies": [{"Name": "B", "Mesh": mesh}]})
        out.append((mesh, hull_triangles(sc.bodies[0])))
    out.append(("icosphere 3", icosphere(3)))
    out.append(("uv sphere 2000", uv_sphere(40, 26)))
    out.append(("uv sphere 3000", uv_sphere(50, 31)))
    out.append(("icosphere 4", icosphere(4)))
    out.append(("icosphere 5", icosphere(5)))
    return out


_FAST = {"cache": False, "fastmath": True, "error_model": "numpy"}  # numpy's: no zero check,
# so LLVM may vectorise the divisions (with Python's, it did not, and the floor was 40 % higher)


@njit(inline="always", **_FAST)
def _tip(c, nx, ny, nz, g, j):  # pragma: no cover - compiled
    """6 × the signed tip cone of crossed triangle j (rows of g: its corners o, p, r, odd
    first, then ±1), apex at the plane's point nearest the origin: (6V, the tip's corners
    from the apex summed: 4 × its centroid)."""
    ox, oy, oz = g[0, j], g[1, j], g[2, j]
    do = nx * ox + ny * oy + nz * oz + c
    ep = do - (nx * g[3, j] + ny * g[4, j] + nz * g[5, j] + c)
    er = do - (nx * g[6, j] + ny * g[7, j] + nz * g[8, j] + c)
    inv = do / (ep * er)  # one division for both edges
    tp = inv * er
    tr = inv * ep
    ax, ay, az = ox + c * nx, oy + c * ny, oz + c * nz
    bx, by, bz = ax + tp * (g[3, j] - ox), ay + tp * (g[4, j] - oy), az + tp * (g[5, j] - oz)
    qx, qy, qz = ax + tr * (g[6, j] - ox), ay + tr * (g[7, j] - oy), az + tr * (g[8, j] - oz)
    v = ax * (by * qz - bz * qy) + ay * (bz * qx - bx * qz) + az * (bx * qy - by * qx)
    return g[9, j] * v, ax + bx + qx, ay + by + qy, az + bz + qz


@njit(**_FAST)
def _volume(c, n, g):  # pragma: no cover - compiled
    """Σ ± the tip cones of the crossed triangles: 6 × their share of the volume."""
    s = 0.0
    for j in range(g.shape[1]):
        s += _tip(c, n[0], n[1], n[2], g, j)[0]
    return s


@njit(**_FAST)
def _force_moment(c, n, g):  # pragma: no cover - compiled
    """`_volume` and the tip cones' first moment about the apex (× 24)."""
    s = sx = sy = sz = 0.0
    for j in range(g.shape[1]):
        v, cx, cy, cz = _tip(c, n[0], n[1], n[2], g, j)
        s += v
        sx += v * cx
        sy += v * cy
        sz += v * cz
    return s + 1e-300 * (sx + sy + sz)  # the moment kept live


@njit(cache=False)
def _repeat(kernel, reps, c, n, arrays):  # pragma: no cover - compiled
    """`reps` calls of `kernel`, the plane nudged each time so nothing is hoisted out of the
    loop."""
    acc = 0.0
    for k in range(reps):
        acc += kernel(c + 1e-15 * k, n, arrays)
    return acc


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def _crossed(tri: np.ndarray, n: np.ndarray, c: float):
    """The oracle's input: the crossed triangles' corners, odd corner first (SoA), the sign
    of each tip cone, and the rest of the submerged volume (whole cones), for the check."""
    x0 = -c * n
    d = tri @ n + c
    wet = d > 0.0
    count = wet.sum(axis=1)
    rel = tri - x0

    def cones(t: np.ndarray) -> float:
        return float(np.einsum("ij,ij->", t[:, 0], np.cross(t[:, 1], t[:, 2]))) / 6.0

    rest = cones(rel[count == 3])
    sel = (count == 1) | (count == 2)
    t, w, k = tri[sel], wet[sel], count[sel]
    odd = np.where(k == 1, np.argmax(w, axis=1), np.argmin(w, axis=1))
    idx = (odd[:, None] + np.arange(3)) % 3
    t = np.take_along_axis(t, idx[:, :, None], axis=1)
    rest += cones(rel[sel][k == 2])  # odd corner dry: the whole triangle less its dry tip
    sign = np.where(k == 1, 1.0, -1.0)
    soa = tuple(np.ascontiguousarray(t[:, m, a]) for m in range(3) for a in range(3))
    return np.array([*soa, sign]), rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--attitudes", type=int, default=300)
    args = parser.parse_args()
    attitudes = 20 if args.quick else args.attitudes
    reps = 2000 if args.quick else 20000
    per_attitude = max(10, reps // max(1, attitudes // 20))
    rng = np.random.default_rng(28)
    K.warm_up()
    q = (math.cos(0.05), math.sin(0.05), 0.0, 0.0)
    x0 = make_state((0.0, 0.0, 0.02), q, (0.0, 0.0, 0.05), (0.1, 0.0, 0.0))
    free = per_step(BodyParams.from_radii(100.0, (0.3, 0.3, 0.3), gravity=9.81), [], x0,
                    200000 if not args.quick else 20000, 5)  # fmt: skip
    budget = 3.0 * free / 4.0
    print(f"free body: {1e9 * free:.0f} ns per RK4 step, {1e9 * free / 4:.1f} ns per stage;"
          f" the buoyancy's budget (4 × free − free): {1e9 * budget:.0f} ns per stage")  # fmt: skip
    print(f"{'hull':<16}{'triangles':>10}{'crossed':>9}{'volume ns':>11}{'f+m ns':>9}"
          f"{'budget ns':>11}{'f+m/budget':>11}{'shipped ns':>12}")  # fmt: skip
    for name, tri in hulls():
        crossed = []
        t_vol = []
        t_full = []
        for _ in range(attitudes):
            rot = _rotation(rng)
            n = rot[2]
            c = -float(tri.reshape(-1, 3).mean(axis=0) @ n) + rng.uniform(-0.05, 0.05)
            arrays, rest = _crossed(tri, n, c)
            got = _volume(c, n, arrays) / 6.0 + rest
            world = tri @ rot.T
            want = cut(world, -c).volume
            assert abs(got - want) <= 1e-9 * abs(want), (name, got, want)
            crossed.append(len(arrays[0]))
            for kernel, out in ((_volume, t_vol), (_force_moment, t_full)):
                _repeat(kernel, 10, c, n, arrays)  # compiled before timing
                best = math.inf
                for _ in range(3):  # least of three: other work on the machine counts less
                    start = time.process_time()
                    _repeat(kernel, per_attitude, c, n, arrays)
                    best = min(best, time.process_time() - start)
                out.append(best / per_attitude)
        volume = float(np.median(t_vol))
        full = float(np.median(t_full))
        shipped = math.nan
        if len(tri) <= 6000:
            six_v = np.einsum("ij,ij->", tri[:, 0], np.cross(tri[:, 1], tri[:, 2]))
            mass = 0.5 * RHO * abs(float(six_v)) / 6
            params = BodyParams.from_radii(mass, (0.3, 0.3, 0.3), gravity=9.81)
            shipped = per_step(params, [Buoyancy(0, tri, Water())], x0,
                               2000 if args.quick else 20000, 3) / 4 - free / 4  # fmt: skip
        print(f"{name:<16}{len(tri):>10}{np.mean(crossed):>9.0f}{1e9 * volume:>11.0f}"
              f"{1e9 * full:>9.0f}{1e9 * budget:>11.0f}{full / budget:>11.1f}"
              f"{1e9 * shipped:>12.0f}")  # fmt: skip
    print(f"(step {STEP} s; oracle times are medians over {attitudes} random attitudes)")


if __name__ == "__main__":
    main()
