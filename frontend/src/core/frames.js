// @ts-check
// Frames: the one place where FhSim's North-East-Down (NED) frame meets three.js' y-up frame,
// and where our scalar-first quaternions meet three.js' scalar-last ones.
//
// Global NED: x north, y east, z down. three.js world: y up. The mapping is the proper rotation
//
//     x_three =  x_ned   (north)
//     y_three = -z_ned   (up: down on screen is +z in NED)
//     z_three =  y_ned   (east)
//
// (det = +1, so it is a rotation, not a mirror: handedness, cross products and the sense of
// rotations survive). Everything physical — bodies, arrows, trail, grid, N/E/D labels — lives
// in NED coordinates inside one root group whose matrix is NED_TO_THREE; only the camera, its
// controls and the lights live in three.js' own world frame.

import { Group, Matrix4, Quaternion, Vector3 } from 'three';

/** The rotation above as a Matrix4 (set() takes rows): three = NED_TO_THREE · ned. */
export const NED_TO_THREE = new Matrix4().set(
  1, 0, 0, 0,
  0, 0, -1, 0,
  0, 1, 0, 0,
  0, 0, 0, 1,
);
const THREE_TO_NED = NED_TO_THREE.clone().invert();

/** The root group: children are placed in NED coordinates. */
export function makeNedRoot() {
  const root = new Group();
  root.name = 'NED';
  root.matrixAutoUpdate = false;
  root.matrix.copy(NED_TO_THREE);
  return root;
}

/**
 * A NED vector [x, y, z] (array) as a three.js world-frame Vector3.
 * @param {ArrayLike<number>} v
 * @param {Vector3} [out]
 */
export function nedToThree(v, out = new Vector3()) {
  return out.set(v[0], v[1], v[2]).applyMatrix4(NED_TO_THREE);
}

/**
 * A three.js world-frame Vector3 as a NED array [x, y, z].
 * @param {Vector3} v
 * @returns {[number, number, number]}
 */
export function threeToNed(v) {
  const n = v.clone().applyMatrix4(THREE_TO_NED);
  return [n.x, n.y, n.z];
}

/**
 * FhSim's Quater (w, x, y, z), body → NED, as a three.js Quaternion (x, y, z, w).
 * Used inside the NED root, so it needs no change of axes: only the storage order differs.
 * @param {ArrayLike<number>} q  w, x, y, z
 * @param {Quaternion} [out]
 */
export function quatFromWxyz(q, out = new Quaternion()) {
  return out.set(q[1], q[2], q[3], q[0]).normalize();
}

/**
 * Rotate a body-frame vector into NED with Quater (w, x, y, z): R(q) v.
 * @param {ArrayLike<number>} q
 * @param {ArrayLike<number>} v
 * @returns {[number, number, number]}
 */
export function rotateBodyToNed(q, v) {
  const quat = quatFromWxyz(q);
  const r = new Vector3(v[0], v[1], v[2]).applyQuaternion(quat);
  return [r.x, r.y, r.z];
}

/**
 * Rotate a NED vector into the body frame: R(q)ᵀ v.
 * @param {ArrayLike<number>} q
 * @param {ArrayLike<number>} v
 * @returns {[number, number, number]}
 */
export function rotateNedToBody(q, v) {
  const quat = quatFromWxyz(q).invert();
  const r = new Vector3(v[0], v[1], v[2]).applyQuaternion(quat);
  return [r.x, r.y, r.z];
}
