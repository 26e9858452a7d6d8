// @ts-check
// The one push channel of set_input, shared by four hands: the drag spring, the push pad, the
// panel's held button and the keys. The most direct one that is pushing wins; when none is, the
// channel is cleared (zeros).

/** @typedef {import('../net/messages.gen.js').SetInput} SetInput */
/** @typedef {'drag' | 'pad' | 'panel' | 'keys'} PushSource */
/**
 * One hand's push: Force and Moment in `frame`, at `point` (body frame) or the CG, or a spring.
 * @typedef {{frame: 'global' | 'body', Force: readonly number[], Moment: readonly number[], point: readonly number[] | null, spring?: import('../net/messages.gen.js').Spring}} PushInput
 */

/** @param {readonly number[]} v @returns {[number, number, number]} */
const vec3 = (v) => [v[0], v[1], v[2]];

export class Pushes {
  /**
   * @param {object} deps
   * @param {(msg: SetInput, ctls: import('lil-gui').Controller[]) => void} deps.sendFor  send for the panel's controls (errors shown under them)
   * @param {(msg: SetInput) => void} deps.send  send for a hand without controls
   * @param {(sources: string[]) => void} deps.shown  which hands push now (the HUD says so)
   * @param {() => boolean} deps.readOnly  watching: nothing to push with
   */
  constructor(deps) {
    this.deps = deps;
    /** @type {Record<PushSource, PushInput | null>} */
    this.by = { drag: null, pad: null, panel: null, keys: null };
  }

  /**
   * `source` pushes with `input`, or stops (null); the push channel is sent again.
   * @param {PushSource} source @param {PushInput | null} input @param {import('lil-gui').Controller[]} [ctls]
   */
  push(source, input, ctls = []) {
    if (this.deps.readOnly()) return;
    const by = this.by;
    by[source] = input;
    this.deps.shown(Object.entries(by).filter(([, v]) => v !== null).map(([k]) => k));
    const cur = by.drag ?? by.pad ?? by.panel ?? by.keys; // one push channel: the most direct wins
    /** @type {SetInput} */
    const msg = {
      type: 'set_input',
      channel: 'push',
      frame: cur?.frame ?? 'global',
      Force: vec3(cur?.Force ?? [0, 0, 0]),
      Moment: vec3(cur?.Moment ?? [0, 0, 0]),
      point: cur?.point ? vec3(cur.point) : null,
      ...(cur?.spring ? { spring: cur.spring } : {}),
    };
    if (ctls.length) this.deps.sendFor(msg, ctls);
    else this.deps.send(msg);
  }
}
