import { PREFIX_MIN_CHARS, PREFIX_MIN_SYLLABLES } from '@hub/contracts';
import { lastQueryTerm, queryTerms } from './analyser';

/**
 * Search-as-you-type (prefix=1, beyond the spec): which term of q is searched as a prefix, and
 * what it matches. Pure, so the engine, its tests and the bench's brute force apply one rule.
 *
 * 1. Only when q ends inside a word (no separator after it): its last word is the one being
 *    typed. Its last term (analyser.lastQueryTerm) is the candidate.
 * 2. A bigram-script term (Hangul, Han, kana) by whole syllables: a one-syllable word (or
 *    stem) `서` becomes the prefix `서`, which matches the term `서` and every bigram that
 *    starts with it (`서울`, `서점`, …: every word that starts with the syllable). A last word
 *    of two syllables or more is searched as without prefix: its bigrams already match every
 *    word that contains it (`서울` finds `서울역`). Syllables are never split into jamo.
 * 3. Any other term (Latin, digits, Cyrillic, …) of at least PREFIX_MIN_CHARS characters
 *    (code points) becomes a prefix matching every term that starts with it (`sea` →
 *    `search`, `season`, `sea`); a shorter one is matched whole, as without prefix.
 * 4. When the same term is also required by an earlier word, it stays required whole (the
 *    prefix would add nothing).
 *
 * A document matches when it has every other term of q and at least one term that starts with
 * the prefix (in any indexed field); it is in the title tier when its title has every other
 * term and one that starts with the prefix. No cap on how many terms a prefix matches: the
 * minimum lengths bound it (each matched term's list is read once), and numfound stays exact.
 */
export interface PrefixQuery {
  /** the terms required whole (queryTerms without the prefix term) */
  terms: string[];
  /** the last term searched as a prefix, or null (then `terms` is queryTerms(q)) */
  prefix: string | null;
}

const BIGRAM_CHAR =
  /^[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]/u;

/** The prefix rule: q's required terms and its prefix term (prefix=1), or queryTerms(q). */
export function prefixQuery(q: string, prefix: boolean): PrefixQuery {
  const terms = queryTerms(q);
  const last = prefix ? lastQueryTerm(q) : null;
  if (last === null || !isPrefixTerm(last)) return { terms, prefix: null };
  const before = queryTerms(q.slice(0, lastWordStart(q)));
  if (before.includes(last)) return { terms, prefix: null };
  return { terms: terms.filter((t) => t !== last), prefix: last };
}

/** Whether a last term is long enough to be a prefix (rules 2 and 3). */
function isPrefixTerm(term: string): boolean {
  const chars = Array.from(term).length;
  return BIGRAM_CHAR.test(term) ? chars === PREFIX_MIN_SYLLABLES : chars >= PREFIX_MIN_CHARS;
}

/** Where q's last run of word characters starts (q.length when q ends outside a word). */
function lastWordStart(q: string): number {
  const m = /[\p{L}\p{M}\p{N}]+$/u.exec(q);
  return m ? m.index : q.length;
}

/** Whether a term matches a prefix query's prefix. */
export function matchesPrefix(term: string, prefix: string): boolean {
  return term.startsWith(prefix);
}

/** Whether a document of these (distinct) terms matches q (all of q's terms, then the prefix). */
export function documentMatches(docTerms: ReadonlySet<string>, pq: PrefixQuery): boolean {
  if (pq.terms.length === 0 && pq.prefix === null) return false;
  if (!pq.terms.every((t) => docTerms.has(t))) return false;
  if (pq.prefix === null) return true;
  for (const t of docTerms) if (matchesPrefix(t, pq.prefix)) return true;
  return false;
}

/**
 * The least text above every term that starts with `prefix`, in code point order (Postgres
 * COLLATE "C" over UTF-8): the prefix with its last character's code point plus one (over the
 * surrogate range). `term >= prefix AND term < upper` is then exactly the terms that start
 * with the prefix: an index range.
 */
export function prefixUpperBound(prefix: string): string {
  const chars = Array.from(prefix);
  const last = chars.pop()!.codePointAt(0)!;
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
  return chars.join('') + String.fromCodePoint(next);
}
