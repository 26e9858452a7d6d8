// @ts-check
// The rigid-body helpers the page shares: the inertia tensor, the moment for an angular
// acceleration, the mass a point feels when pushed, and the weight that scales pushes and
// arrows. Pure functions of a body's spec; the keys, the pad, the drag and the overlays import
// them from here.

import { Matrix3, Vector3 } from 'three';
import { rotateBodyToNed, rotateNedToBody } from './frames.js';

const STANDARD_GRAVITY = 9.80665; // m/s², the scale of a body without gravity

/**
 * What the helpers read of a body's spec (a BodySpec, or a stand-in before the first hello).
 * @typedef {{Mass: number, InertiaRadi?: readonly number[] | null, Inertia?: readonly number[] | null, CGOffset?: readonly number[] | null}} RigidSpec
 */

/** @param {readonly number[]} a @param {readonly number[]} b @returns {number[]} */
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/**
 * The inertia tensor about the CG in body axes: Inertia when given, else from InertiaRadi.
 * @param {RigidSpec} spec
 */
export function inertiaTensor(spec) {
  if (Array.isArray(spec.Inertia) && spec.Inertia.length === 6) {
    const [xx, yy, zz, xy, xz, yz] = spec.Inertia;
    return new Matrix3().set(xx, xy, xz, xy, yy, yz, xz, yz, zz);
  }
  const m = spec.Mass;
  const [a, b, c] = spec.InertiaRadi ?? [0.5, 0.5, 0.5];
  return new Matrix3().set(m * a * a, 0, 0, 0, m * b * b, 0, 0, 0, m * c * c);
}

/**
 * The mass a point feels when pushed along u (NED unit vector): 1/m_eff = uᵀ (E/m − S(r) I⁻¹ S(r)) u
 * in body axes, r from the CG to the point, I the inertia about the CG (Inertia, or from InertiaRadi).
 * @param {RigidSpec} spec
 * @param {readonly number[]} quater  (w, x, y, z), body to NED
 * @param {readonly number[]} point  body frame, relative to the reference point
 * @param {readonly number[]} u
 */
export function effectiveMass(spec, quater, point, u) {
  const m = spec.Mass;
  const cg = spec.CGOffset ?? [0, 0, 0];
  const r = [point[0] - cg[0], point[1] - cg[1], point[2] - cg[2]];
  const ub = rotateNedToBody(quater, u);
  // u·(S(r) I⁻¹ S(r)) u = −(r × u)·I⁻¹(r × u): turning makes the point lighter
  const [x, y, z] = cross(r, ub);
  const rxu = new Vector3(x, y, z);
  const turn = rxu.clone().applyMatrix3(inertiaTensor(spec).invert()).dot(rxu);
  return 1 / (1 / m + turn);
}

/**
 * The moment that gives the body the angular acceleration α: M = I α with its whole inertia
 * tensor (about the CG, body axes). A global α is turned into body axes and the moment back,
 * M = R I Rᵀ α.
 * @param {RigidSpec} spec
 * @param {readonly number[]} quater
 * @param {readonly number[]} alpha  rad/s²
 * @param {boolean} global  alpha (and the moment) in NED, else in body axes
 * @returns {number[]}
 */
export function momentFor(spec, quater, alpha, global) {
  const [x, y, z] = global ? rotateNedToBody(quater, alpha) : alpha;
  const momentBody = new Vector3(x, y, z).applyMatrix3(inertiaTensor(spec)).toArray();
  return global ? rotateBodyToNed(quater, momentBody) : momentBody;
}

/**
 * The weight that scales pushes and force arrows: m·g with the body's own g (1 g without gravity).
 * @param {{Mass?: number, Gravity?: number} | null | undefined} spec
 */
export function weightScale(spec) {
  return (spec?.Mass ?? 1) * (Math.abs(spec?.Gravity ?? 0) || STANDARD_GRAVITY);
}
