// @ts-check
// The panel's Look folder: what the body looks like and, with "Inertia from shape", what it
// weighs. Mesh (a shipped one, or one uploaded: "Open file…" or a file dropped on the view,
// meshupload.js), Material and colour, MeshUnits, MeshScale, Size, MeshOrigin; Inertia from
// shape (given: Mass, CGOffset and Inertia as typed; solid or shell: from the mesh × MeshScale
// × Size, docs/physics.md) and Density (kg/m³ solid, kg/m² shell; empty: Mass as typed). While
// the shape gives them, InertiaRadi, Inertia, CGOffset and MeshOrigin are the server's to set
// (it refuses them typed) and their fields are disabled.

import { t } from '../core/i18n.js';

/** @typedef {import('lil-gui').Controller} Controller */

/** Fields the shape gives while InertiaFrom is solid or shell (validation.FROM_SHAPE). */
export const FROM_SHAPE = ['InertiaRadi', 'Inertia', 'CGOffset', 'MeshOrigin'];

/**
 * Build the Look folder in `panel` (its controllers join panel.c).
 * @param {import('./panel.js').Panel} panel
 * @param {{choose: () => void}} upload  what "Open file…" asks to open a file
 */
export function addLookFolder(panel, upload) {
  const { gui, c, p } = panel;
  Object.assign(p, { InertiaFrom: 'given', Density: '', MeshUnits: 'm' });
  const fl = gui.addFolder(t('panel.look'));
  c.Mesh = fl.add(p, 'Mesh', ['sphere']).name(t('panel.mesh'));
  c.Mesh.onChange((/** @type {string} */ v) => panel.send([c.Mesh], { type: 'set_params', Mesh: v }));
  c.meshFile = fl.add({ go: () => upload.choose() }, 'go').name(t('look.open'));
  c.meshFile.domElement.title = t('look.open_title');
  panel.uploadNote = panel.note(c.meshFile, '');
  panel.uploadNote.setAttribute('role', 'status');
  c.Material = fl.add(p, 'Material', ['Simple/Black']).name(t('panel.material'));
  c.Material.onChange((/** @type {string} */ v) => panel.send([c.Material], { type: 'set_params', Material: v }));
  for (const ctl of [c.Mesh, c.Material]) ctl.domElement.setAttribute('translate', 'no'); // file names, not words
  c.colour = fl.addColor(p, 'colour').name(t('panel.colour'));
  c.colour.onFinishChange((/** @type {string} */ v) => panel.send([c.colour, c.Material], { type: 'set_params', Material: v }));
  c.MeshUnits = fl.add(p, 'MeshUnits', { m: 'm', mm: 'mm', in: 'in' }).name(t('look.units'));
  c.MeshUnits.onChange((/** @type {'m' | 'mm' | 'in'} */ v) => panel.send([c.MeshUnits], { type: 'set_params', MeshUnits: v }));
  panel.vectorParam('MeshScale', fl);
  panel.vectorParam('Size', fl);
  panel.vectorParam('MeshOrigin', fl, t('panel.meshorigin'));
  const kinds = Object.fromEntries(['given', 'solid', 'shell'].map((k) => [t(`look.from.${k}`), k]));
  c.InertiaFrom = fl.add(p, 'InertiaFrom', kinds).name(t('look.inertia_from'));
  c.InertiaFrom.domElement.title = t('look.inertia_from_title');
  c.InertiaFrom.onChange((/** @type {'given' | 'solid' | 'shell'} */ v) => panel.send([c.InertiaFrom], { type: 'set_params', InertiaFrom: v }));
  c.Density = fl.add(p, 'Density').name(t('look.density'));
  c.Density.onFinishChange((/** @type {string} */ text) => {
    const s = String(text).trim();
    if (!s) return panel.send([c.Density], { type: 'set_params', Density: null });
    const v = Number(s.replace(',', '.'));
    if (!Number.isFinite(v)) return panel.errors.show(c.Density, t('panel.err.number', { field: 'Density' }));
    panel.send([c.Density], { type: 'set_params', Density: v });
  });
  return fl;
}

/**
 * The Look folder after a hello or another body chosen: the meshes offered (the shipped ones,
 * those uploaded here and the body's own), and the fields the shape gives disabled while it does.
 * @param {import('./panel.js').Panel} panel
 * @param {import('../net/messages.gen.js').BodySpec} b  the selected body's spec
 */
export function refreshLook(panel, b) {
  const { c, library } = panel;
  /** @type {Record<string, string>} label -> Mesh value */
  const options = {};
  for (const name of library.names) options[name] = name;
  for (const id of [...library.storedNames.keys(), b.Mesh]) {
    if (Object.values(options).includes(id)) continue;
    let label = library.label(id);
    if (label in options) label = `${label} (${id.slice(7, 13)})`; // two uploads of one name
    options[label] = id;
  }
  c.Mesh.options(options);
  const canControl = panel.hello?.can_control !== false;
  const shaped = (b.InertiaFrom ?? 'given') !== 'given';
  for (const k of FROM_SHAPE) c[k].disable(!canControl || shaped);
}

/**
 * An upload accepted: say what it is and where to choose it.
 * @param {import('./panel.js').Panel} panel
 * @param {import('./meshupload.js').UploadedMesh} mesh
 */
export function uploaded(panel, mesh) {
  panel.errors.clear(panel.c.meshFile);
  const closed = mesh.watertight ? t('look.closed') : t('look.open_mesh', { edges: mesh.boundary_edges });
  say(panel, t('look.uploaded', { name: mesh.name, triangles: mesh.triangles, closed }));
  const b = panel.selectedSpec();
  if (b) refreshLook(panel, b);
}

/** A line under "Open file…" (the Look folder opened to show it). @param {import('./panel.js').Panel} panel @param {string} text */
export function say(panel, text) {
  if (!panel.uploadNote) return;
  panel.uploadNote.textContent = text;
  panel.c.meshFile.parent.open();
}
