// @ts-check
// The page's languages: one message catalogue per language (src/locales/en.json, de.json,
// nb.json, flat keys → ICU MessageFormat strings), formatted by FormatJS' intl-messageformat.
//
// API (stable: other modules call it; add, do not change):
//   t(key, values?)          the message for `key` in the page's language, formatted with
//                            `values` (ICU: {n, number}, {n, plural, one {…} other {…}},
//                            {x, select, …}); a key missing in the language falls back to
//                            English, a key missing everywhere returns the key itself.
//   has(key)                 whether the English catalogue has `key`.
//   lang                     the page's language code: 'en' | 'de' | 'nb'.
//   LANGUAGES                [{code, name}] in the picker's order (name in its own language).
//   num(x, digits?, opts?)   a number formatted for the language (digits: fixed fraction digits).
//   languageUrl(code)        this page's address with ?lang=code (the picker navigates to it).
//   translateDom(root?)      fill the elements marked in the HTML: data-i18n="key" sets the
//                            text, data-i18n-attr="title:key;aria-label:key" sets attributes.
//   presetText(preset, part) a preset's title/caption/question: the catalogue's
//                            preset.NAME.PART formatted with the preset's values (the
//                            numbers the server computes from its file), else the
//                            server's English text.
//
// The language is chosen once, at load: ?lang= first, then the browser's languages
// (navigator.languages: de*, nb/no/nn*, en*), else English. Changing it reloads the page
// with ?lang= (the room and token stay in the address), so modules may call t() when they
// build their DOM and need not relabel later.
//
// Adding strings: put the key (prefix = your module, e.g. "elements.spring.title") in all
// three catalogues; tests/browser/test_i18n.py fails on a key missing in any language.

import { IntlMessageFormat } from 'intl-messageformat';
import en from '../locales/en.json';
import de from '../locales/de.json';
import nb from '../locales/nb.json';

/** @typedef {'en' | 'de' | 'nb'} Lang */
/** @typedef {Record<string, string | number | boolean | null | undefined>} MessageValues */

/** @type {Record<Lang, Record<string, string>>} */
export const CATALOGUES = { en, de, nb };

/** @type {{code: Lang, name: string}[]} */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'nb', name: 'Norsk bokmål' },
];

/** A language code from a BCP 47 tag (or null). @param {string | null | undefined} tag @returns {Lang | null} */
export function matchLanguage(tag) {
  const primary = String(tag ?? '').toLowerCase().split(/[-_]/)[0];
  if (primary === 'en' || primary === 'de' || primary === 'nb') return primary;
  if (primary === 'no' || primary === 'nn') return 'nb'; // Norwegian: Bokmål is what we have
  return null;
}

/** @returns {Lang} */
function chooseLanguage() {
  const asked = matchLanguage(new URLSearchParams(window.location.search).get('lang'));
  if (asked) return asked;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const found = matchLanguage(tag);
    if (found) return found;
  }
  return 'en';
}

/** @type {Lang} */
export const lang = chooseLanguage();
document.documentElement.lang = lang;

/** @type {Map<string, IntlMessageFormat>} compiled messages, by key */
const compiled = new Map();

/** @param {string} key */
export function has(key) {
  return Object.hasOwn(CATALOGUES.en, key);
}

/**
 * The message for `key`, formatted for the page's language.
 * @param {string} key
 * @param {MessageValues} [values]
 * @returns {string}
 */
export function t(key, values) {
  let mf = compiled.get(key);
  if (!mf) {
    const own = CATALOGUES[lang][key];
    const text = own ?? CATALOGUES.en[key];
    if (text == null) return key;
    mf = new IntlMessageFormat(text, own != null ? lang : 'en');
    compiled.set(key, mf);
  }
  return String(mf.format(/** @type {Record<string, any>} */ (values)));
}

/** @type {Map<string, Intl.NumberFormat>} */
const numberFormats = new Map();

/**
 * `x` formatted for the language: with `digits` fixed fraction digits, else as Intl does.
 * @param {number} x
 * @param {number | null} [digits]
 * @param {Intl.NumberFormatOptions} [opts]
 */
export function num(x, digits = null, opts = {}) {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '−∞' : '–';
  const key = `${digits}|${JSON.stringify(opts)}`;
  let f = numberFormats.get(key);
  if (!f) {
    const fixed = digits == null ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
    // 1234.5, not 1,234.5; and "0.0", not "-0.0", for a heel of -0.01° (negative zero after
    // rounding reads as a sign error on the projector)
    f = new Intl.NumberFormat(lang, { useGrouping: false, signDisplay: 'negative', ...fixed, ...opts });
    numberFormats.set(key, f);
  }
  return f.format(x);
}

/** This page's address in another language. @param {Lang} code */
export function languageUrl(code) {
  const url = new URL(window.location.href);
  url.searchParams.set('lang', code);
  return url.toString();
}

/**
 * Fill the elements marked for translation under `root`: data-i18n="key" (text) and
 * data-i18n-attr="attr:key;attr:key" (attributes).
 * @param {ParentNode} [root]
 */
export function translateDom(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.getAttribute('data-i18n') ?? '');
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of (el.getAttribute('data-i18n-attr') ?? '').split(';')) {
      const [attr, key] = pair.split(':').map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/**
 * A preset's title, caption or question in the page's language: the catalogue's
 * preset.NAME.PART with the preset's values in its placeholders when it has one, else the
 * server's own (English) text. The server writes its English from the same message.
 * @param {{name: string, title?: string | null, caption?: string | null, question?: string | null, values?: Record<string, number | string>}} preset
 * @param {'title' | 'caption' | 'question'} part
 */
export function presetText(preset, part) {
  const key = `preset.${preset.name}.${part}`;
  const own = preset[part] || (part === 'title' ? preset.name : '');
  if (!own || !has(key)) return own;
  try {
    return t(key, preset.values ?? {});
  } catch {
    return own; // a value the message quotes is missing: the server's words
  }
}
