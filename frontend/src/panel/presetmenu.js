// @ts-check
// The preset menu from the keyboard (issue 45): a closed <select> loads the next option at
// every ↑/↓ or typed letter (Chromium fires change at once), so walking the menu loaded every
// preset on the way, each one resetting the room. Here ↑/↓, Home/End and a typed letter only
// move the choice shown; Enter loads it, Escape or leaving the menu puts back the one loaded.
// A pointer's choice in the open list still loads at once (that is its Enter). O from the view
// focuses the menu (main.js): a few keys from anywhere instead of 26 Tabs.

/**
 * @param {import('lil-gui').Controller} ctl  the panel's Preset option controller
 */
export function deferPresetKeys(ctl) {
  const select = /** @type {HTMLSelectElement} */ (ctl.domElement.querySelector('select'));
  const display = /** @type {HTMLElement | null} */ (ctl.domElement.querySelector('.lil-display'));
  /** @param {number} k */
  const show = (k) => {
    select.selectedIndex = k; // no change event: nothing is loaded yet
    if (display) display.textContent = select.options[k]?.textContent ?? '';
  };
  let loaded = select.selectedIndex; // the option loaded (shown whenever the menu is entered)
  select.addEventListener('focus', () => (loaded = select.selectedIndex));
  select.addEventListener('change', () => (loaded = select.selectedIndex));
  select.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return; // Alt+↓ opens the list: its own keys
    const n = select.options.length;
    const k = select.selectedIndex;
    /** @type {number | null} */
    let next = null;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowRight') next = Math.min(n - 1, k + 1);
    else if (ev.key === 'ArrowUp' || ev.key === 'ArrowLeft') next = Math.max(0, k - 1);
    else if (ev.key === 'Home' || ev.key === 'PageUp') next = 0;
    else if (ev.key === 'End' || ev.key === 'PageDown') next = n - 1;
    else if (ev.key.length === 1 && ev.key !== ' ') {
      // type-ahead by first letter, the next one after the choice shown
      const letter = ev.key.toLocaleLowerCase();
      for (let j = 1; j <= n && next === null; j++) {
        const o = select.options[(k + j) % n];
        if (o.textContent?.trim().toLocaleLowerCase().startsWith(letter)) next = o.index;
      }
      if (next === null) return;
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      // lil-gui's own listener takes the option chosen: onChange loads it
      if (select.selectedIndex !== loaded) select.dispatchEvent(new Event('change'));
      return;
    } else if (ev.key === 'Escape') {
      ctl.updateDisplay();
      return;
    } else return;
    ev.preventDefault();
    show(next);
  });
  select.addEventListener('blur', () => ctl.updateDisplay()); // an unloaded choice is not kept
}
