/**
 * The text analyser of the Postgres engine: text → search terms. Pure (no I/O, no state) and
 * applied identically to documents (index time) and to q (query time).
 *
 * 1. NFKC normalisation, then lower case (locale-independent): `ＡＢＣ` → `abc`, `Ⅻ` → `xii`.
 * 2. The text is split into runs of word characters (letters, marks, digits); everything
 *    else (spaces, punctuation, symbols, `_`) separates runs.
 * 3. A run is cut where the script changes between "bigram scripts" (Hangul syllables, Han,
 *    Hiragana, Katakana) and the others (Latin, digits, Cyrillic, ...): `서울2024` → `서울`,
 *    `2024`; `iphone15` stays one run.
 * 4. A run of a bigram script gives every pair of neighbouring characters (`서울에서` →
 *    `서울`, `울에`, `에서`); a run of one character gives itself (`서`). So a query word
 *    `서울` (bigram `서울`) finds `서울에서`, and `맛집` finds `맛집을`, without a dictionary.
 * 5. Korean particles (analysis/korean-particles.ts): a query word is searched by its stem,
 *    its particles split off (`경복궁에서` → `경복궁` → `경복`, `복궁`), so it finds every
 *    form of the word (`경복궁의`, `경복궁을`); a particle after a Latin word goes
 *    (`iPhone을` → `iphone`). A document word that is one syllable plus particles (`책을`)
 *    also gives that syllable (`책`), which a query reduced to one syllable asks for.
 * 6. Any other run is one term (`Search`, `search` → `search`; `2024` → `2024`).
 * 7. Terms are cut to MAX_TERM_CHARS characters (same cut at query time, so long words still
 *    match themselves).
 *
 * A query matches a document when every term of q is among the document's terms (all words
 * must match; each Hangul word through all of its bigrams).
 *
 * termSpans gives the same terms with where each came from in the text as given (highlights):
 * one scan (scanTerms) makes the terms for both, over the whole text's normal form, so the
 * spans never change what indexing produces.
 */

import { oneSyllableStem, queryStem, type RunStart } from './analysis/korean-particles';
import { normalise, traceNormalForm } from './analysis/normal-form';

export { normalise };

/**
 * Changes whenever a document's terms change: the Postgres engine re-analyses every stored
 * document when its index was made by another version (postgres/write/reanalyse.ts).
 * 1: syllable bigrams; 2: Korean particles (one-syllable stems).
 */
export const ANALYSER_VERSION = 2;

export interface AnalyserOptions {
  /**
   * Version 1, syllable bigrams without the Korean particle step: only the evaluation's
   * baseline (eval/) uses it, to compare with.
   */
  bigramOnly?: boolean;
}

/** Longest term, in characters; longer runs are cut (identically for documents and q). */
export const MAX_TERM_CHARS = 64;

const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const ALL_DIGITS = /^\p{N}+$/u;
const BIGRAM_CHAR = /[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** splits a word run where it changes between a bigram script and anything else */
const SCRIPT_SPLIT =
  /[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+|[^\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+/gu;

function cut(term: string): string {
  if (term.length <= MAX_TERM_CHARS) return term;
  const chars = Array.from(term);
  return chars.length <= MAX_TERM_CHARS ? term : chars.slice(0, MAX_TERM_CHARS).join('');
}

/** Receives a term and where it came from: [start, end) in the text the scan read. */
type Emit = (term: string, start: number, end: number) => void;

/** The terms of one run at offset `at` (its bigrams, or the run itself). */
function emitRun(run: string, at: number, out: Emit): void {
  if (!isBigramRun(run)) {
    out(cut(run), at, at + run.length);
    return;
  }
  let previous = '';
  let previousAt = at;
  let offset = at;
  for (const char of run) {
    if (previous !== '') out(previous + char, previousAt, offset + char.length);
    previous = char;
    previousAt = offset;
    offset += char.length;
  }
  if (previousAt === at) out(previous, at, offset);
}

/** What a character is to the scan (classOf): bits of these. */
const WORD = 1; // a word character (WORD_CHAR)
const BIGRAM = 2; // of a bigram script, or U+30FC (SCRIPT_SPLIT's first alternative)
const NUMBER = 4; // \p{N} (ALL_DIGITS)
const KNOWN = 8;
const NUMBER_CHAR = /^\p{N}$/u;
const BIGRAM_RUN_CHAR =
  /^[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]$/u;
/** classOf of the BMP characters met so far, KNOWN set (the regular expressions ask once) */
const BMP_CLASSES = new Uint8Array(0x10000);

function classByPattern(code: number): number {
  const char = String.fromCodePoint(code);
  return (
    (WORD_CHAR.test(char) ? WORD : 0) |
    (BIGRAM_RUN_CHAR.test(char) ? BIGRAM : 0) |
    (NUMBER_CHAR.test(char) ? NUMBER : 0)
  );
}

/**
 * The class of a code point by the regular expressions above (WORD_RUN, SCRIPT_SPLIT,
 * ALL_DIGITS), without asking them for ASCII and Hangul syllables, and once per other BMP
 * character.
 */
function classOf(code: number): number {
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return WORD;
    return code >= 0x30 && code <= 0x39 ? WORD | NUMBER : 0;
  }
  if (code >= 0xac00 && code <= 0xd7a3) return WORD | BIGRAM;
  if (code > 0xffff) return classByPattern(code);
  let known = BMP_CLASSES[code]!;
  if (known === 0) BMP_CLASSES[code] = known = classByPattern(code) | KNOWN;
  return known & ~KNOWN;
}

/**
 * Every term of a normalised text, in text order, with repetitions and their offsets: the
 * words of WORD_RUN, cut into the runs of SCRIPT_SPLIT, each run's terms (emitRun) and its
 * one-syllable stem. One pass over the characters (classOf), no regular expression per word.
 */
function scanTerms(normal: string, opts: AnalyserOptions, emit: Emit): void {
  const n = normal.length;
  let i = 0;
  let code = n > 0 ? normal.codePointAt(0)! : 0;
  let cls = n > 0 ? classOf(code) : 0;
  while (i < n) {
    if ((cls & WORD) === 0) {
      i += code > 0xffff ? 2 : 1;
      if (i < n) cls = classOf((code = normal.codePointAt(i)!));
      continue;
    }
    // a word: its runs, while the characters are word characters
    let afterNumber = false;
    while (i < n && (cls & WORD) !== 0) {
      const start = i;
      const bigram = cls & BIGRAM;
      let digits = cls & NUMBER;
      let previous = -1; // where the run's previous character starts (bigram runs)
      do {
        const next = i + (code > 0xffff ? 2 : 1);
        if (bigram !== 0 && previous >= 0) emit(normal.slice(previous, next), previous, next);
        previous = i;
        i = next;
        if (i >= n) break;
        cls = classOf((code = normal.codePointAt(i)!));
        if ((cls & WORD) === 0 || (cls & BIGRAM) !== bigram) break;
        digits &= cls;
      } while (i < n);
      if (bigram === 0) {
        emit(cut(normal.slice(start, i)), start, i);
      } else {
        if (previous === start) emit(normal.slice(start, i), start, i);
        const stem = opts.bigramOnly ? null : oneSyllableStem(normal.slice(start, i), afterNumber);
        if (stem !== null) emit(stem, start, start + stem.length);
      }
      afterNumber = digits !== 0;
      if (i >= n) break;
    }
  }
}

/** Every term of `text`, in text order, with repetitions. */
export function terms(text: string, opts: AnalyserOptions = {}): string[] {
  const out: string[] = [];
  scanTerms(normalise(text), opts, (t) => {
    out.push(t);
  });
  return out;
}

/** A term of a text and the part of the text it was made from. */
export interface TermSpan {
  readonly term: string;
  /** [start, end) in UTF-16 units of the text as given (not normalised), on character boundaries */
  readonly start: number;
  readonly end: number;
}

/**
 * terms(text), each with the span of `text` it was made from: a word's span for a whole-word
 * term, two characters for a bigram, the stem syllable for a one-syllable stem (책 of 책을).
 * A span covers whole characters with their combining marks (see analysis/normal-form.ts).
 */
export function termSpans(text: string, opts: AnalyserOptions = {}): TermSpan[] {
  const normal = traceNormalForm(text);
  const out: TermSpan[] = [];
  scanTerms(normal.text, opts, (term, start, end) => {
    const [from, to] = normal.span(start, end);
    out.push({ term, start: from, end: to });
  });
  return out;
}

/** The word (WORD_RUN match) of a normalised text around offset `at`: [start, end). */
function wordAround(normal: string, at: number): [number, number] {
  let start = at;
  while (start > 0) {
    const pair = start > 1 && isSurrogatePair(normal, start - 2);
    const before = start - (pair ? 2 : 1);
    if (!WORD_CHAR.test(normal.slice(before, start))) break;
    start = before;
  }
  let end = at;
  while (end < normal.length) {
    const next = end + (isSurrogatePair(normal, end) ? 2 : 1);
    if (!WORD_CHAR.test(normal.slice(end, next))) break;
    end = next;
  }
  return [start, end];
}

function isSurrogatePair(s: string, i: number): boolean {
  const high = s.charCodeAt(i);
  const low = s.charCodeAt(i + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/**
 * termSpans(text) of the terms in `wanted` only, the first `maxSpans` of them, at the cost of
 * the words that can make one: a term is always the start of the normal form at its offset (a
 * whole or cut word, a bigram, a stem syllable), so only the words whose normal form contains
 * a wanted term are analysed, each on its own as scanTerms analyses every word, in text order
 * until `maxSpans` are found; the text is traced only as far as that. With `prefix`
 * (prefix=1: index/prefix-expansion.ts), a term that starts with it is wanted too, and its
 * span is the part the prefix came from (`sea` of `searching`).
 */
export function spansOfTerms(
  text: string,
  wanted: ReadonlySet<string>,
  maxSpans = Infinity,
  opts: AnalyserOptions = {},
  prefix: string | null = null,
): TermSpan[] {
  const normal = traceNormalForm(text);
  const words = new Map<number, number>();
  for (const term of prefix === null ? wanted : [...wanted, prefix]) {
    if (term === '') continue;
    for (let at = normal.text.indexOf(term); at >= 0;) {
      const [start, end] = wordAround(normal.text, at);
      words.set(start, end);
      at = normal.text.indexOf(term, Math.max(at + 1, end));
    }
  }
  const out: TermSpan[] = [];
  for (const [start, end] of [...words].sort((a, b) => a[0] - b[0])) {
    if (out.length >= maxSpans) break;
    scanTerms(normal.text.slice(start, end), opts, (term, s, e) => {
      if (out.length >= maxSpans) return;
      const whole = wanted.has(term);
      if (!whole && (prefix === null || !term.startsWith(prefix))) return;
      // a term is the normal form at its offset, so a prefix is its first characters there
      const stop = whole ? e : s + prefix!.length;
      const [from, to] = normal.span(start + s, start + stop);
      out.push({ term, start: from, end: to });
    });
  }
  return out;
}

/** The distinct terms of several texts (a document's indexed fields), in first-seen order. */
export function distinctTerms(texts: Iterable<string>, opts: AnalyserOptions = {}): string[] {
  const seen = new Set<string>();
  const add = (t: string) => {
    seen.add(t);
  };
  for (const text of texts) scanTerms(normalise(text), opts, add);
  return [...seen];
}

/** One word of a query (a run of word characters) as queryTerms reads it. */
export interface QueryWord {
  /** the stems of its runs (particles split off), empty ones left out */
  stems: string[];
  /** the terms of those stems, distinct, in order */
  terms: string[];
}

/** The words of q with their stems and terms (what queryTerms ANDs). */
export function queryWords(q: string): QueryWord[] {
  const out: QueryWord[] = [];
  for (const word of normalise(q).match(WORD_RUN) ?? []) {
    const stems: string[] = [];
    let start: RunStart = 'word';
    for (const run of word.match(SCRIPT_SPLIT) ?? []) {
      const stem = queryStem(run, start);
      if (stem !== '') stems.push(stem);
      start = ALL_DIGITS.test(run) ? 'digits' : 'other';
    }
    if (stems.length) out.push({ stems, terms: distinctStemTerms(stems) });
  }
  return out;
}

/** The terms of stems as queryTerms makes them (bigrams, or the whole run), distinct. */
export function distinctStemTerms(stems: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const stem of stems) {
    emitRun(stem, 0, (t) => {
      seen.add(t);
    });
  }
  return [...seen];
}

/** Whether a run's terms are its character bigrams (Hangul, Han, kana) or the run itself. */
export function isBigramRun(run: string): boolean {
  return BIGRAM_CHAR.test(String.fromCodePoint(run.codePointAt(0)!)) || run[0] === '\u30FC';
}

/** The terms a query requires: every distinct term of q's stems (empty when q has no word). */
export function queryTerms(q: string, opts: AnalyserOptions = {}): string[] {
  if (opts.bigramOnly) return distinctTerms([q], opts);
  return distinctStemTerms(queryWords(q).flatMap((w) => w.stems));
}

/**
 * q with each Korean word replaced by the stem queryTerms searches it by (`경복궁에서 야경` →
 * `경복궁 야경`, `iPhone을` → `iPhone`) and everything else as it was: for an engine that
 * segments Korean itself but would require a query's particle as a word of its own
 * (Meilisearch). q itself when nothing is split off.
 */
export function stemmedQuery(q: string): string {
  let changed = false;
  const stemmed = q.normalize('NFC').replace(WORD_RUN, (word) => {
    let start: RunStart = 'word';
    return word.replace(SCRIPT_SPLIT, (run) => {
      const stem = queryStem(run, start);
      start = ALL_DIGITS.test(run) ? 'digits' : 'other';
      if (stem !== run) changed = true;
      return stem;
    });
  });
  return changed ? stemmed : q;
}

/**
 * The term queryTerms makes last for q's last word, when q ends inside that word (its last
 * character is a word character): the last run's whole term, last bigram or one-character
 * stem. Null when q ends outside a word (`서울 `, `abc.`) or its last run has no stem (a
 * particle alone). What search-as-you-type (prefix=1) may search as a prefix:
 * index/prefix-expansion.ts.
 */
export function lastQueryTerm(q: string): string | null {
  const normal = normalise(q);
  const words = normal.match(WORD_RUN);
  const word = words?.[words.length - 1];
  if (!word || !normal.endsWith(word)) return null;
  let last: string | null = null;
  let start: RunStart = 'word';
  for (const run of word.match(SCRIPT_SPLIT) ?? []) {
    const stem = queryStem(run, start);
    last = null;
    if (stem !== '')
      emitRun(stem, 0, (t) => {
        last = t;
      });
    start = ALL_DIGITS.test(run) ? 'digits' : 'other';
  }
  return last;
}
