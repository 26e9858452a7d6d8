// @ts-check
// window.__sixdof: what the browser tests (tests/browser/) and the benchmarks read of the page
// and the few things they do to it. Read-only views of the page's parts; nothing here is used
// by the page itself.

import { Vector3 } from 'three';
import { nedToThree, threeToNed } from './core/frames.js';
import { qrEncode } from './panel/share.js';

/**
 * @param {object} d
 * @param {string} d.room
 * @param {import('./net/session.js').Session} d.session
 * @param {import('./net/connection.js').Connection} d.conn
 * @param {import('./record/timeline.js').Timeline} d.timeline
 * @param {import('./panel/share.js').Share} d.share
 * @param {import('./record/clip.js').Clip} d.clip
 * @param {import('./view/elements.js').ElementViews} d.elements
 * @param {import('./view/targets.js').TargetMarkers} d.targets
 * @param {import('./view/water.js').WaterView} d.water
 * @param {import('./teach/gyro.js').Gyro} d.gyro
 * @param {import('./panel/hydrocard.js').HydroCard} d.hydro
 * @param {import('./panel/meshupload.js').MeshUpload} d.upload
 * @param {import('./access/describe.js').Describer} d.describer
 * @param {import('./view/hud.js').Hud} d.hud
 * @param {import('./panel/plots.js').Plots} d.plots
 * @param {import('./view/scene.js').Stage} d.stage
 * @param {import('./teach/teach.js').Teaching} d.teach
 * @param {import('./view/sync.js').BodyViews} d.bodies
 * @param {import('./input/input.js').DragPush} d.drag
 * @param {{ticks: number, rendered: number, drawnT: number, frameTimes: () => number[]}} d.stats  the render loop's
 * @param {() => import('./view/body.js').BodyView | null} d.selectedView
 * @param {(on: boolean) => void} d.setFollow
 * @param {() => void} d.resetView
 * @param {import('./panel/viewstate.js').ViewState} d.viewState
 */
export function installTestHook(d) {
  const { session, conn, stage, bodies } = d;
  /** @param {string | undefined} name */
  const viewOf = (name) => (name ? (bodies.views.get(name) ?? null) : d.selectedView());
  /** @type {any} */ (window).__sixdof = {
    room: d.room,
    timeline: d.timeline,
    share: d.share,
    /** The library's QR code of `text` (modules, margin), to compare with the one drawn. */
    qrEncode,
    clip: d.clip,
    gyro: d.gyro,
    hydro: d.hydro,
    /** Look → Mesh's uploads (`last`: the server's answer for the last one accepted). */
    upload: d.upload,
    /** The live description (its pace, `gapMs`, is what the tests may shorten). */
    describer: d.describer,
    /** The scenario's elements as drawn (elements.js). */
    elements: () => d.elements.describe(),
    /** The PID targets' markers as drawn (view/targets.js). */
    targets: () => d.targets.describe(),
    /** The water as drawn: the time, the patch, the surface vertex nearest NED (x, y), the card (view/water.js). */
    water: (/** @type {number} */ x, /** @type {number} */ y) => d.water.describe(x, y),
    /** Show or hide the water (the tests compare the pixels with and without it). @param {boolean} on */
    showWater: (on) => void (d.water.group.visible = on),
    /** The ghost bodies drawn: [{name, visible, Pos (NED)}]. */
    get ghosts() {
      return [...bodies.ghosts].map(([name, v]) => ({ name, visible: v.group.visible, Pos: v.group.position.toArray() }));
    },
    get lastState() {
      return session.lastState;
    },
    get hello() {
      return session.hello;
    },
    get connected() {
      return conn.connected;
    },
    /** The type of every message the page has sent (a watcher sends none). */
    get sent() {
      return conn.sentTypes;
    },
    get fps() {
      return d.hud.fps;
    },
    /** The drag in progress: the grabbed point (body frame) and its target (NED), or null. */
    get drag() {
      const a = d.drag.active;
      return a ? { point: a.point, target: threeToNed(a.target), spring: a.spring ?? null } : null;
    },
    /**
     * The render loop's callbacks so far (when one returns, all that changed before it is
     * drawn), the frames drawn so far (only those whose picture changed), and the simulated
     * time of the pose shown: the tests wait on these.
     */
    get ticks() {
      return d.stats.ticks;
    },
    get rendered() {
      return d.stats.rendered;
    },
    get drawnT() {
      return d.stats.drawnT;
    },
    /** The durations (ms) of the last drawn frames' callbacks, oldest first (at most 600). */
    frameTimes: () => d.stats.frameTimes(),
    get plotDraws() {
      return d.plots.draws;
    },
    /** How many hellos have arrived (each scenario or parameter change sends one). */
    get helloCount() {
      return session.helloCount;
    },
    /** The hello after which the view is reset (null: done, the camera is where it was put). */
    /** The plot channels chosen, in no order. */
    get plotsChosen() {
      return [...d.plots.chosen];
    },
    /** Choose a plot channel or not, as its checkbox would. @param {string} key @param {boolean} on */
    plotsChoose: (key, on) => d.plots.choose(key, on),
    get pendingView() {
      return session.pendingView;
    },
    /** Every body's drawn mesh, by name (the framing tests project their bounding boxes). */
    get meshes() {
      return Object.fromEntries([...bodies.views].map(([name, v]) => [name, v.mesh]));
    },
    /**
     * Page coordinates (CSS px) of a body's CG as last drawn, or of `point` (body frame, m).
     * @param {string} [name] @param {number[]} [point]
     */
    bodyScreenPosition(name, point) {
      const v = viewOf(name);
      if (!v) return null;
      if (point) return stage.toScreen(v.group.localToWorld(new Vector3(point[0], point[1], point[2])));
      return stage.toScreen(nedToThree([v.cg.x, v.cg.y, v.cg.z]));
    },
    /** Page coordinates (CSS px) of a NED point [x, y, z] (m), or null behind the camera. @param {number[]} ned */
    nedScreenPosition: (ned) => stage.toScreen(nedToThree(ned)),
    /** The drawn mesh's bounding box in the body frame (m) and what was loaded. @param {string} [name] */
    bodyBox(name) {
      const v = viewOf(name);
      return v ? { ...v.bodyBox(), ...v.status } : null;
    },
    /** Send any message, as the page would (tests send malformed ones on purpose). @param {any} msg */
    send: (msg) => conn.send(msg),
    /** The y-axis labels of the plot of `channel` as last drawn (null if not plotted). @param {string} channel */
    plotTicks: (channel) => d.plots.yLabels(channel),
    /** The newest sample fed to the plot of `channel`: [t, ...series] (null: none yet). @param {string} channel */
    plotLast: (channel) => {
      const ring = d.plots.rings[channel];
      return ring && ring.n ? ring.slice(1).map((a) => a[0]) : null;
    },
    /** The simulated times [first, last] of the plot of `channel` as last drawn (null if not plotted). @param {string} channel */
    plotSpan: (channel) => {
      const t = d.plots.charts.get(channel)?.data[0];
      return t && t.length ? [t[0], t[t.length - 1]] : null;
    },
    stage,
    /** The overlays as drawn: tests read the arrows and counters from here. */
    teach: d.teach,
    setFollow: d.setFollow,
    resetView: d.resetView,
    /** The scenario's view (camera, follow, overlays, plots): `current()` is what a Share link carries. */
    view: d.viewState,
  };
}
