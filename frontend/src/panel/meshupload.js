// @ts-check
// A mesh file of one's own, into the room: dropped on the view or opened from Look → Mesh
// ("Open file…"), it is sent as it is to POST api/meshes (with the room's token, as every
// other write; the server checks and keeps it by its content, meshes.py) and then offered in
// Look → Mesh by its file name. Choosing it is a set_params like any mesh. The server's
// refusal (a file too large, an open mesh, a bad STL, …) is shown in its own words; nothing
// is offered then. A gyroscope recording dropped on the view stays the gyroscope's (gyro.js).

import { isMeshFile, MESH_SUFFIXES } from '../view/meshes.js';
import { t } from '../core/i18n.js';

/**
 * What the server answers for an accepted mesh (server/meshes.py).
 * @typedef {Object} UploadedMesh
 * @property {string} id  sha256:…
 * @property {string} name
 * @property {number} triangles
 * @property {boolean} watertight
 * @property {number} boundary_edges
 * @property {string} winding
 * @property {number | null} volume  m³ at MeshUnits m; null when open
 * @property {number[][]} bounds  [[min x, y, z], [max x, y, z]]
 */

/**
 * The server's words for a refusal: FastAPI's `detail` (a sentence, or a list of pydantic errors).
 * @param {Response} reply
 */
async function refusal(reply) {
  const text = await reply.text();
  try {
    const detail = JSON.parse(text).detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return detail.map((d) => d.msg ?? String(d)).join('; ');
  } catch {
    // not JSON (a proxy's page): its text, or the status
  }
  return text.trim().slice(0, 300) || `HTTP ${reply.status} ${reply.statusText}`;
}

export class MeshUpload {
  /**
   * @param {object} opts
   * @param {HTMLElement} opts.view  files dropped here are uploaded when their suffix is a mesh's
   * @param {string | null} opts.token
   * @param {import('../view/meshes.js').MeshLibrary} opts.library  learns the uploaded mesh's name
   * @param {() => boolean} opts.readOnly  a watcher uploads nothing
   * @param {(mesh: UploadedMesh) => void} opts.onUploaded
   * @param {(text: string) => void} opts.onError
   * @param {(text: string) => void} opts.onBusy  "uploading box.stl…"
   */
  constructor({ view, token, library, readOnly, onUploaded, onError, onBusy }) {
    this.token = token;
    this.library = library;
    this.readOnly = readOnly;
    this.onUploaded = onUploaded;
    this.onError = onError;
    this.onBusy = onBusy;
    /** @type {UploadedMesh | null} the last accepted (tests read it) */
    this.last = null;
    this.input = Object.assign(document.createElement('input'), {
      type: 'file', id: 'mesh-file', hidden: true, accept: MESH_SUFFIXES.join(','),
    }); // prettier-ignore
    this.input.setAttribute('aria-label', t('look.open'));
    view.append(this.input);
    this.input.addEventListener('change', () => {
      const file = this.input.files?.[0];
      this.input.value = '';
      if (file) this.upload(file);
    });
    view.addEventListener('dragover', (ev) => {
      if (ev.dataTransfer && Array.from(ev.dataTransfer.types).includes('Files')) ev.preventDefault();
    });
    view.addEventListener('drop', (ev) => {
      const file = ev.dataTransfer?.files?.[0];
      if (!file || !isMeshFile(file.name)) return; // the gyroscope's, or no file
      ev.preventDefault();
      this.upload(file);
    });
  }

  /** Ask for a file (Look → Mesh → "Open file…"). */
  choose() {
    this.input.click();
  }

  /** @param {File} file */
  async upload(file) {
    if (this.readOnly()) return this.onError(t('look.err.watching'));
    if (!isMeshFile(file.name)) return this.onError(t('look.err.suffix', { name: file.name, suffixes: MESH_SUFFIXES.join(' ') }));
    const api = new URL('api/meshes', window.location.href);
    api.searchParams.set('name', file.name);
    if (this.token) api.searchParams.set('token', this.token);
    this.onBusy(t('look.uploading', { name: file.name }));
    try {
      const reply = await fetch(api, { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } });
      if (!reply.ok) throw new Error(await refusal(reply));
      /** @type {UploadedMesh} */
      const mesh = await reply.json();
      this.library.remember(mesh.id, mesh.name);
      this.last = mesh;
      this.onUploaded(mesh);
    } catch (err) {
      this.onError(t('look.err.upload', { name: file.name, why: err instanceof Error ? err.message : String(err) }));
    }
  }
}
