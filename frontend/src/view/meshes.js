// @ts-check
// Meshes and materials as FhSim names them. The catalogue (GET api/meshes: meshes/meshes.json
// and meshes/materials.json) maps FhSim names such as "fhSphere.mesh" or "Simple/Red" to shipped
// files and three.js materials. Mesh files are in body coordinates (x forward, y starboard,
// z down), metres at MeshScale = Size = 1, and load through three.js' own GLTF, OBJ and STL
// loaders. A mesh kept on the server by its content ("sha256:…": an upload, or a file beside
// the scenario file) is fetched from api/meshes/ID and read by the loader its file name's
// suffix names (GLTF, OBJ, STL, PLY). An unknown name resolves to a fallback (sphere / grey)
// and says so, so the caller can show a warning instead of an empty scene.

import { BufferGeometry, Color, Mesh, MeshStandardMaterial, SphereGeometry } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js';
import { PLYLoader } from 'three/addons/loaders/PLYLoader.js';
import { STLLoader } from 'three/addons/loaders/STLLoader.js';
import { mergeGeometries, toCreasedNormals } from 'three/addons/utils/BufferGeometryUtils.js';

/**
 * A mesh of the catalogue (meshes/meshes.json).
 * @typedef {Object} MeshEntry
 * @property {string} name
 * @property {string} file  under meshes/
 * @property {string[]} [aliases]  FhSim's names for it
 * @property {boolean} [stored]  kept on the server by its content: `file` is its id
 */

const STORED = /^sha256:[0-9a-f]{64}$/;
/** The suffixes of the mesh files the server reads (meshfiles.SUFFIXES). */
export const MESH_SUFFIXES = ['.stl', '.obj', '.ply', '.glb', '.gltf'];

/** Whether a file name is a mesh file's (by its suffix). @param {string} name */
export function isMeshFile(name) {
  const lower = name.toLowerCase();
  return MESH_SUFFIXES.some((s) => lower.endsWith(s));
}

/**
 * A material of the catalogue (meshes/materials.json), or one made from a CSS colour.
 * @typedef {Object} MaterialSpec
 * @property {string} color  CSS colour
 * @property {number} [metalness]
 * @property {number} [roughness]
 * @property {number} [opacity]
 */

export const FALLBACK_MESH = 'sphere';
/** @type {MaterialSpec} */
export const FALLBACK_MATERIAL = { color: '#8a9099', metalness: 0.1, roughness: 0.55 };

/**
 * @param {URL} url
 * @returns {Promise<unknown>} the parsed JSON
 */
async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

/**
 * Geometry of every mesh object in a loaded three.js scene graph, in the graph's root frame.
 * @param {import('three').Object3D} root
 */
function collectGeometry(root) {
  root.updateMatrixWorld(true);
  /** @type {BufferGeometry[]} */
  const parts = [];
  root.traverse((o) => {
    if (o instanceof Mesh && o.geometry) {
      const g = o.geometry.clone().applyMatrix4(o.matrixWorld);
      // keep only what every part has, so mergeGeometries accepts them
      const clean = new BufferGeometry();
      clean.setAttribute('position', g.getAttribute('position'));
      if (g.getAttribute('normal')) clean.setAttribute('normal', g.getAttribute('normal'));
      if (g.index) clean.setIndex(g.index);
      parts.push(clean.index ? clean.toNonIndexed() : clean);
    }
  });
  if (parts.length === 0) throw new Error('no mesh in file');
  // mergeGeometries returns null (its types say otherwise) when the parts do not match
  const merged = /** @type {BufferGeometry | null} */ (parts.length === 1 ? parts[0] : mergeGeometries(parts));
  if (!merged) throw new Error('the parts of the mesh cannot be merged');
  if (!merged.getAttribute('normal')) merged.computeVertexNormals();
  return merged;
}

export class MeshLibrary {
  constructor(base = './') {
    this.base = base;
    /** @type {MeshEntry[]} */
    this.meshes = [];
    /** @type {Record<string, MaterialSpec>} */
    this.materials = {};
    /** @type {Map<string, Promise<BufferGeometry>>} file -> its geometry, loading or loaded */
    this.cache = new Map();
    /** @type {Map<string, string>} a stored mesh's id -> the file name it came with */
    this.storedNames = new Map();
  }

  /** Remember the file name a stored mesh came with. @param {string} id  sha256:… @param {string} name */
  remember(id, name) {
    if (STORED.test(id) && name) this.storedNames.set(id, name);
  }

  /** How the panel names a mesh: a stored one by its file name (else its id, shortened). @param {string} name */
  label(name) {
    if (!STORED.test(name)) return name;
    return this.storedNames.get(name) ?? `${name.slice(0, 15)}…`;
  }

  /** Load the catalogue from the server (or, served without the API, from meshes/ itself). */
  async init() {
    // the server's JSON, as GET api/meshes and meshes/*.json are documented to be
    try {
      const cat = /** @type {{meshes: MeshEntry[], materials: Record<string, MaterialSpec>}} */ (
        await getJson(new URL('api/meshes', window.location.href))
      );
      this.meshes = cat.meshes;
      this.materials = cat.materials;
    } catch {
      this.meshes = /** @type {MeshEntry[]} */ (await getJson(new URL('meshes/meshes.json', window.location.href)));
      this.materials = /** @type {Record<string, MaterialSpec>} */ (await getJson(new URL('meshes/materials.json', window.location.href)));
    }
  }

  get names() {
    return this.meshes.map((m) => m.name);
  }

  /**
   * The catalogue entry for a Mesh parameter (name, file, alias; any case; any folder).
   * @param {string | null | undefined} name
   * @returns {MeshEntry | null}
   */
  resolve(name) {
    if (typeof name === 'string' && STORED.test(name)) return { name, file: name, stored: true };
    const key = (String(name ?? '').split(/[\\/]/).pop() ?? '').toLowerCase(); // split gives one part at least
    if (!key) return null;
    for (const m of this.meshes) {
      const names = [m.name, m.file, ...(m.aliases ?? [])].map((s) => s.toLowerCase());
      if (names.includes(key)) return m;
    }
    return null;
  }

  /**
   * {entry, known}: the entry for `name`, or the fallback sphere with known = false (no entry
   * at all while the catalogue is empty: not loaded).
   * @param {string | null | undefined} name
   * @returns {{entry: MeshEntry | undefined, known: boolean}}
   */
  lookup(name) {
    const entry = this.resolve(name);
    if (entry) return { entry, known: true };
    return { entry: this.resolve(FALLBACK_MESH) ?? this.meshes.at(0), known: false };
  }

  /**
   * The geometry of a catalogue entry (loaded once, shared).
   * @param {MeshEntry} entry
   */
  geometry(entry) {
    let geometry = this.cache.get(entry.file);
    if (!geometry) {
      geometry = this.load(entry);
      this.cache.set(entry.file, geometry);
    }
    return geometry;
  }

  /**
   * @param {MeshEntry} entry
   * @returns {Promise<BufferGeometry>}
   */
  async load(entry) {
    if (entry.stored) return this.loadStored(entry.file);
    const url = new URL(`meshes/${entry.file}`, window.location.href).toString();
    const ext = (entry.file.split('.').pop() ?? '').toLowerCase();
    if (ext === 'glb' || ext === 'gltf') {
      const gltf = await new GLTFLoader().loadAsync(url);
      return collectGeometry(gltf.scene);
    }
    if (ext === 'obj') {
      const group = await new OBJLoader().loadAsync(url);
      return collectGeometry(group);
    }
    if (ext === 'stl') {
      const g = await new STLLoader().loadAsync(url);
      // STL stores one normal per facet: smooth curved parts, keep edges sharper than 35°
      const creased = toCreasedNormals(g, (35 * Math.PI) / 180);
      return creased;
    }
    throw new Error(`${entry.file}: unsupported mesh format`);
  }

  /**
   * A stored mesh's geometry: its bytes from api/meshes/ID, read by the loader of the format
   * its file name (Content-Disposition) says.
   * @param {string} id  sha256:…
   * @returns {Promise<BufferGeometry>}
   */
  async loadStored(id) {
    const r = await fetch(new URL(`api/meshes/${id}`, window.location.href));
    if (!r.ok) throw new Error(`${id.slice(0, 15)}…: HTTP ${r.status}`);
    const name = /filename="([^"]*)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? '';
    if (!this.storedNames.has(id)) this.remember(id, name);
    const ext = (name.split('.').pop() ?? '').toLowerCase();
    const data = await r.arrayBuffer();
    if (ext === 'glb' || ext === 'gltf') return collectGeometry((await new GLTFLoader().parseAsync(data, '')).scene);
    if (ext === 'obj') return collectGeometry(new OBJLoader().parse(new TextDecoder().decode(data)));
    if (ext === 'stl') return toCreasedNormals(new STLLoader().parse(data), (35 * Math.PI) / 180);
    if (ext === 'ply') {
      const g = new PLYLoader().parse(data);
      if (!g.getAttribute('normal')) g.computeVertexNormals();
      return g;
    }
    throw new Error(`${name || id}: unsupported mesh format`);
  }

  /**
   * A Material parameter as a three.js material: FhSim names from materials.json, otherwise
   * any CSS colour ("tomato", "#ff8800", "rgb(…)"). Returns {material, known}.
   * @param {string} name
   */
  material(name) {
    const spec = this.materials[name] ?? this.materialCaseless(name);
    let known = true;
    let p = spec;
    if (!p) {
      const css = typeof name === 'string' && name.trim() && CSS.supports('color', name.trim());
      known = Boolean(css);
      p = css ? { color: name.trim(), metalness: 0.1, roughness: 0.5 } : FALLBACK_MATERIAL;
    }
    const opacity = p.opacity ?? 1;
    const material = new MeshStandardMaterial({
      color: new Color().setStyle(p.color),
      metalness: p.metalness ?? 0.1,
      roughness: p.roughness ?? 0.5,
      transparent: opacity < 1,
      opacity,
      depthWrite: opacity >= 1,
    });
    return { material, known };
  }

  /** @param {string} name @returns {MaterialSpec | null} */
  materialCaseless(name) {
    const key = String(name ?? '').toLowerCase();
    for (const [k, v] of Object.entries(this.materials)) if (k.toLowerCase() === key) return v;
    return null;
  }
}

/** A sphere of diameter 1 made in code: drawn when even the catalogue cannot be read. */
export function emergencyGeometry() {
  return new SphereGeometry(0.5, 32, 16);
}
