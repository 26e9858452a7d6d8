// @ts-check
// The page's chrome around the view: the toolbar buttons, the camera (follow, reset, fit to the
// window), the projector mode, the panel's sheet and watching (no token: the controls that would
// need one disabled, and a field that takes one).

import { measureInsets } from './insets.js';
import { mustGet } from '../core/dom.js';
import { t } from '../core/i18n.js';

/** @param {string} id */
const $ = (id) => mustGet(id, HTMLElement);

export class Toolbar {
  /**
   * @param {object} d
   * @param {string} d.room
   * @param {string | null} d.token
   * @param {import('../view/scene.js').Stage} d.stage
   * @param {import('./plots.js').Plots} d.plots
   * @param {import('../teach/teach.js').Teaching} d.teach
   * @param {import('./panel.js').Panel} d.panel
   * @param {import('../input/pad.js').PushPad} d.pad
   * @param {import('../record/timeline.js').Timeline} d.timeline
   * @param {import('../net/connection.js').Connection} d.conn
   * @param {import('./share.js').Share} d.share
   * @param {import('./panel.js').PanelActions} d.actions
   * @param {import('./viewstate.js').ViewState} d.view  the camera: reset and framed
   * @param {() => number} d.time  the simulated time shown (names the screenshot)
   */
  constructor(d) {
    this.d = d;
    const { stage, plots, pad, actions } = d;
    const fit = () => this.fitCanvas();
    new ResizeObserver(fit).observe($('view'));
    // on a phone the toolbar wraps into as many rows as its labels need (longer in German):
    // what sits above it (timeline, caption, pad, energy) is placed by its height
    const heights = new ResizeObserver(() => {
      const body = document.body.style;
      body.setProperty('--toolbar-h', `${$('toolbar').offsetHeight}px`);
      body.setProperty('--toolbar-w', `${$('toolbar').offsetWidth}px`); // the caption stays left of it
      // a phone stacks the water card under the HUD, the pad and caption above the energy strip
      body.setProperty('--hud-h', `${$('hud').offsetHeight}px`);
      body.setProperty('--corner-h', `${$('corner').offsetHeight}px`);
      const energy = $('energy').offsetHeight;
      body.setProperty('--energy-h', `${energy ? energy + 4 : 0}px`);
      body.setProperty('--top-h', `${$('top').offsetHeight}px`);
    });
    for (const id of ['toolbar', 'hud', 'corner', 'energy', 'top']) heights.observe($(id));
    // the cards over the view: the picture's centre moves clear of them (panel/insets.js)
    const cards = new ResizeObserver(() => stage.setInsets(measureInsets($('view'))));
    for (const id of ['hud', 'top', 'timeline', 'energy', 'flips', 'toolbar', 'view', 'corner', 'pad', 'water-card']) cards.observe($(id));
    fit();
    const togglePanel = () => {
      const narrow = window.matchMedia('(max-width: 900px)').matches;
      document.body.classList.toggle(narrow ? 'panel-open' : 'panel-closed');
      const open = document.body.classList.contains('panel-open');
      $('sheet-handle').textContent = t(open ? 'sheet.close' : 'sheet.open');
      $('sheet-handle').setAttribute('aria-expanded', String(open));
      fit();
    };
    /** @type {Record<string, () => void>} button id -> what it does */
    const buttons = {
      'btn-pause': () => (d.panel.p.running ? actions.pause() : actions.resume()),
      'btn-step': actions.step,
      'btn-reset': actions.reset,
      'btn-follow': () => this.setFollow(!stage.follow),
      'btn-view': () => d.view.reset(),
      'btn-frame': () => d.view.frame(),
      'btn-help': () => this.toggleHelp(),
      'btn-pad': () => {
        pad.show(!pad.shown);
        $('btn-pad').classList.toggle('on', pad.shown);
      },
      'btn-panel': togglePanel,
      'sheet-handle': togglePanel,
      'btn-plots': () => {
        $('plots').hidden = !$('plots').hidden;
        $('btn-plots').classList.toggle('on', !$('plots').hidden);
        document.body.classList.toggle('plots-open', !$('plots').hidden); // a phone hides the caption then
        plots.sync();
        fit();
      },
      'btn-share': () => d.share.toggle(),
      'btn-shot': () => {
        const a = document.createElement('a');
        a.href = stage.screenshot();
        a.download = `sixdof-${d.room}-t${d.time().toFixed(2)}.png`; // a file name: not translated
        a.click();
      },
    };
    for (const [id, act] of Object.entries(buttons)) $(id).addEventListener('click', act);
    // once, not per Pad click: registered on each click, two clicks cancelled each other
    document.querySelector('#caption .caption-title')?.addEventListener('click', () => $('caption').classList.toggle('expanded'));
    $('btn-pad').classList.toggle('on', pad.shown);
    $('help').addEventListener('click', () => ($('help').hidden = true));
    const csv = new URL(`api/rooms/${encodeURIComponent(d.room)}/history.csv`, window.location.href);
    if (d.token) csv.searchParams.set('token', d.token);
    mustGet('btn-csv', HTMLAnchorElement).href = csv.toString();
    $('watch').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const given = mustGet('watch-token', HTMLInputElement).value.trim();
      if (!given) return;
      const url = new URL(window.location.href);
      url.searchParams.set('token', given);
      window.location.assign(url.toString()); // a new connection, with the token
    });
  }

  toggleHelp() {
    $('help').hidden = !$('help').hidden;
  }

  /** @param {boolean} on */
  setFollow(on) {
    this.d.stage.follow = on;
    this.d.panel.p.follow = on;
    this.d.panel.c.follow.updateDisplay();
    $('btn-follow').classList.toggle('on', on);
    $('btn-follow').setAttribute('aria-pressed', String(on));
  }

  fitCanvas() {
    const el = $('view');
    this.d.stage.resize(el.clientWidth, el.clientHeight);
    this.d.plots.resize();
  }

  /** The projector: large text, thick lines, high contrast, the panel out of the way. @param {boolean} on */
  setProjector(on) {
    document.body.classList.toggle('projector', on);
    this.d.stage.setProjector(on);
    this.d.teach.thick = on ? 1.8 : 1;
    if (on && !document.body.classList.contains('panel-closed')) {
      document.body.classList.add('panel-closed');
      document.body.classList.remove('panel-open');
    }
    this.fitCanvas();
  }

  /**
   * Watching (a server with a token, opened without it): every control that would need the
   * token is disabled, nothing is sent, no local drag is drawn, and a field takes a token.
   * @param {boolean} watching
   */
  setWatching(watching) {
    this.d.conn.readOnly = watching;
    $('watch').hidden = !watching;
    for (const id of ['btn-pause', 'btn-step', 'btn-reset', 'btn-pad']) {
      const el = mustGet(id, HTMLButtonElement);
      el.disabled = watching;
      el.title = watching ? t('watch.title') : (el.dataset.title ?? el.title);
    }
    this.d.pad.setEnabled(!watching);
    this.d.timeline.setCanControl(!watching);
  }
}
