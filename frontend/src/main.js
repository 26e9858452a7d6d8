// @ts-check
// Wires the parts together: connection → state buffer → bodies → one render loop; panel, keys
// and drag send inputs back. No physics here: the server owns the state.

import './style.css';
import { Vector3 } from 'three';
import { BodyView } from './body.js';
import { Connection } from './connection.js';
import { nedToThree, threeToNed } from './frames.js';
import { Arrow } from './glyphs.js';
import { Hud } from './hud.js';
import { DragPush, Keyboard } from './input.js';
import { PushPad } from './pad.js';
import { StateBuffer } from './interp.js';
import { MeshLibrary } from './meshes.js';
import { Panel } from './panel.js';
import { Plots } from './plots.js';
import { OVERLAYS, Teaching } from './teach.js';
import { BACKGROUND, Stage } from './scene.js';
import { Timeline } from './timeline.js';
import { Share } from './share.js';
import { Clip } from './clip.js';
import { mustGet } from './dom.js';
import { ARROW_COLORS } from './body.js';

const query = new URLSearchParams(window.location.search);
const room = query.get('room') || 'main';
const token = query.get('token');
const $ = (id) => document.getElementById(id);

const stage = new Stage(mustGet('scene', HTMLCanvasElement));
const library = new MeshLibrary();
const buffer = new StateBuffer();
const hud = new Hud($('hud'));
const plots = new Plots($('plot-grid'), $('plot-chooser'));
const views = new Map(); // body Name -> BodyView
const ghostViews = new Map(); // body Name -> the translucent BodyView of the ghost run
const show = { triad: true, velocity: true, trail: true };
let hello = null;
let lastState = null;
let lastScenarioName = null;
let pendingView = null; // the hello after which the view is reset (a new scenario arrived)
let helloCount = 0;
let reloading = false; // our load_scenario was acked: treat the next hello as a new scenario
let asking = false; // we loaded a preset paused: its caption asks the question first

const conn = new Connection({ room, token, onMessage: receive, onStatus: (s) => hud.connection(s) });
const timeline = new Timeline($('timeline'), {
  room,
  send: (msg, handlers) => conn.send(msg, handlers),
  onShow: showPast,
  onError: (text) => flash(text),
});

// ---------------------------------------------------------------- pushes (keys, held button, drag)

const pushes = { drag: null, pad: null, panel: null, keys: null };
function push(source, input, ctls = []) {
  if (conn.readOnly) return; // watching: nothing to push with
  pushes[source] = input;
  hud.pushes(Object.keys(pushes).filter((k) => pushes[k] !== null));
  const cur = pushes.drag ?? pushes.pad ?? pushes.panel ?? pushes.keys; // one push channel: the most direct wins
  const msg = {
    type: 'set_input',
    channel: 'push',
    frame: cur?.frame ?? 'global',
    Force: cur?.Force ?? [0, 0, 0],
    Moment: cur?.Moment ?? [0, 0, 0],
    point: cur?.point ?? null,
    ...(cur?.spring ? { spring: cur.spring } : {}),
  };
  if (ctls.length) panel.send(ctls, msg);
  else conn.send({ body: panel.bodyName ?? undefined, ...msg }, { onError: (e) => flash(e.message) });
}

const actions = {
  pause: () => conn.send({ type: 'pause' }),
  resume: () => conn.send({ type: 'resume' }),
  step: () => conn.send({ type: 'step', n: 1 }),
  reset: () => conn.send({ type: 'reset', state: null }),
  // A preset loads paused at t = 0 when it asks a question: the class predicts, then
  // "Show me" runs it (load keeps running/paused, so the pause goes first).
  loadPreset: (name, ctl) => {
    const asks = !!hello?.presets.find((p) => p.name === name)?.question;
    if (asks) conn.send({ type: 'pause' });
    panel.send([ctl], { type: 'load_scenario', preset: name }, () => {
      reloading = true;
      asking = asks;
    });
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
    setProjector(p.projector);
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
const panel = new Panel($('panel'), { conn, library, actions });
actions.show(panel.p);

/** Flip one display setting (a key), as its checkbox would. */
function toggleShow(key) {
  panel.p[key] = !panel.p[key];
  panel.c[key].updateDisplay();
  actions.show(panel.p);
}

/** The projector: large text, thick lines, high contrast, the panel out of the way. */
function setProjector(on) {
  document.body.classList.toggle('projector', on);
  stage.setProjector(on);
  teach.thick = on ? 1.8 : 1;
  if (on && !document.body.classList.contains('panel-closed')) {
    document.body.classList.add('panel-closed');
    document.body.classList.remove('panel-open');
  }
  fitCanvas();
}

/** The selected body's index in the scenario (a loop: the render loop allocates nothing). */
function selectedIndex() {
  const bodies = hello?.scenario.bodies ?? [];
  for (let k = 0; k < bodies.length; k++) if (bodies[k].Name === panel.bodyName) return k;
  return 0;
}
const selectedView = () => views.get(panel.bodyName) ?? views.values().next().value ?? null;
const selectedFrame = () => lastState?.bodies.find((b) => b.Name === panel.bodyName) ?? lastState?.bodies[0] ?? null;

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
    help: () => ($('help').hidden = !$('help').hidden),
    view: resetView,
    follow: () => setFollow(!stage.follow),
    overlay: (code) => {
      const entry = OVERLAYS.find(([, , c]) => c === code);
      if (entry) toggleShow(entry[0]);
    },
    projector: () => toggleShow('projector'),
    camera: (name) => actions.camera(name),
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
  push,
  drawArrow: (from, to) => {
    if (!from) return void (dragArrow.visible = false);
    const a = stage.ned.worldToLocal(from.clone());
    const d = stage.ned.worldToLocal(to.clone()).sub(a);
    dragArrow.radius = Math.max(0.008, 0.02 * (selectedView()?.extent() ?? 1));
    dragArrow.set(a, d.clone().normalize(), d.length());
  },
});

const pad = new PushPad({
  container: $('view'),
  stage,
  getBody: selectedView,
  getFrame: selectedFrame,
  getPanel: () => panel.p,
  push,
});

// ---------------------------------------------------------------- watching

/**
 * Watching (a server with a token, opened without it): every control that would need the
 * token is disabled, nothing is sent, no local drag is drawn, and a field takes a token.
 */
function setWatching(watching) {
  conn.readOnly = watching;
  $('watch').hidden = !watching;
  for (const id of ['btn-pause', 'btn-step', 'btn-reset', 'btn-pad']) {
    const el = /** @type {HTMLButtonElement} */ ($(id));
    el.disabled = watching;
    el.title = watching ? 'Watching: the lecturer controls this room' : el.dataset.title ?? el.title;
  }
  pad.setEnabled(!watching);
  timeline.setCanControl(!watching);
}
$('watch').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const given = /** @type {HTMLInputElement} */ ($('watch-token')).value.trim();
  if (!given) return;
  const url = new URL(window.location.href);
  url.searchParams.set('token', given);
  window.location.assign(url.toString()); // a new connection, with the token
});

// ---------------------------------------------------------------- messages

let flashTimer = null;
function flash(text) {
  hud.banner('server', text, 'error');
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => hud.banner('server', null), 6000);
}

function receive(msg) {
  if (msg.type === 'state') {
    lastState = msg;
    msg.gen = helloCount;
    buffer.push(msg, performance.now() / 1000);
    const body = selectedFrame();
    if (body) {
      body.GhostDiff = msg.ghost?.diff[selectedIndex()] ?? null;
      plots.push(msg.t, body);
    }
    timeline.status(msg.status, msg.t);
    if (!timeline.past) {
      teach.frame(body);
      hud.state(msg, body);
    }
    panel.setStatus(msg.status);
    const label = msg.status.running ? 'Pause' : 'Resume';
    if ($('btn-pause').textContent !== label) $('btn-pause').textContent = label;
  } else if (msg.type === 'hello') {
    onHello(msg);
  } else if (msg.type === 'error') {
    flash(msg.message || msg.code);
  }
}

function onHello(msg) {
  hello = msg;
  helloCount += 1;
  const names = msg.scenario.bodies.map((b) => b.Name);
  for (const [name, view] of views) {
    if (!names.includes(name)) {
      view.dispose();
      views.delete(name);
    }
  }
  for (const spec of msg.scenario.bodies) {
    if (!views.has(spec.Name)) views.set(spec.Name, new BodyView(stage.ned, library, BACKGROUND));
    views.get(spec.Name).setSpec(spec);
  }
  for (const [name, view] of ghostViews) {
    if (!names.includes(name)) {
      view.dispose();
      ghostViews.delete(name);
    } else view.setSpec(msg.scenario.bodies[names.indexOf(name)]);
  }
  const bodyName = names.includes(panel.bodyName) ? panel.bodyName : names[0];
  panel.fromHello(msg, bodyName);
  stage.setScale(selectedView()?.extent() ?? 1);
  const where = Object.assign(document.createElement('span'), { textContent: ` · room ${msg.room}${msg.can_control === false ? ' · watching' : ''}` });
  $('version').replaceChildren(`sixdof ${msg.version}`, where);
  setWatching(msg.can_control === false);
  checkLooks();
  checkQuaternions(msg);
  const name = msg.scenario.name;
  if (name !== lastScenarioName || reloading) {
    reloading = false;
    const preset = msg.presets.find((p) => p.name === name);
    hud.showCaption(preset?.title ?? name, preset?.caption || msg.scenario.caption, asking ? preset?.question : null);
    asking = false;
    if (lastScenarioName !== null) {
      for (const v of views.values()) v.trail.clear();
      plots.clear();
    }
    lastScenarioName = name;
    pendingView = helloCount; // reset the view once a frame sent after this hello is drawn
  }
  checkPresetChanged(msg);
  const v = selectedView();
  teach.restart(v, v?.spec, msg.presets.find((p) => p.name === msg.scenario.name && !msg.preset_modified));
}

/**
 * A preset's caption describes the preset's motion: once the room's physics differs from it
 * (the server compares, so a page joining a changed room sees it too), say so.
 * @param {import('./messages.gen.js').Hello} msg
 */
function checkPresetChanged(msg) {
  const changed = msg.preset != null && msg.preset_modified;
  hud.captionNote(changed ? 'Changed since the preset was loaded — Reload preset (Scenario) to go back.' : null);
}

/**
 * An initial Quater that is not unit is kept as given: say so (the norm term pulls |q| back
 * to 1 within a few hundredths of a second, which the plots then show).
 * @param {import('./messages.gen.js').Hello} msg
 */
function checkQuaternions(msg) {
  const off = msg.scenario.bodies
    .map((b) => [b.Name, Math.hypot(...(b.Quater ?? [1, 0, 0, 0]))])
    .filter(([, n]) => Math.abs(Number(n) - 1) > 1e-9)
    .map(([name, n]) => `${name}: |Quater| = ${Number(n).toPrecision(4)}`);
  const text = off.length ? `Initial quaternion not unit (${off.join(', ')}): kept as given, the norm term pulls it back to 1 (τ = 0.01 s).` : null;
  hud.banner('quater', text, 'info');
}

/** Warn about meshes and materials the catalogue does not know (they are drawn with a fallback). */
function checkLooks() {
  const problems = [];
  for (const [name, v] of views) {
    if (!v.status.meshKnown) problems.push(`${name}: Mesh "${v.status.mesh}" is not among the shipped meshes — drawn as a sphere.`);
    if (!v.status.materialKnown) problems.push(`${name}: Material "${v.status.material}" is neither a known material nor a CSS colour — drawn grey.`);
  }
  hud.banner('looks', problems.join(' '), 'warn');
  Promise.all([...views.values()].map((v) => v.loading)).then(() => {
    const failed = [...views].filter(([, v]) => v.status.error).map(([n, v]) => `${n}: ${v.status.error}`);
    if (failed.length) hud.banner('load', `Mesh not loaded — drawn as a sphere. ${failed.join(' ')}`, 'warn');
    else hud.banner('load', null);
  });
}

buffer.onDiscontinuity = () => {
  for (const v of views.values()) v.trail.clear();
  plots.clear();
  teach.discontinuity();
};
hud.onShowMe = () => actions.resume();

/**
 * A past frame from the timeline (re-simulated by the server), or null to go live: the view
 * draws it (the render loop), the HUD shows its values and the plots mark its time.
 */
function showPast(frame) {
  plots.setMarker(frame ? frame.t : null);
  for (const v of views.values()) v.trail.clear(); // the trail belongs to the live motion
  if (!frame) {
    hud.banner('past', null);
    return;
  }
  timeline.sample.gen = helloCount;
  const k = selectedIndex();
  const body = frame.bodies[k] ?? frame.bodies[0];
  if (lastState) hud.state({ ...frame, status: lastState.status }, body);
  hud.banner('past', `Showing the past: t = ${frame.t.toFixed(3)} s, re-simulated from the recording. The room runs on: Live returns to it.`, 'info');
}

/** The ghost run's bodies, translucent, where the server's ghost is (or none). */
function drawGhosts(ghost) {
  const specs = hello?.scenario.bodies ?? [];
  if (!ghost) {
    for (const v of ghostViews.values()) v.group.visible = false;
    return;
  }
  ghost.forEach((g, k) => {
    const spec = specs[k];
    if (!spec) return;
    let view = ghostViews.get(spec.Name);
    if (!view) {
      view = new BodyView(stage.ned, library, BACKGROUND, { ghost: true });
      view.setSpec(spec);
      ghostViews.set(spec.Name, view);
    }
    view.group.visible = true;
    view.update({ Pos: g.Pos, quat: g.quat, frame: { CGVel: [0, 0, 0] } }, show);
  });
}

// ---------------------------------------------------------------- view controls

function setFollow(on) {
  stage.follow = on;
  panel.p.follow = on;
  panel.c.follow.updateDisplay();
  $('btn-follow').classList.toggle('on', on);
  $('btn-follow').setAttribute('aria-pressed', String(on));
}

function resetView() {
  const v = selectedView();
  stage.resetView(v ? v.cg : new Vector3(), v ? v.extent() : 1);
}

function fitCanvas() {
  const el = $('view');
  stage.resize(el.clientWidth, el.clientHeight);
  plots.resize();
}
new ResizeObserver(fitCanvas).observe($('view'));
fitCanvas();

$('btn-pause').addEventListener('click', () => (panel.p.running ? actions.pause() : actions.resume()));
$('btn-step').addEventListener('click', actions.step);
$('btn-reset').addEventListener('click', actions.reset);
$('btn-follow').addEventListener('click', () => setFollow(!stage.follow));
$('btn-view').addEventListener('click', resetView);
$('btn-help').addEventListener('click', () => ($('help').hidden = !$('help').hidden));
$('btn-pad').addEventListener('click', () => {
  pad.show(!pad.shown);
  $('btn-pad').classList.toggle('on', pad.shown);
});
// once, not per Pad click: registered on each click, two clicks cancelled each other
document.querySelector('#caption .caption-title')?.addEventListener('click', () => $('caption').classList.toggle('expanded'));
$('btn-pad').classList.toggle('on', pad.shown);
$('help').addEventListener('click', () => ($('help').hidden = true));
function togglePanel() {
  const narrow = window.matchMedia('(max-width: 900px)').matches;
  document.body.classList.toggle(narrow ? 'panel-open' : 'panel-closed');
  const open = document.body.classList.contains('panel-open');
  $('sheet-handle').textContent = open ? 'Controls, presets ▾' : 'Controls, presets ▴';
  fitCanvas();
}
$('btn-panel').addEventListener('click', togglePanel);
$('sheet-handle').addEventListener('click', togglePanel);
$('btn-plots').addEventListener('click', () => {
  $('plots').hidden = !$('plots').hidden;
  $('btn-plots').classList.toggle('on', !$('plots').hidden);
  document.body.classList.toggle('plots-open', !$('plots').hidden); // a phone hides the caption then
  plots.sync();
  fitCanvas();
});
const csv = new URL(`api/rooms/${encodeURIComponent(room)}/history.csv`, window.location.href);
if (token) csv.searchParams.set('token', token);
/** @type {HTMLAnchorElement} */ ($('btn-csv')).href = csv.toString();
const share = new Share($('share'), { room, token, onError: (text) => flash(text) });
const clip = new Clip({ source: stage.renderer.domElement, $, onError: (text) => flash(text), onChange: clipChanged });
const clipForm = /** @type {HTMLFormElement} */ ($('clip').querySelector('form'));
const clipPart = (sel) => /** @type {any} */ (clipForm.querySelector(sel));
$('btn-clip').addEventListener('click', () => ($('clip').hidden = !$('clip').hidden));
clipPart('[data-act=close]').addEventListener('click', () => ($('clip').hidden = true));
clipPart('[data-act=stop]').addEventListener('click', () => clip.stop());
clipForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const data = new FormData(clipForm);
  const speed = Number(data.get('speed'));
  if (data.get('from') === 'past') {
    if (!timeline.past) return void flash('Record clip: pick a moment on the timeline first');
    const from = timeline.frame.t;
    clip.start();
    try {
      await timeline.play(from, timeline.now, speed);
    } catch (err) {
      flash(`Record clip: ${err.message}`);
    }
    clip.stop();
  } else {
    clip.start(Number(data.get('seconds')));
  }
});
function clipChanged(blob, recording) {
  clipPart('[data-act=start]').disabled = recording;
  clipPart('[data-act=stop]').disabled = !recording;
  clipPart('.clip-status').textContent = recording ? 'Recording…' : blob ? `${(blob.size / 1024).toFixed(0)} KB, ${clip.frames} frames` : '';
  $('btn-clip').classList.toggle('on', recording);
  const link = clipPart('.clip-download');
  const video = clipPart('.clip-preview');
  if (blob) {
    const url = URL.createObjectURL(blob);
    link.href = url;
    link.download = `sixdof-${room}-t${(lastState?.t ?? 0).toFixed(2)}.webm`;
    link.hidden = false;
    video.src = url;
    video.hidden = false;
  }
}
$('btn-share').addEventListener('click', () => share.toggle());
$('btn-shot').addEventListener('click', () => {
  const a = document.createElement('a');
  a.href = stage.screenshot();
  a.download = `sixdof-${room}-t${(lastState?.t ?? 0).toFixed(2)}.png`;
  a.click();
});
setFollow(true);

// ---------------------------------------------------------------- the render loop

let prev = null;
let lastFlush = 0;
let rendered = 0; // frames drawn so far
let drawnT = -1; // the simulated time of the pose drawn last
const frameMs = new Float64Array(600); // the last 600 render callbacks' durations (benchmarks read them)
let frameCount = 0;
stage.renderer.setAnimationLoop((time) => {
  const started = performance.now();
  const now = time / 1000;
  const dt = prev == null ? 0 : Math.min(0.1, now - prev);
  prev = now;
  const live = buffer.sample(dt);
  const sample = timeline.past ? timeline.sample : live;
  rendered += 1;
  if (sample) drawnT = sample.t;
  if (sample && hello) {
    sample.bodies.forEach((b, k) => views.get(b.frame.Name ?? hello.scenario.bodies[k]?.Name)?.update(b, show));
    drawGhosts(sample.ghost ?? null);
    const v = selectedView();
    if (v && pendingView !== null && sample.gen >= pendingView) {
      pendingView = null;
      resetView();
    }
    if (v) {
      stage.followTo(nedToThree([v.cg.x, v.cg.y, v.cg.z]), dt);
      if (stage.follow) stage.centreGround(v.cg);
      teach.drawOverlays(v, sample.bodies[selectedIndex()], time);
    }
  }
  if (now - lastFlush > 1 / 30) {
    lastFlush = now;
    for (const v of views.values()) v.trail.flush();
  }
  plots.draw(now);
  stage.render();
  clip.capture(); // right after the render, while the WebGL buffer holds this frame
  hud.tick(time);
  frameMs[frameCount++ % frameMs.length] = performance.now() - started;
});

// ---------------------------------------------------------------- test hook

/** @type {any} */ (window).__sixdof = {
  room,
  timeline,
  share,
  clip,
  /** The ghost bodies drawn: [{name, visible, Pos (NED)}]. */
  get ghosts() {
    return [...ghostViews].map(([name, v]) => ({ name, visible: v.group.visible, Pos: v.group.position.toArray() }));
  },
  get lastState() {
    return lastState;
  },
  get hello() {
    return hello;
  },
  get connected() {
    return conn.connected;
  },
  /** The type of every message the page has sent (a watcher sends none). */
  get sent() {
    return conn.sentTypes;
  },
  get fps() {
    return hud.fps;
  },
  /** The drag in progress: the grabbed point (body frame) and its target (NED), or null. */
  get drag() {
    const a = drag.active;
    return a ? { point: a.point, target: threeToNed(a.target), spring: a.spring ?? null } : null;
  },
  /** Frames rendered so far, and the simulated time of the pose drawn last (tests wait on these). */
  get rendered() {
    return rendered;
  },
  get drawnT() {
    return drawnT;
  },
  /** The durations (ms) of the last render callbacks, oldest first (at most 600). */
  frameTimes() {
    const n = Math.min(frameCount, frameMs.length);
    return Array.from({ length: n }, (_, k) => frameMs[(frameCount - n + k) % frameMs.length]);
  },
  get plotDraws() {
    return plots.draws;
  },
  /** How many hellos have arrived (each scenario or parameter change sends one). */
  get helloCount() {
    return helloCount;
  },
  /** Page coordinates (CSS px) of a body's CG as last drawn, or of `point` (body frame, m). */
  bodyScreenPosition(name, point) {
    const v = name ? views.get(name) : selectedView();
    if (!v) return null;
    if (point) return stage.toScreen(v.group.localToWorld(new Vector3(...point)));
    return stage.toScreen(nedToThree([v.cg.x, v.cg.y, v.cg.z]));
  },
  /** Page coordinates (CSS px) of a NED point [x, y, z] (m), or null behind the camera. */
  nedScreenPosition(ned) {
    return stage.toScreen(nedToThree(ned));
  },
  /** The drawn mesh's bounding box in the body frame (m) and what was loaded. */
  bodyBox(name) {
    const v = name ? views.get(name) : selectedView();
    return v ? { ...v.bodyBox(), ...v.status } : null;
  },
  send: (msg) => conn.send(msg),
  /** The y-axis labels of the plot of `channel` as last drawn (null if not plotted). */
  plotTicks: (channel) => plots.yLabels(channel),
  /** The simulated times [first, last] of the plot of `channel` as last drawn (null if not plotted). */
  plotSpan: (channel) => {
    const t = plots.charts.get(channel)?.data[0];
    return t && t.length ? [t[0], t[t.length - 1]] : null;
  },
  stage,
  /** The overlays as drawn: tests read the arrows and counters from here. */
  teach,
  setFollow,
  resetView,
};

library
  .init()
  .catch((err) => hud.banner('catalogue', `Mesh catalogue not loaded (${err.message}): bodies drawn as spheres.`, 'warn'))
  .finally(() => conn.connect());
