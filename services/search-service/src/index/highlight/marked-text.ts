import { spansOfTerms } from '../analyser';

/**
 * A text and the spans of it to mark (a highlight before it is written with the client's
 * tags): [start, end) in UTF-16 units of `text`, in order, none empty, none overlapping or
 * touching another, none inside a surrogate pair.
 */
export interface MarkedText {
  readonly text: string;
  readonly marks: ReadonlyArray<readonly [number, number]>;
}

/** A marked span and the query terms the analyser made there. */
export interface Match {
  readonly start: number;
  readonly end: number;
  readonly terms: readonly string[];
}

/**
 * Most UTF-16 units of one field that are analysed for marks (the rest of a longer field is
 * shown unmarked): bounds a page's highlighting work whatever the documents' size.
 */
export const EXAMINED_UNITS = 65_536;

/**
 * Most term spans of one field that are marked (the first ones): bounds the analysis of a
 * field where the query's words occur everywhere; a snippet is chosen among them.
 */
export const MAX_SPANS = 512;

const WHITE_SPACE = /\s/u;

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * How much of `text` is analysed: all of it up to `limit` units, else up to the last white
 * space before the limit (no word is cut, so no part of a word is taken for a word), or when
 * the last half has none, the last character boundary.
 */
export function examinedLength(text: string, limit = EXAMINED_UNITS): number {
  if (text.length <= limit) return text.length;
  for (let i = limit; i > limit / 2; i--) if (WHITE_SPACE.test(text[i]!)) return i;
  return isLow(text.charCodeAt(limit)) && isHigh(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/**
 * The spans of `text` whose analysed term is one of `wanted` (a query's terms), as the
 * analyser made them (a bigram, a word, the stem syllable of 책을), overlapping or touching
 * spans joined: the bigrams 경복 and 복궁 of 경복궁에서 make one span, 경복궁. With `prefix`
 * (prefix=1), also the prefix part of every term that starts with it.
 */
export function findMatches(
  text: string,
  wanted: ReadonlySet<string>,
  limit = EXAMINED_UNITS,
  prefix: string | null = null,
): Match[] {
  const examined = text.slice(0, examinedLength(text, limit));
  const spans = spansOfTerms(examined, wanted, MAX_SPANS, {}, prefix);
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Array<{ start: number; end: number; terms: Set<string> }> = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span.start <= last.end) {
      last.end = Math.max(last.end, span.end);
      last.terms.add(span.term);
    } else out.push({ start: span.start, end: span.end, terms: new Set([span.term]) });
  }
  return out.map((m) => ({ start: m.start, end: m.end, terms: [...m.terms] }));
}

/**
 * Marks made safe to write: each end moved out of a surrogate pair (to take the whole
 * character), clipped to the text, empty ones dropped, overlapping or touching ones joined.
 */
export function wholeCharacterMarks(
  text: string,
  marks: Iterable<readonly [number, number]>,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const sorted = [...marks].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [s, e] of sorted) {
    let start = Math.max(0, Math.min(s, text.length));
    let end = Math.max(0, Math.min(e, text.length));
    if (start > 0 && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1))) start--;
    if (end > 0 && isLow(text.charCodeAt(end)) && isHigh(text.charCodeAt(end - 1))) end++;
    if (end <= start) continue;
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
