// ESLint for the page: the recommended rules, browser globals, ES modules. Types are checked
// separately by `tsc -p jsconfig.json` (every file starts with // @ts-check). src/'s folders are
// layers, and eslint/layers.js's rule keeps every import of src/ pointing down them;
// eslint/layers.check.js (run by `npm run lint`) proves the rule still fails an upward import.
import js from '@eslint/js';
import globals from 'globals';
import { fileURLToPath } from 'node:url';
import layers from './eslint/layers.js';

const SRC = fileURLToPath(new URL('./src/', import.meta.url));

export default [
  { ignores: ['dist/**', 'node_modules/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      'no-var': 'error',
    },
  },
  {
    files: ['src/**/*.js'],
    plugins: { layers },
    rules: { 'layers/downward': ['error', { src: SRC }] },
  },
  {
    files: ['vite.config.js', 'eslint.config.js', 'eslint/**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
];
