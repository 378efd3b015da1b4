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
 */

import { oneSyllableStem, queryStem, type RunStart } from './analysis/korean-particles';

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
const ALL_DIGITS = /^\p{N}+$/u;
const BIGRAM_CHAR = /[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** splits a word run where it changes between a bigram script and anything else */
const SCRIPT_SPLIT =
  /[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+|[^\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+/gu;

/** NFKC + lower case: the form both documents and queries are compared in. */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function cut(term: string): string {
  if (term.length <= MAX_TERM_CHARS) return term;
  const chars = Array.from(term);
  return chars.length <= MAX_TERM_CHARS ? term : chars.slice(0, MAX_TERM_CHARS).join('');
}

function emitRun(run: string, out: (term: string) => void): void {
  const first = run.codePointAt(0)!;
  if (!BIGRAM_CHAR.test(String.fromCodePoint(first)) && run[0] !== '\u30FC') {
    out(cut(run));
    return;
  }
  const chars = Array.from(run);
  if (chars.length === 1) {
    out(chars[0]!);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out(chars[i]! + chars[i + 1]!);
}

/** Every term of `text`, in text order, with repetitions. */
export function terms(text: string, opts: AnalyserOptions = {}): string[] {
  const out: string[] = [];
  const push = (t: string) => {
    out.push(t);
  };
  for (const word of normalise(text).match(WORD_RUN) ?? []) {
    let afterNumber = false;
    for (const run of word.match(SCRIPT_SPLIT) ?? []) {
      emitRun(run, push);
      const stem = opts.bigramOnly ? null : oneSyllableStem(run, afterNumber);
      if (stem !== null) push(stem);
      afterNumber = ALL_DIGITS.test(run);
    }
  }
  return out;
}

/** The distinct terms of several texts (a document's indexed fields), in first-seen order. */
export function distinctTerms(texts: Iterable<string>, opts: AnalyserOptions = {}): string[] {
  const seen = new Set<string>();
  for (const text of texts) for (const t of terms(text, opts)) seen.add(t);
  return [...seen];
}

/** The terms a query requires: every distinct term of q's stems (empty when q has no word). */
export function queryTerms(q: string, opts: AnalyserOptions = {}): string[] {
  if (opts.bigramOnly) return distinctTerms([q], opts);
  const seen = new Set<string>();
  const add = (t: string) => {
    seen.add(t);
  };
  for (const word of normalise(q).match(WORD_RUN) ?? []) {
    let start: RunStart = 'word';
    for (const run of word.match(SCRIPT_SPLIT) ?? []) {
      const stem = queryStem(run, start);
      if (stem !== '') emitRun(stem, add);
      start = ALL_DIGITS.test(run) ? 'digits' : 'other';
    }
  }
  return [...seen];
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
