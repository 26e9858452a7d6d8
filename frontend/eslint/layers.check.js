// `npm run lint` runs this after ESLint: it lints made-up modules of src/ with the page's own
// eslint.config.js (nothing is written: ESLint is given the text and the path it would have)
// and fails unless every upward import is reported and every downward one is not. So a config
// edit that drops the layers rule, or a rule edit that stops seeing one kind of import, fails
// `make lint` instead of silently letting imports run back up.
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const FRONTEND = fileURLToPath(new URL('..', import.meta.url));

/** [path under frontend/, source, how many layers/downward reports it must get] */
const CASES = [
  ['src/core/probe.js', "import { Stage } from '../view/scene.js';\nexport { Stage };", 1],
  ['src/net/probe.js', "/** @type {import('../panel/panel.js').Panel | null} */\nexport const p = null;", 1],
  ['src/view/probe.js', "export * from '../access/sound.js';", 1],
  ['src/teach/probe.js', "export const load = () => import('../panel/plots.js');", 1],
  ['src/panel/probe.js', "import '../main.js';", 1],
  ['src/misc/probe.js', "import { t } from '../core/i18n.js';\nexport const x = t('a');", 1],
  ['src/access/probe.js', "import { t } from '../core/i18n.js';\nimport { Stage } from '../view/scene.js';\nexport { t, Stage };", 0],
  ['src/teach/probe.js', "import { Arrow } from '../view/glyphs.js';\nimport { HeightGuide } from './height.js';\nexport { Arrow, HeightGuide };", 0],
  ['src/core/probe.js', "import en from '../locales/en.json';\nimport three from 'three';\nexport { en, three };", 0],
  ['src/probe.js', "import { Panel } from './panel/panel.js';\n/** @type {import('./access/access.js').Access | null} */\nexport const a = null;\nexport { Panel };", 0],
];

const eslint = new ESLint({ cwd: FRONTEND });
const failures = [];
for (const [file, code, expected] of CASES) {
  const [result] = await eslint.lintText(code, { filePath: `${FRONTEND}/${file}` });
  const reports = result.messages.filter((m) => m.ruleId === 'layers/downward');
  const fatal = result.messages.filter((m) => m.fatal);
  if (reports.length !== expected || fatal.length > 0) {
    const seen = [...reports, ...fatal].map((m) => m.message).join('; ') || 'nothing';
    failures.push(`${file} (${JSON.stringify(code)}): expected ${expected} layers/downward report(s), got ${seen}`);
  }
}
if (failures.length > 0) {
  console.error(`eslint/layers.check.js: the layers rule is not doing its job:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
