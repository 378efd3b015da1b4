import type { MarkedText, Match } from './marked-text';

/**
 * The body snippet of a highlight: a window of at most `maxChars` characters (code points, not
 * UTF-16 units) of the text, with the marks inside it.
 *
 * - The window holds the densest run of matches: the most distinct query terms that fit in
 *   `maxChars`, then the most matches, then the earliest. A match longer than the window is
 *   cut to it.
 * - The matches sit in the middle of the window: what is left is shared before and after.
 * - Each end is moved to a word boundary (a window starts after white space and ends before
 *   it) when there is one within BOUNDARY_REACH characters, without cutting into the matches;
 *   text with no spaces there (Chinese, Japanese, a very long word) is cut where the count
 *   ends. White space at either end is left out.
 * - With no match, the window is the text's first `maxChars` characters, its end moved back to
 *   a word boundary in the same way.
 * - No marker (…) is added: the window is an exact piece of the text, so a client can tell
 *   where it was cut by comparing it with the field.
 */

/** Default length of a body snippet, in characters (code points). */
export const SNIPPET_CHARS = 160;

/** How far (in characters) an end of the window moves to reach a word boundary. */
const BOUNDARY_REACH = 20;

const WHITE_SPACE = /\s/u;

/** The characters (code points) of text[0, upTo): where character c starts, and back. */
interface Chars {
  readonly count: number;
  unit(c: number): number;
  /** the character that starts at a UTF-16 offset on a character boundary */
  char(unit: number): number;
}

const SURROGATE = /[\uD800-\uDFFF]/;

function charsOf(text: string, upTo: number): Chars {
  if (!SURROGATE.test(text.slice(0, upTo))) return { count: upTo, unit: (c) => c, char: (u) => u };
  const starts = new Int32Array(upTo + 1);
  let n = 0;
  for (let i = 0; i < upTo;) {
    starts[n++] = i;
    const code = text.charCodeAt(i);
    const low = text.charCodeAt(i + 1);
    i += code >= 0xd800 && code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
  }
  starts[n] = upTo;
  return {
    count: n,
    unit: (c) => starts[c]!,
    char(unit) {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid]! < unit) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
  };
}

/** `at`, or just after it when it falls inside a surrogate pair. */
function characterBoundary(text: string, at: number): number {
  const low = text.charCodeAt(at);
  const high = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? at + 1 : at;
}

/** The run of matches [first, last] the window is built around. */
function densestRun(
  matches: readonly Match[],
  startOf: (m: Match) => number,
  endOf: (m: Match) => number,
  maxChars: number,
): [number, number] {
  const counts = new Map<string, number>();
  const add = (m: Match, by: number) => {
    for (const t of m.terms) {
      const n = (counts.get(t) ?? 0) + by;
      if (n === 0) counts.delete(t);
      else counts.set(t, n);
    }
  };
  let best: [number, number, number, number] = [-1, -1, 0, 0]; // distinct, count, first, last
  let j = 0;
  for (let i = 0; i < matches.length; i++) {
    if (j <= i) {
      add(matches[i]!, 1);
      j = i + 1;
    }
    while (j < matches.length && endOf(matches[j]!) - startOf(matches[i]!) <= maxChars) {
      add(matches[j]!, 1);
      j++;
    }
    const score: [number, number] = [counts.size, j - i];
    if (score[0] > best[0] || (score[0] === best[0] && score[1] > best[1])) {
      best = [score[0], score[1], i, j - 1];
    }
    add(matches[i]!, -1);
  }
  return [best[2], best[3]];
}

export function snippet(
  text: string,
  matches: readonly Match[],
  maxChars = SNIPPET_CHARS,
): MarkedText {
  const lastMatchEnd = matches.at(-1)?.end ?? 0;
  const upTo = characterBoundary(text, Math.min(text.length, lastMatchEnd + 2 * maxChars));
  const chars = charsOf(text, upTo);
  const count = chars.count;
  const textAfter = upTo < text.length;
  if (!textAfter && count <= maxChars) return windowOf(text, matches, 0, text.length);
  const isSpace = (c: number) =>
    WHITE_SPACE.test(String.fromCodePoint(text.codePointAt(chars.unit(c))!));

  // the characters [keepFrom, keepTo) stay in the window: the densest run of matches
  let keepFrom = 0;
  let keepTo = 0;
  let start = 0;
  if (matches.length > 0) {
    const startOf = (m: Match) => chars.char(m.start);
    const endOf = (m: Match) => chars.char(m.end);
    const [first, last] = densestRun(matches, startOf, endOf, maxChars);
    keepFrom = startOf(matches[first]!);
    keepTo = Math.min(endOf(matches[last]!), keepFrom + maxChars);
    start = Math.max(0, keepFrom - Math.floor((maxChars - (keepTo - keepFrom)) / 2));
  }
  let end = Math.min(count, start + maxChars);
  start = Math.max(0, end - maxChars);

  // word boundaries: start after white space, end before it, never cutting into the run
  for (let c = start; c > 0 && c <= Math.min(keepFrom, start + BOUNDARY_REACH); c++) {
    if (isSpace(c - 1)) {
      start = c;
      break;
    }
  }
  if (end < count || textAfter) {
    for (let c = end; c >= Math.max(keepTo, start + 1, end - BOUNDARY_REACH); c--) {
      if (isSpace(c)) {
        end = c;
        break;
      }
    }
  }
  while (start < keepFrom && isSpace(start)) start++;
  while (end > Math.max(keepTo, start) && isSpace(end - 1)) end--;
  return windowOf(text, matches, chars.unit(start), chars.unit(end));
}

/** text[from, to) with the parts of the matches inside it. */
function windowOf(text: string, matches: readonly Match[], from: number, to: number): MarkedText {
  const marks: Array<[number, number]> = [];
  for (const m of matches) {
    const s = Math.max(m.start, from);
    const e = Math.min(m.end, to);
    if (s < e) marks.push([s - from, e - from]);
  }
  return { text: text.slice(from, to), marks };
}
