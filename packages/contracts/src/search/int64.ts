import { SEARCH_LIMITS } from './limits';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * Integer text (optional leading '-', digits only: no '+', no fraction, no exponent) within
 * int64 → its canonical text ('007' → '7', '-0' → '0'); anything else → null.
 * Exact: the text is never turned into a JavaScript number.
 */
export function parseScoreValue(text: string): string | null {
  if (!INTEGER_TEXT.test(text)) return null;
  const digits = text.replace(/^-?0*/, '');
  if (digits.length > 19) return null;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? null : n.toString();
}

export function isInt64Text(text: string): boolean {
  return parseScoreValue(text) !== null;
}

export type UnixTimeCheck =
  { ok: true; value: string } | { ok: false; reason: 'invalid' | 'too-big' };

/**
 * A UNIX timestamp in seconds (score_regdate, startdate, enddate): integer text, 0..regdateMax.
 * 'too-big' for a larger integer (a timestamp in milliseconds), 'invalid' for anything else.
 */
export function checkUnixTime(text: string): UnixTimeCheck {
  if (!INTEGER_TEXT.test(text) || text.startsWith('-')) return { ok: false, reason: 'invalid' };
  const digits = text.replace(/^0+(?=.)/, '');
  if (digits.length > 15 || Number(digits) > SEARCH_LIMITS.regdateMax) {
    return { ok: false, reason: 'too-big' };
  }
  return { ok: true, value: digits };
}

/** checkUnixTime as a plain value: the canonical text, or null when invalid or too big. */
export function parseUnixTime(text: string): string | null {
  const time = checkUnixTime(text);
  return time.ok ? time.value : null;
}
