// @ts-check
// Wires the parts together: connection → state buffer → bodies → one render loop; panel, keys
// and drag send inputs back. No physics here: the server owns the state.

import './style.css';
import { num, presetText, t, translateDom } from './core/i18n.js';
import { Access } from './access/access.js';
import { errorText } from './net/errors.js';
import { Vector3 } from 'three';
import { ARROW_COLORS } from './view/body.js';
import { Connection } from './net/connection.js';
import { Arrow } from './view/glyphs.js';
import { Hud } from './view/hud.js';
import { DragPush, Keyboard } from './input/input.js';
import { PushPad } from './input/pad.js';
import { StateBuffer } from './net/interp.js';
import { MeshLibrary } from './view/meshes.js';
import { Panel } from './panel/panel.js';
import { Plots, twinDiff } from './panel/plots.js';
import { OVERLAYS, Teaching } from './teach/teach.js';
import { Stage } from './view/scene.js';
import { Timeline } from './record/timeline.js';
import { Share } from './panel/share.js';
import { mustGet, setText } from './core/dom.js';
import { newSession } from './net/session.js';
import { BodyViews } from './view/sync.js';
import { clipForm } from './record/clipform.js';
import { startRenderLoop } from './loop.js';
import { installTestHook } from './testhook.js';
import { Pushes } from './input/pushes.js';
import { Toolbar } from './panel/toolbar.js';
import { measureInsets } from './panel/insets.js';
import { Gyro } from './teach/gyro.js';
import { ElementViews } from './view/elements.js';
import { TargetMarkers } from './view/targets.js';
import { TargetDrag } from './input/targetdrag.js';
import { ElementPanel } from './panel/elementpanel.js';
import { StabilityView } from './teach/stability.js';
import { WaterView } from './view/water.js';
import { WaterPanel } from './panel/waterpanel.js';
import { BemPanel } from './panel/bempanel.js';
import { AnswerBox } from './view/answer.js';
import { ViewState, parseView } from './panel/viewstate.js';
import { MeshUpload } from './panel/meshupload.js';
import { say, uploaded } from './panel/lookpanel.js';

/** @typedef {import('./net/messages.gen.js').ServerMessage} ServerMessage */
/** @typedef {import('./net/messages.gen.js').Hello} Hello */

const query = new URLSearchParams(window.location.search);
const room = query.get('room') || 'main';
const token = query.get('token');
/** `?fps=N` (1-60): draw at most N frames a second; absent or invalid: every display frame */
const maxFps = Math.min(60, Math.max(0, Math.round(Number(query.get('fps')) || 0)));
/** @param {string} id */
const $ = (id) => mustGet(id, HTMLElement);

translateDom(); // the page's own texts in its language (i18n.js)
const session = newSession();
const stage = new Stage(mustGet('scene', HTMLCanvasElement));
const library = new MeshLibrary();
const buffer = new StateBuffer();
const hud = new Hud($('hud'));
const plots = new Plots($('plot-grid'), $('plot-chooser'));
const bodies = new BodyViews({ stage, library, hud });
const show = { triad: true, velocity: true, trail: true };

const conn = new Connection({ room, token, onMessage: receive, onStatus: (s) => hud.connection(s) });
const answerBox = new AnswerBox(mustGet('answer', HTMLFormElement), (msg, handlers) => conn.send(msg, handlers));
const timeline = new Timeline($('timeline'), { room, send: (msg, handlers) => conn.send(msg, handlers), onShow: showPast, onError: flash });

// ---------------------------------------------------------------- pushes (keys, held button, drag)

const pushes = new Pushes({
  readOnly: () => conn.readOnly,
  shown: (sources) => hud.pushes(sources),
  sendFor: (msg, ctls) => panel.send(ctls, msg),
  send: (msg) => conn.send({ ...msg, body: panel.bodyName ?? undefined }, { onError: (e) => flash(e.message) }),
});
/** @type {import('./input/pushes.js').Pushes['push']} */
const push = (source, input, ctls) => pushes.push(source, input, ctls);

/** @type {import('./panel/panel.js').PanelActions} */
const actions = {
  pause: () => conn.send({ type: 'pause' }),
  resume: () => conn.send({ type: 'resume' }),
  step: () => conn.send({ type: 'step', n: 1 }),
  reset: () => conn.send({ type: 'reset', state: null }),
  // A preset loads paused at t = 0 when it asks a question: the class predicts, then
  // "Show me" runs it (load keeps running/paused, so the pause goes first).
  loadPreset: (name, ctl) => {
    const asks = !!session.hello?.presets.find((p) => p.name === name)?.question;
    const wasRunning = panel.p.running;
    if (asks) conn.send({ type: 'pause' });
    // refused (a cold start still compiling, a preset too costly): the room runs on as it did
    const refused = () => asks && wasRunning && conn.send({ type: 'resume' });
    const loaded = () => Object.assign(session, { reloading: true, asking: asks });
    panel.send([ctl], { type: 'load_scenario', preset: name }, loaded, refused);
  },
  push,
  /** Start a ghost run with `changes` (GhostSettings), or end it (null). */
  ghost: (changes, ctl) => {
    panel.send([ctl], { type: 'set_ghost', changes }, () => {
      if (changes && !plots.chosen.has('Ghost')) plots.choose('Ghost', true);
    });
  },
  show: (p) => {
    Object.assign(show, { triad: p.triad, velocity: p.velocity, trail: p.trail });
    teach.set(p);
    stage.setWorldAxes(p.worldAxes);
    setFollow(p.follow);
    const projecting = document.body.classList.contains('projector');
    toolbar.setProjector(p.projector);
    if (projecting !== p.projector && session.hello) viewState.frame(); // the back row sees the body too
  },
  camera: (name) => {
    if (name === 'follow') {
      setFollow(true);
      return resetView();
    }
    const v = selectedView();
    stage.viewFrom(name, v ? v.cg : new Vector3(), v ? v.extent() : 1);
  },
};
const teach = new Teaching(stage.ned, { energy: $('energy'), flips: $('flips'), legend: $('fbd-legend') });
const stability = new StabilityView($('flips')); // eigenvalues of the axes, flip period (issue 31)
// a mesh file dropped on the view or opened from Look → Mesh: uploaded, then offered there
const upload = new MeshUpload({
  view: $('view'), token, library, readOnly: () => conn.readOnly,
  onUploaded: (mesh) => uploaded(panel, mesh),
  onError: (text) => (panel.errors.show(panel.c.meshFile, text), say(panel, ''), flash(text)),
  onBusy: (text) => say(panel, text),
}); // prettier-ignore
const panel = new Panel($('panel'), { conn, library, actions, upload });
// pivots, springs, dampers, the ground: drawn (their forces in the FBD) and listed in the panel
const elements = new ElementViews(stage.ned, teach.fbd);
teach.moreLabels = () => elements.labels(); // placed clear of the overlays' labels
const elementPanel = new ElementPanel(panel, {
  below: () => (selectedView()?.cg.z ?? 0) + 0.6 * (selectedView()?.extent() ?? 1),
  anchor: () => {
    const v = selectedView();
    if (!v) return null;
    const point = [0, 0, Math.round(v.bodyBox().min[2] * 1000) / 1000]; // the top of its mesh (NED z down)
    const world = new Vector3(...point).applyQuaternion(v.group.quaternion).add(v.group.position).toArray();
    return { point, world, size: Math.max(0.5, v.extent()) };
  },
});
// the water: its surface, current and waterline card (view/water.js), tuned in the panel (waterpanel.js)
const water = new WaterView(stage, $('view'));
const waterPanel = new WaterPanel(panel, elementPanel.folder.domElement);
// a BEM job for the floating body, and its radiation damping added (bempanel.js)
const bemPanel = new BemPanel(panel, waterPanel.folder, { room, token, view: $('view') });
// a PID's target: drawn, and dragged to a new one (a live element change, sent as the panel does)
const targets = new TargetMarkers(stage.ned);

/** Flip one display setting (a key), as its checkbox would. @param {string} key */
function toggleShow(key) {
  panel.p[key] = !panel.p[key];
  panel.c[key].updateDisplay();
  actions.show(panel.p);
}

/** The selected body's index in the scenario (a loop: the render loop allocates nothing). */
function selectedIndex() {
  const specs = session.hello?.scenario.bodies ?? [];
  for (let k = 0; k < specs.length; k++) if (specs[k].Name === panel.bodyName) return k;
  return 0;
}
const selectedView = () => bodies.get(panel.bodyName);
const selectedFrame = () => session.lastState?.bodies.find((b) => b.Name === panel.bodyName) ?? session.lastState?.bodies[0] ?? null;

new Keyboard({
  getBody: selectedView,
  getFrame: selectedFrame,
  getPanel: () => panel.p,
  push,
  commands: {
    togglePause: () => (panel.p.running ? actions.pause() : actions.resume()),
    // . steps the room while live, or one recorded frame forward while showing the past
    step: () => (timeline.past ? timeline.stepForward() : actions.step()),
    stepBack: () => timeline.stepBack(),
    reset: actions.reset,
    help: () => toolbar.toggleHelp(),
    view: () => resetView(),
    frame: () => viewState.frame(),
    follow: () => setFollow(!stage.follow),
    overlay: (/** @type {string} */ code) => {
      const entry = OVERLAYS.find(([, , c]) => c === code);
      if (entry) toggleShow(entry[0]);
    },
    projector: () => toggleShow('projector'),
    presets: () => {
      const narrow = window.matchMedia('(max-width: 900px)').matches;
      const closed = narrow ? !document.body.classList.contains('panel-open') : document.body.classList.contains('panel-closed');
      if (closed) $('btn-panel').click();
      panel.focusPreset();
    },
    camera: (/** @type {string} */ name) => actions.camera(name),
  },
});

const dragArrow = new Arrow(ARROW_COLORS.drag);
stage.ned.add(dragArrow);
const drag = new DragPush({
  canPush: () => !conn.readOnly,
  stage,
  container: $('view'),
  getView: selectedView,
  getFrame: selectedFrame,
  // any body can be grabbed (a link of a mechanism pulls the rest through its joints)
  getViews: () => bodies.views,
  select: (name) => panel.c.body.setValue(name),
  push,
  drawArrow: (/** @type {Vector3 | null} */ from, /** @type {Vector3} */ to) => {
    if (!from) return void (dragArrow.visible = false);
    const a = stage.ned.worldToLocal(from.clone());
    const d = stage.ned.worldToLocal(to.clone()).sub(a);
    dragArrow.radius = Math.max(0.008, 0.02 * (selectedView()?.extent() ?? 1));
    dragArrow.set(a, d.clone().normalize(), d.length());
  },
});
new TargetDrag({
  stage,
  container: $('view'),
  markers: targets,
  canDrag: () => !conn.readOnly,
  send: (k, pos) => {
    const list = elementPanel.copy();
    const e = /** @type {Record<string, any>} */ (list[k]);
    e.target = { ...e.target, Pos: pos };
    elementPanel.send(list, k);
  },
});
const pad = new PushPad({ container: $('view'), stage, getBody: selectedView, getFrame: selectedFrame, getPanel: () => panel.p, push: (_, input) => push('pad', input) });
const time = () => session.lastState?.t ?? 0;
// the scenario's view (its file's camera, follow, overlays, plots) or a Share link's
const viewState = new ViewState({ stage, bodies, panel, plots, setFollow: (on) => setFollow(on), showChanged: () => actions.show(panel.p), linked: parseView(query.get('view')) });
const share = new Share($('share'), { room, token, onError: flash, view: () => viewState.current() });
const toolbar = new Toolbar({ room, token, stage, plots, teach, panel, pad, timeline, conn, share, actions, view: viewState, time });
const setFollow = (/** @type {boolean} */ on) => toolbar.setFollow(on);
// the cards as they stand now: a new preset's caption and answer box change them in the
// frame that first draws it, before the observer in panel/toolbar.js hears of it
const resetView = () => {
  stage.setInsets(measureInsets($('view')));
  viewState.reset();
};
actions.show(panel.p);
// a gyroscope recording dropped or opened: fitted and plotted against the body (gyro.js)
const gyro = new Gyro({ view: $('view'), toolbar: $('toolbar'), room, token, bodyName: () => panel.bodyName, send: (msg, h) => conn.send(msg, h), readOnly: () => conn.readOnly });
const access = new Access({ panel, drag, stage, session, selectedView, selectedFrame, pushes });
const clip = clipForm({ source: stage.renderer.domElement, timeline, room, time, flash });
setFollow(true);

// ---------------------------------------------------------------- messages

/** @type {ReturnType<typeof setTimeout> | undefined} */
let flashTimer;
/** @param {string} text */
function flash(text) {
  hud.banner('server', text, 'error');
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => hud.banner('server', null), 6000);
}

/** A state frame came that the readouts do not show yet (`showState`). */
let stateUnshown = false;
const pauseButton = $('btn-pause');

/** Every message the server sends that no sender was waiting for. @param {ServerMessage} msg */
function receive(msg) {
  switch (msg.type) {
    case 'state': {
      // what counts or measures sees every frame (plots, flips, periods, the description);
      // the readouts are written once per frame of the render loop, with the newest (showState)
      const frame = Object.assign(msg, { gen: session.helloCount });
      session.lastState = frame;
      buffer.push(frame, performance.now() / 1000);
      const body = selectedFrame();
      // a ghost run's distance, or else the scenario's own ghost's (a body named Ghost<name>)
      if (body) plots.push(msg.t, Object.assign(body, { GhostDiff: msg.ghost?.diff[selectedIndex()] ?? twinDiff(msg.bodies, body) }));
      timeline.status(msg.status, msg.t);
      if (!timeline.past) {
        teach.frame(body, msg.bodies);
        stability.frame(msg.t, body);
      }
      panel.setStatus(msg.status); // writes only when running or the time scale changes
      access.frame(msg.t, msg.status, body);
      stateUnshown = true;
      break;
    }
    case 'hello':
      onHello(msg);
      break;
    case 'error':
      flash(errorText(msg));
      break;
    case 'ack':
      break; // acks go to their sender; one nobody waits for says nothing
    case 'preparing':
      hud.preparing(msg); // the server loads the physics first: the hello follows
      break;
    default: {
      /** @type {never} */
      const unknown = msg; // a server message this switch does not handle: tsc says which
      return unknown;
    }
  }
}

/** @param {Hello} msg */
function onHello(msg) {
  hud.preparing(null);
  session.hello = msg;
  session.helloCount += 1;
  bodies.fromHello(msg);
  const names = msg.scenario.bodies.map((b) => b.Name);
  const bodyName = panel.bodyName != null && names.includes(panel.bodyName) ? panel.bodyName : names[0];
  panel.fromHello(msg, bodyName);
  elements.setElements(msg.scenario.elements);
  targets.setElements(msg.scenario.elements, (name) => bodies.views.get(name)?.extent() ?? 1);
  elementPanel.fromHello(msg);
  water.fromHello(msg, bodyName);
  answerBox.fromHello(msg.question, msg.presets);
  waterPanel.fromHello(msg);
  bemPanel.fromHello();
  stage.setScale(selectedView()?.extent() ?? 1);
  const where = Object.assign(document.createElement('span'), { textContent: t('version.room', { room: msg.room }) + (msg.can_control === false ? t('version.watching') : '') });
  $('version').replaceChildren(`sixdof ${msg.version}`, where);
  toolbar.setWatching(msg.can_control === false);
  const name = msg.scenario.name;
  if (name !== session.lastScenarioName || session.reloading) {
    session.reloading = false;
    const preset = msg.presets.find((p) => p.name === name);
    hud.showCaption(preset ? presetText(preset, 'title') : name, (preset && presetText(preset, 'caption')) || msg.scenario.caption, session.asking && preset ? presetText(preset, 'question') : null);
    session.asking = false;
    if (session.lastScenarioName !== null) {
      bodies.clearTrails();
      plots.clear();
    }
    session.lastScenarioName = name;
    viewState.load(msg.scenario.view);
    session.pendingView = session.helloCount; // reset the view once a frame sent after this hello is drawn
  }
  // a preset's caption describes the preset's motion: once the room's physics differs from it
  // (the server compares, so a page joining a changed room sees it too), say so
  hud.captionNote(msg.preset != null && msg.preset_modified ? t('caption.changed') : null);
  const v = selectedView();
  const preset = msg.presets.find((p) => p.name === msg.scenario.name && !msg.preset_modified);
  teach.restart(v, v?.spec, preset);
  stability.restart(v?.spec, preset);
  access.hello(msg);
}

buffer.onDiscontinuity = () => {
  bodies.clearTrails();
  plots.clear();
  teach.discontinuity();
  stability.discontinuity();
};
hud.onShowMe = () => actions.resume();

/**
 * A past frame from the timeline (re-simulated by the server), or null to go live: the view
 * draws it (the render loop), the HUD shows its values and the plots mark its time.
 * @param {import('./record/timeline.js').PastFrame | null} frame
 */
function showPast(frame) {
  plots.setMarker(frame ? frame.t : null);
  bodies.clearTrails(); // the trail belongs to the live motion
  if (!frame) return void hud.banner('past', null);
  timeline.sample.gen = session.helloCount;
  const body = frame.bodies[selectedIndex()] ?? frame.bodies[0];
  if (session.lastState) hud.state({ ...frame, status: session.lastState.status }, body);
  hud.banner('past', t('past.banner', { t: num(frame.t, 3) }), 'info');
}

/**
 * Once per frame of the render loop: the HUD, the timeline and the pause button show the
 * newest state frame, if one came since. The server sends 60 a second; writing the page for
 * each made the browser restyle, lay out and composite it 60 times a second, whatever `?fps=`.
 */
function showState() {
  const msg = session.lastState;
  if (!stateUnshown || !msg) return;
  stateUnshown = false;
  timeline.flush();
  if (!timeline.past) hud.state(msg, selectedFrame());
  hud.shape(selectedView()?.spec); // whether Mass and Inertia follow the shape (Look)
  setText(pauseButton, t(msg.status.running ? 'toolbar.pause' : 'toolbar.resume'));
}

const stats = startRenderLoop({ stage, buffer, timeline, bodies, session, show, teach, plots, hud, clip, elements, water, selectedView, selectedIndex, resetView, showState, maxFps });
installTestHook({ room, session, viewState, conn, timeline, share, clip, gyro, hydro: bemPanel.card, upload, describer: access.describer, elements, targets, water, hud, plots, stage, teach, bodies, drag, stats, selectedView, setFollow, resetView });

library
  .init()
  .catch((err) => hud.banner('catalogue', t('banner.catalogue', { error: err.message }), 'warn'))
  .finally(() => conn.connect());
