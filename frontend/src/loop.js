// @ts-check
// The render loop: one callback per display frame poses the newest interpolated sample (or the
// past frame the timeline shows), moves the camera with the body, updates the overlays, the plots
// and the HUD (the readouts of the newest state frame too), then draws the view only if it would
// differ from the frame drawn last (view/watch.js: a paused page draws nothing), and feeds the
// clip recorder. It counts its callbacks and what it draws: the tests wait on them.

import { nedToThree } from './core/frames.js';

/** @param {import('./view/sync.js').BodyViews} bodies */
function* meshesOf(bodies) {
  for (const v of bodies.views.values()) yield v.mesh;
}

/**
 * @param {object} d
 * @param {import('./view/scene.js').Stage} d.stage
 * @param {import('./net/interp.js').StateBuffer} d.buffer
 * @param {import('./record/timeline.js').Timeline} d.timeline
 * @param {import('./view/sync.js').BodyViews} d.bodies
 * @param {import('./net/session.js').Session} d.session
 * @param {{triad: boolean, velocity: boolean, trail: boolean}} d.show
 * @param {import('./teach/teach.js').Teaching} d.teach
 * @param {import('./panel/plots.js').Plots} d.plots
 * @param {import('./view/hud.js').Hud} d.hud
 * @param {import('./record/clip.js').Clip} d.clip
 * @param {import('./view/elements.js').ElementViews} d.elements
 * @param {import('./view/water.js').WaterView} d.water
 * @param {() => import('./view/body.js').BodyView | null} d.selectedView
 * @param {() => number} d.selectedIndex
 * @param {() => void} d.resetView
 * @param {() => void} d.showState  the text readouts of the newest state frame (main.js)
 * @param {number} [d.maxFps]  draw at most this many frames a second (`?fps=`); 0: every display frame
 */
export function startRenderLoop(d) {
  const { stage, buffer, timeline, bodies, session, teach } = d;
  /** @type {number | null} */
  let prev = null;
  let lastFlush = 0;
  const frameMs = new Float64Array(600); // the last 600 drawn frames' callbacks' durations (benchmarks read them)
  const stats = {
    ticks: 0, // callbacks so far: all that changed before one is drawn when it returns
    rendered: 0, // frames drawn so far
    drawnT: -1, // the simulated time of the pose shown (drawn last, or unchanged since)
    frameCount: 0,
    /** The durations (ms) of the last drawn frames' callbacks, oldest first (at most 600). */
    frameTimes() {
      const n = Math.min(stats.frameCount, frameMs.length);
      return Array.from({ length: n }, (_, k) => frameMs[(stats.frameCount - n + k) % frameMs.length]);
    },
  };
  // `?fps=20` on a phone on battery or a software-rendered browser: the same picture, drawn
  // less often (a frame is skipped when less than its share of a second has passed, with
  // 2 ms of slack for the jitter of the display's frame times)
  const minGapMs = d.maxFps ? 1000 / d.maxFps - 2 : 0;
  let lastDrawnMs = -Infinity;
  /** @param {number} time  the display frame's, ms */
  const frame = (time) => {
    if (time - lastDrawnMs < minGapMs) return;
    lastDrawnMs = time;
    const started = performance.now();
    const now = time / 1000;
    const dt = prev == null ? 0 : Math.min(0.1, now - prev);
    prev = now;
    const live = buffer.sample(dt);
    const sample = timeline.past ? timeline.sample : live;
    const hello = session.hello;
    if (sample) stats.drawnT = sample.t;
    if (sample && hello) {
      sample.bodies.forEach((b, k) => bodies.views.get(b.frame.Name ?? hello.scenario.bodies[k]?.Name)?.update(b, d.show));
      bodies.drawGhosts(sample.ghost ?? null, d.show);
      const v = d.selectedView();
      d.elements.draw(bodies.views, sample.elements, v); // before the overlays: the FBD draws their forces
      // framing measures the meshes: one whose file is still loading would frame its stand-in
      // (under load, the tennis racket framed as a sphere covered 11 % of a phone's height)
      const posed = [...bodies.views.values()].every((b) => b.status.loaded);
      if (v && posed && session.pendingView !== null && sample.gen >= session.pendingView) {
        session.pendingView = null;
        d.resetView();
      }
      if (v) {
        stage.followTo(nedToThree([v.cg.x, v.cg.y, v.cg.z]), dt);
        if (stage.follow) stage.centreGround(v.cg);
        d.water.draw(sample.t, v, sample.bodies[d.selectedIndex()], time); // before the FBD: it asks where B is
        teach.drawOverlays(v, sample.bodies[d.selectedIndex()], time);
        // on the screen as the camera stands (a moving orbit's damping step lags a frame)
        teach.placeLabels(stage.camera, meshesOf(bodies), stage.canvas.clientWidth, stage.canvas.clientHeight, stage.insets);
      } else d.water.draw(sample.t, null, null, time); // at the drawn frame's simulated time
    }
    if (now - lastFlush > 1 / 30) {
      lastFlush = now;
      for (const v of bodies.views.values()) v.trail.flush();
    }
    d.plots.draw(now);
    // a clip being recorded copies the view every frame: it needs the WebGL buffer drawn
    const drew = stage.render(d.clip.recording);
    if (drew) d.clip.capture(); // right after the render, while the WebGL buffer holds this frame
    d.showState(); // the page's texts change at most once per frame of this loop
    d.hud.tick(time);
    stats.ticks += 1;
    if (!drew) return;
    stats.rendered += 1;
    frameMs[stats.frameCount++ % frameMs.length] = performance.now() - started;
  };
  if (!minGapMs) stage.renderer.setAnimationLoop(frame);
  else {
    // a display frame asked for and skipped still wakes the page and has the browser run a
    // main frame: wait out most of the gap on a timer, then take the next display frame
    /** @param {number} time */
    const next = (time) => {
      try {
        frame(time);
      } finally {
        setTimeout(() => requestAnimationFrame(next), Math.max(0, lastDrawnMs + minGapMs - performance.now() - 10));
      }
    };
    requestAnimationFrame(next);
  }
  return stats;
}
