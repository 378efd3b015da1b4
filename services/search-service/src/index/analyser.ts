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
 * 5. Any other run is one term (`Search`, `search` → `search`; `2024` → `2024`).
 * 6. Terms are cut to MAX_TERM_CHARS characters (same cut at query time, so long words still
 *    match themselves).
 *
 * A query matches a document when every term of q is among the document's terms (all words
 * must match; each Hangul word through all of its bigrams).
 */

/** Longest term, in characters; longer runs are cut (identically for documents and q). */
export const MAX_TERM_CHARS = 64;

const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
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
export function terms(text: string): string[] {
  const out: string[] = [];
  const push = (t: string) => {
    out.push(t);
  };
  for (const word of normalise(text).match(WORD_RUN) ?? []) {
    for (const run of word.match(SCRIPT_SPLIT) ?? []) emitRun(run, push);
  }
  return out;
}

/** The distinct terms of several texts (a document's indexed fields), in first-seen order. */
export function distinctTerms(texts: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const text of texts) for (const t of terms(text)) seen.add(t);
  return [...seen];
}

/** The terms a query requires: every distinct term of q (empty when q has no word). */
export function queryTerms(q: string): string[] {
  return distinctTerms([q]);
}
