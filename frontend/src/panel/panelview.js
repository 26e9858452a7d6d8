// @ts-check
// The panel's folders that change only this page, never the room: Show (the teaching
// overlays), Camera and Access (contrast, sound, spoken description, the keyboard grab).
// A watcher may use them too. Access's controllers do nothing by themselves: access.js wires
// them (panel.c.lang, .contrast, .sound, .speak, .grab, .release, .summary).

import { OVERLAYS } from '../teach/teach.js';
import { LANGUAGES, lang, t } from '../core/i18n.js';

/** Controls that change only what this page draws: enabled for a watcher too. */
export const DISPLAY_ONLY = new Set([...OVERLAYS.map(([key]) => key), 'velocity', 'trail', 'follow', 'projector', 'body',
  'cam_top', 'cam_side', 'cam_front', 'cam_follow', 'contrast', 'sound', 'speak', 'summary', 'lang']); // prettier-ignore (the grab pushes: not for a watcher)

/** @param {import('./panel.js').Panel} panel */
export function addViewFolders(panel) {
  const { gui, c, p } = panel;
  const fshow = gui.addFolder(t('panel.show'));
  for (const [key, , code] of OVERLAYS) {
    c[key] = fshow.add(p, key).name(t(`overlay.${key}`));
    c[key].domElement.title = t('panel.key', { key: code.replace('Digit', '') });
  }
  c.velocity = fshow.add(p, 'velocity').name(t('panel.velocity'));
  c.trail = fshow.add(p, 'trail').name(t('panel.trail'));
  const fcam = gui.addFolder(t('panel.camera'));
  for (const name of ['top', 'side', 'front', 'follow']) {
    c[`cam_${name}`] = fcam.add({ go: () => panel.actions.camera(name) }, 'go').name(t(`panel.cam.${name}`));
  }
  c.follow = fcam.add(p, 'follow').name(t('panel.follow'));
  c.projector = fcam.add(p, 'projector').name(t('panel.projector'));
  // (not Body: its own onChange selects the body, and a controller has one onChange)
  for (const k of [...DISPLAY_ONLY].filter((x) => x in p && x !== 'body')) c[k].onChange(() => panel.actions.show(panel.p));

  const fa = gui.addFolder(t('access.folder'));
  Object.assign(p, { contrast: false, sound: false, speak: true, lang });
  c.lang = fa.add(p, 'lang', Object.fromEntries(LANGUAGES.map((l) => [l.name, l.code]))).name(t('lang.picker'));
  c.contrast = fa.add(p, 'contrast').name(t('access.contrast'));
  c.sound = fa.add(p, 'sound').name(t('access.sound'));
  c.speak = fa.add(p, 'speak').name(t('access.describe'));
  c.summary = fa.add({ go: () => {} }, 'go').name(t('access.summary'));
  c.grab = fa.add({ go: () => {} }, 'go').name(t('access.grab'));
  c.release = fa.add({ go: () => {} }, 'go').name(t('access.release'));
  fa.close();
}
