/** Text helpers shared by the parameter and doc checks (UTF-8 size, unrepresentable text). */

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Size of the UTF-8 encoding of `s` (a lone surrogate counts 3 bytes, as U+FFFD would). */
export function utf8ByteLength(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isHigh(code) && isLow(s.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `s` holds U+0000 or a surrogate without its pair (not valid UTF-8 text). */
export function hasNulOrLoneSurrogate(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

/**
 * True when JSON text holds a `\u0000` escape or a `\uD800`–`\uDFFF` escape without its pair
 * (a high escape must be followed at once by a low escape). Backslashes only occur inside JSON
 * strings, so the scan needs no string tracking; malformed escapes are left to the parser.
 */
export function hasBadJsonEscape(json: string): boolean {
  let pendingHigh = false;
  for (let i = 0; i < json.length; i++) {
    if (json[i] !== '\\') {
      if (pendingHigh) return true;
      continue;
    }
    const hex = json[i + 1] === 'u' ? json.slice(i + 2, i + 6) : '';
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
      if (pendingHigh) return true;
      i++; // skip the escaped character (also a second backslash)
      continue;
    }
    const code = parseInt(hex, 16);
    i += 5;
    if (code === 0) return true;
    if (isHigh(code)) {
      if (pendingHigh) return true;
      pendingHigh = true;
    } else if (isLow(code)) {
      if (!pendingHigh) return true;
      pendingHigh = false;
    } else if (pendingHigh) return true;
  }
  return pendingHigh;
}

/**
 * Digits only (leading zeros allowed) → the number when it is ≤ max, else null.
 * Used for the query parameters start, len, ca, ex_ca.
 */
export function parseDigits(s: string, max: number): number | null {
  // one pass over the characters (a ca list may hold 100,000 entries): no regular expressions
  if (s.length === 0) return null;
  let n = 0;
  let significant = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    if (d === 0 && significant === 0) continue; // a leading zero
    if (++significant > 15) return null;
    n = n * 10 + d;
  }
  return n <= max ? n : null;
}
