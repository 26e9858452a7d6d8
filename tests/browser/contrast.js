// The contrast of every visible text on the page (WCAG 2.x relative luminance), including
// text over the 3-D view, which axe-core leaves "incomplete": a background that is not opaque
// all the way down is composited over black and over white (the view may show either behind
// it) and the worse of the two counts. Returns [{text, selector, ratio, size, bold}].
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const lum = ([r, g, b]) => {
    const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const layers = (el) => {
    const out = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      const op = Number(getComputedStyle(e).opacity);
      if (bg[3] > 0) out.push([bg[0], bg[1], bg[2], bg[3] * op]);
      if (bg[3] * op >= 0.999) return { out, opaque: true };
      if (e.id === 'view') return { out, opaque: false }; // the 3-D view is behind: any colour
      if (e.id === 'side' || e.id === 'plots') break;
    }
    return { out, opaque: false };
  };
  const results = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    seen.add(el);
    if (el.closest('.sr-only, [hidden], option, script, style')) continue;
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || cs.display === 'none') continue;
    if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
    if (el.closest('button:disabled, input:disabled, .lil-disabled')) continue; // inactive controls are exempt (1.4.3)
    const fg = parse(cs.color);
    const { out, opaque } = layers(el);
    const worst = (base) => {
      let bg = base;
      for (const l of out.slice().reverse()) bg = over(l, bg);
      return ratio(over(fg, bg), bg);
    };
    const ratioNow = opaque ? worst([255, 255, 255, 1]) : Math.min(worst([0, 0, 0, 1]), worst([255, 255, 255, 1]));
    const path = el.id ? `#${el.id}` : `${el.closest('[id]')?.id ? '#' + el.closest('[id]').id + ' ' : ''}${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    results.push({ text: n.textContent.trim().slice(0, 40), selector: path, ratio: Math.round(ratioNow * 100) / 100,
      size: parseFloat(cs.fontSize), bold: Number(cs.fontWeight) >= 700 });
  }
  return results;
}
