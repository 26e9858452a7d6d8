// @ts-check
// The server's refusals in the page's language. The server speaks English; its `error`
// carries a `code` (backend/sixdof/server/error_codes.py) and the offending `field`
// (backend/sixdof/fields.py), and its message states the allowed range and the value refused
// in a fixed form ("Mass: must be in [1e-06, 1e+06] kg, got -1"). The page maps code and field
// to a catalogue message and carries the numbers over, formatted for the language; a message
// of a form it does not know keeps the code's own sentence. In English the server's text is
// shown as it is.

import { lang, num, t } from '../core/i18n.js';

/** @typedef {import('./messages.gen.js').ErrorMessage} ErrorMessage */

/** A number in the server's text (Python's %g) in the page's format. @param {string} s */
function localNumber(s) {
  const x = Number(s);
  if (!Number.isFinite(x)) return s;
  return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3) ? num(x, null, { notation: 'scientific', maximumFractionDigits: 3 }) : num(x);
}

/** Every number in `text` (a range, a list of values) in the page's format. @param {string} text */
function localNumbers(text) {
  const sep = num(0.5).includes(',') ? '; ' : ', ';
  return text.replace(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, (m) => localNumber(m)).replace(/, /g, sep);
}

/**
 * The text to show for a server error, in the page's language.
 * @param {Pick<ErrorMessage, 'code' | 'message' | 'field'>} err
 * @returns {string}
 */
export function errorText(err) {
  const message = err.message ?? '';
  if (lang === 'en') return message || err.code;
  const field = err.field ?? message.split(':')[0] ?? '';
  switch (err.code) {
    case 'out_of_range': {
      const m = /(each component )?must be (in [[(][^\]]*\](?: [^,]*)?), got (.*)$/.exec(message);
      if (m) return t(m[1] ? 'error.out_of_range.each' : 'error.out_of_range', { field, range: localNumbers(m[2].replace(/^in /, '')), got: localNumbers(m[3]) });
      const n = /at most (\S+) ?([^,]*), got (.*)$/.exec(message);
      if (n) return t('error.out_of_range.norm', { field, max: `${localNumber(n[1])} ${n[2]}`.trim(), got: localNumbers(n[3]) });
      return t('error.invalid', { field });
    }
    case 'invalid': {
      if (/expected a number/.test(message)) return t('error.invalid.number', { field });
      if (/finite number/.test(message)) return t('error.invalid.finite', { field });
      const w = /expected (\d+) numbers/.exec(message);
      if (w) return t('error.invalid.width', { field, n: Number(w[1]) });
      const c = /must be one of (\[[^\]]*\])/.exec(message);
      if (c) return t('error.invalid.choice', { field, choices: c[1] });
      return t('error.invalid', { field });
    }
    case 'unstable_step':
      return t('error.unstable_step', { field: field || 'step' });
    case 'internal':
      return t('error.internal', { message });
    case 'preparing': {
      const s = /try again in about (\d+) s/.exec(message);
      return t('error.preparing', { seconds: s ? num(Number(s[1])) : '…' });
    }
    default:
      return t(`error.${err.code}`);
  }
}
