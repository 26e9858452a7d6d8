"""Make examples/gyro_flip.csv: a phone's gyroscope in a thrown flip, as phyphox exports it.

Not a recording from a phone: the torque-free flight of a uniform 146.7 × 71.5 × 7.65 mm slab
(a phone's outline; Ix/Iz = 0.8102, Iy/Iz = 0.1941) thrown spinning about its intermediate
axis x, integrated with scipy's DOP853 at 1e-12, sampled at ~100 Hz with ±0.8 ms jitter, with
0.02 rad/s of Gaussian noise (a phone gyroscope's). docs/gyroscope.md fits it.

    python examples/make_gyro_flip.py
"""

from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

LENGTH, WIDTH, DEPTH = 0.1467, 0.0715, 0.00765  # m
IX, IY, IZ = LENGTH**2 + DEPTH**2, WIDTH**2 + DEPTH**2, LENGTH**2 + WIDTH**2  # × m / 12
A, B = IX / IZ, IY / IZ


def rates(_t: float, w: np.ndarray) -> list[float]:
    return [(B - 1) / A * w[1] * w[2], (1 - A) / B * w[2] * w[0], (A - B) * w[0] * w[1]]


def main() -> None:
    rng = np.random.default_rng(2026)
    n = 160
    t = np.cumsum(np.r_[0.0, 0.01 + rng.uniform(-0.0008, 0.0008, n - 1)])
    flight = solve_ivp(
        rates, (0, t[-1]), [13.0, 0.35, 0.5], t_eval=t, rtol=1e-12, atol=1e-12, method="DOP853"
    )
    w = flight.y.T + rng.normal(0, 0.02, (n, 3))
    start = 4.217  # s: phyphox's clock runs from the start of the measurement
    header = '"Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)"'
    lines = [header + ',"Absolute (rad/s)"']
    for ti, (x, y, z) in zip(t, w, strict=True):
        lines.append(
            f"{ti + start:.9E},{x:.9E},{y:.9E},{z:.9E},{np.sqrt(x * x + y * y + z * z):.9E}"
        )
    out = Path(__file__).with_name("gyro_flip.csv")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}: {n} samples, Ix/Iz = {A:.4f}, Iy/Iz = {B:.4f}")


if __name__ == "__main__":
    main()
