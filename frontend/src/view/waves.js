// @ts-check
// The waves as the server has them (backend/sixdof/dynamics/water.py), for drawing: a
// component of amplitude a, period T and direction β (0 = travelling north) raises the surface
// by a cos(ω t − k (x cos β + y sin β)), ω = 2π/T, ω² = g k tanh(k h) (g k in deep water), g the
// body's Gravity; the surface is at NED z = level − η. Pure functions of the scenario's water,
// step for step water.py's, so the surface drawn is the one the body floats in.

/** @typedef {import('../net/messages.gen.js').WaterSpec} WaterSpec */

/**
 * k of ω² = g k tanh(k h), or ω²/g in deep water (depth null): water.py's wave_number, step
 * for step (Newton from above the root).
 * @param {number} omega @param {number} gravity @param {number | null | undefined} depth
 */
export function waveNumber(omega, gravity, depth) {
  const k0 = (omega * omega) / gravity;
  if (depth == null || k0 === 0) return k0;
  let k = Math.max(k0, omega / Math.sqrt(gravity * depth));
  for (let i = 0; i < 100; i++) {
    const th = Math.tanh(k * depth);
    const f = gravity * k * th - omega * omega;
    const df = gravity * (th + k * depth * (1 - th * th));
    const step = f / df;
    k -= step;
    if (Math.abs(step) <= 1e-15 * k) break;
  }
  return k;
}

/**
 * Each component's a, ω, k, cos β, sin β, five numbers a row (water.py's wave_table).
 * @param {WaterSpec} water @param {number} gravity
 */
export function waveTable(water, gravity) {
  const rows = new Float64Array(5 * water.waves.length);
  water.waves.forEach((w, i) => {
    const omega = (2 * Math.PI) / w.period;
    const beta = (w.direction * Math.PI) / 180;
    rows.set([w.amplitude, omega, waveNumber(omega, gravity > 0 ? gravity : 9.81, water.depth), Math.cos(beta), Math.sin(beta)], 5 * i);
  });
  return rows;
}

/**
 * η (m, up) at (x, y) and time t; its slopes ∂η/∂x, ∂η/∂y into out[1], out[2] when given.
 * @param {Float64Array} table @param {number} time @param {number} x @param {number} y @param {Float64Array} [out]
 */
export function elevation(table, time, x, y, out) {
  let eta = 0;
  let ex = 0;
  let ey = 0;
  for (let i = 0; i < table.length; i += 5) {
    const a = table[i];
    const k = table[i + 2];
    const cb = table[i + 3];
    const sb = table[i + 4];
    const phase = table[i + 1] * time - k * (x * cb + y * sb);
    eta += a * Math.cos(phase);
    if (out) {
      const s = a * k * Math.sin(phase); // ∂/∂x of a cos(ωt − k(x cb + y sb)) = a k cb sin(…)
      ex += s * cb;
      ey += s * sb;
    }
  }
  if (out) {
    out[0] = eta;
    out[1] = ex;
    out[2] = ey;
  }
  return eta;
}
