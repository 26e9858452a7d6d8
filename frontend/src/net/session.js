// @ts-check
// What the page knows of its session: the last hello and state frame, and the little that
// follows a scenario change. One object, read and written by main.js and sync.js, so the rest of
// the page never keeps its own copy.

/**
 * @typedef {object} Session
 * @property {import('./messages.gen.js').Hello | null} hello  the last hello
 * @property {import('./interp.js').StateFrame | null} lastState  the last state frame (tests read it)
 * @property {number} helloCount  how many hellos have arrived (a frame carries the count it was sent after)
 * @property {string | null} lastScenarioName  the scenario of the last hello
 * @property {number | null} pendingView  the hello after which the view is reset (a new scenario arrived)
 * @property {boolean} reloading  our load_scenario was acked: treat the next hello as a new scenario
 * @property {boolean} asking  we loaded a preset paused: its caption asks the question first
 */

/** @returns {Session} */
export function newSession() {
  return { hello: null, lastState: null, helloCount: 0, lastScenarioName: null, pendingView: null, reloading: false, asking: false };
}
