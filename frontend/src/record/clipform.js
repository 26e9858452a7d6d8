// @ts-check
// The Record clip dialog: live for some seconds, or the timeline played from the moment shown;
// the clip is offered for download and previewed when it is done.

import { Clip } from './clip.js';
import { mustFind, mustGet } from '../core/dom.js';
import { num, t } from '../core/i18n.js';

/**
 * Wire the #clip dialog and its toolbar button; returns the Clip (the render loop captures
 * into it, the tests read it).
 * @param {object} opts
 * @param {HTMLCanvasElement} opts.source  the WebGL canvas
 * @param {import('./timeline.js').Timeline} opts.timeline
 * @param {string} opts.room
 * @param {() => number} opts.time  the simulated time shown (names the file)
 * @param {(text: string) => void} opts.flash
 */
export function clipForm({ source, timeline, room, time, flash }) {
  const dialog = mustGet('clip', HTMLElement);
  const button = mustGet('btn-clip', HTMLElement);
  const form = mustFind(dialog, 'form', HTMLFormElement);
  const start = mustFind(form, '[data-act=start]', HTMLButtonElement);
  const stop = mustFind(form, '[data-act=stop]', HTMLButtonElement);
  const status = mustFind(form, '.clip-status', HTMLElement);
  const link = mustFind(form, '.clip-download', HTMLAnchorElement);
  const video = mustFind(form, '.clip-preview', HTMLVideoElement);

  /** @param {Blob | null} blob @param {boolean} recording */
  const changed = (blob, recording) => {
    start.disabled = recording;
    stop.disabled = !recording;
    status.textContent = recording ? t('clip.recording') : blob ? t('clip.done', { kb: num(blob.size / 1024, 0), frames: clip.frames }) : '';
    button.classList.toggle('on', recording);
    if (blob) {
      const url = URL.createObjectURL(blob);
      link.href = url;
      link.download = `sixdof-${room}-t${time().toFixed(2)}.webm`;
      link.hidden = false;
      video.src = url;
      video.hidden = false;
    } else if (!recording) {
      link.hidden = true; // ended without video (clip.empty): not the clip before it
      video.hidden = true;
    }
  };
  const clip = new Clip({ source, $: (id) => document.getElementById(id), onError: flash, onChange: changed });

  button.addEventListener('click', () => (dialog.hidden = !dialog.hidden));
  mustFind(form, '[data-act=close]', HTMLElement).addEventListener('click', () => (dialog.hidden = true));
  stop.addEventListener('click', () => clip.stop());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const speed = Number(data.get('speed'));
    if (data.get('from') === 'past') {
      if (!timeline.past || !timeline.frame) return void flash(t('clip.pick'));
      const from = timeline.frame.t;
      clip.start();
      try {
        await timeline.play(from, timeline.now, speed);
      } catch (err) {
        flash(t('clip.failed', { error: err instanceof Error ? err.message : String(err) }));
      }
      clip.stop();
    } else {
      clip.start(Number(data.get('seconds')));
    }
  });
  return clip;
}
