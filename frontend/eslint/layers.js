// The page's folders as layers (issue 39): src/'s modules sit in one folder per
// responsibility, and a module imports only from its own folder and the folders below it, so
// no import runs back up and each cluster can be read without the ones built on it.
//
// From the bottom up:
//   core    what needs neither the server nor the scene: DOM lookup, NED ↔ three.js, languages,
//           rigid-body formulas
//   net     the wire and what the page keeps of it: connection, generated protocol, state
//           buffer, session, the server's refusals in words
//   view    the 3-D view and what is drawn in it: stage, bodies, glyphs, labels, HUD, elements,
//           water
//   teach   the teaching overlays: free-body diagram, ω and L, energy, height, stability, gyro
//   input   the hands: keys, drag, push pad and the push channel they share
//   record  the room's recorded run: timeline, clips
//   panel   the controls around the view: lil-gui panel and its folders, toolbar, plots, share
//   access  access without a pointer or without sight: description, sound, grab
//   class   the lecturer's view (class/index.html): a page of its own over every room
//   (root)  main.js (wiring), loop.js (the render loop), testhook.js: may import anything
// and locales/ (the message catalogues, data) below them all.
//
// The rule reads every way a module names another: import and export … from, import(), and
// the JSDoc type imports `import('…')` that tsc follows (a type is a dependency too). Only
// relative paths are judged (packages such as three are not the page's). A folder not in the
// list is reported, so a new folder has to be given its place here.

import path from 'node:path';

/** The folders of src/, bottom first. Changing the order changes what may import what. */
export const LAYERS = ['locales', 'core', 'net', 'view', 'teach', 'input', 'record', 'panel', 'access', 'class'];

/** The layer of src/'s own files (main.js, loop.js, testhook.js): above every folder. */
const ROOT = LAYERS.length;

const JSDOC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Where a path under src/ sits: its layer index and name.
 * @param {string[]} parts  the path split at '/', from src/ on (['view', 'body.js'] or ['main.js'])
 */
function layerOf(parts) {
  if (parts.length === 1) return { index: ROOT, name: 'src/ (root)' };
  return { index: LAYERS.indexOf(parts[0]), name: `${parts[0]}/` };
}

/** @param {string[]} from  the importing file's parts under src/ @param {string} spec  a relative specifier */
function resolve(from, spec) {
  const parts = from.slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '..') {
      if (parts.length === 0) return null; // leaves src/: not the page's layering to judge
      parts.pop();
    } else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts;
}

/** @type {import('eslint').Rule.RuleModule} */
const downward = {
  meta: {
    type: 'problem',
    docs: { description: "a module of src/ imports only from its own folder and the folders below it (eslint/layers.js)" },
    // src: the absolute path of the page's src/ (eslint.config.js gives it; default ./src)
    schema: [{ type: 'object', properties: { src: { type: 'string' } }, additionalProperties: false }],
    messages: {
      up: "{{from}} may not import {{spec}}: {{to}} is above {{from}} in the page's layers (frontend/eslint/layers.js: {{layers}})",
      unknown: "{{folder}} is not one of the page's layers; give it its place in LAYERS (frontend/eslint/layers.js)",
    },
  },
  create(context) {
    const src = context.options[0]?.src ?? path.join(context.cwd, 'src');
    const relative = path.relative(src, context.filename);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return {}; // not the page's
    const here = relative.split(path.sep);
    const from = layerOf(here);
    if (from.index < 0) {
      // a folder without a place: its imports cannot be judged until it has one
      return { Program: (node) => context.report({ node, messageId: 'unknown', data: { folder: from.name } }) };
    }
    const layers = LAYERS.join(' < ');

    /** @param {string} spec @param {import('estree').Node | import('estree').Comment} node */
    function check(spec, node) {
      if (!spec.startsWith('./') && !spec.startsWith('../')) return;
      const target = resolve(here, spec);
      if (!target || target.length === 0) return;
      const to = layerOf(target);
      if (to.index < 0) {
        context.report({ loc: node.loc ?? undefined, messageId: 'unknown', data: { folder: to.name } });
      } else if (to.index > from.index) {
        context.report({ loc: node.loc ?? undefined, messageId: 'up', data: { from: from.name, to: to.name, spec, layers } });
      }
    }

    /** @param {any} node  a declaration or expression with a string-literal `source` */
    function checkSource(node) {
      if (node.source && node.source.type === 'Literal' && typeof node.source.value === 'string') {
        check(node.source.value, node);
      }
    }

    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          for (const m of comment.value.matchAll(JSDOC_IMPORT)) check(m[1], comment);
        }
      },
      ImportDeclaration: checkSource,
      ExportNamedDeclaration: checkSource,
      ExportAllDeclaration: checkSource,
      ImportExpression: checkSource,
    };
  },
};

export default { rules: { downward } };
