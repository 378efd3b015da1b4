/**
 * A query as the Postgres engine matches it: an AND of one clause per query word, each clause
 * an OR of alternatives, each alternative an AND of terms. Pure (no I/O): the engine, the
 * evaluation (eval/memory-engine.ts) and the bench's brute force build and match the same plan.
 *
 * A clause holds the word as typed (`typed`: usually one alternative, its terms as queryTerms
 * makes them; an OR of several is what a prefix search needs) and the forms derived from the
 * collection's own dictionary for spacing (`derived`), after Meilisearch's query processing:
 *
 * - Split: a word also matches where it is written in parts, when the dictionary says the
 *   parts are words of their own and the whole is rare.
 *   - Hangul (bigram scripts): a word of n ≥ 4 syllables is cut between syllables i and i+1
 *     (every part at least 2 syllables, one-syllable parts are too broad) where its bridging
 *     bigram (syllables i, i+1) is rare: RARE_RATIO × df(bridge) ≤ the smaller df of the
 *     bigrams either side of it (inside the parts; not 0). The derived alternative is the bigrams of
 *     the parts, each part's particles split off as for a query word (`서울의맛집` → 서울 +
 *     맛집): as many cuts as the dictionary allows (`경복궁근처맛집` → 경복궁 근처 맛집),
 *     rarest bridges first. A compound that is a word of its own keeps its bridges frequent
 *     and is not cut (`아이스크림`: 이스 is about as frequent as 스크).
 *   - Other scripts (Latin, …): a word of letters only, 4 to SPLIT_MAX_CHARS characters, is
 *     cut once into two indexed terms of at least 2 letters each, a and b, when
 *     RARE_RATIO × df(word) ≤ min(df(a), df(b)) (not 0) (`database` → `data` `base`); of several
 *     such cuts the one whose rarer part is the most frequent (then the leftmost).
 * - Concatenate: two or three adjacent words of the same kind also match their concatenation
 *   (`data base` → `database`, `e mail` → `email`, `길 고양이` → 길고양이), as its terms, when
 *   the collection has every one of those terms (df > 0).
 *   Words of a bigram script are concatenated only when one of them is one syllable: the
 *   bigrams of a concatenation of longer words include every bigram of the words, so the words
 *   as typed already find it (`서울 맛집` finds `서울맛집`). A concatenation is an alternative
 *   of each clause it covers: (A ∧ B) ∨ AB = (A ∨ AB) ∧ (B ∨ AB), so the plan stays an AND of
 *   ORs, and a document matches when every query word is found in it as typed, split, or
 *   inside a concatenation with its neighbours.
 *
 * df(term) is the number of documents of the collection whose terms include it (the engine's
 * posting list counts, folded and pending alike). Bounds: derivations only for queries of at
 * most MAX_SPACING_WORDS words; a word is split at most into MAX_SPLIT_PARTS parts; the plan
 * asks the dictionary for at most (SPLIT_MAX_CHARS - 3) × 2 + 1 terms per word.
 *
 * Search-as-you-type (prefix=1, prefix-expansion.ts): when q's last term is searched as a
 * prefix, it stands in its word's typed terms as prefixMark(prefix) (`sea*`: no analysed term
 * has a `*`), which a document has when one of its terms starts with the prefix; that word has
 * no derived forms and takes part in no concatenation (it is still being typed).
 *
 * Not derived (measured in eval/, see the README): parts of compounds for whole-run words
 * (`base` does not find `database`); for Hangul the bigrams already find a word inside a
 * compound (`맛집` finds `서울맛집`, and `아이` finds `아이스크림`), as they did before.
 */

import { distinctStemTerms, isBigramRun, queryWords, type QueryWord } from './analyser';
import { queryStem } from './analysis/korean-particles';
import { matchesPrefix, prefixQuery } from './prefix-expansion';

/** An AND of terms. */
export type TermSet = readonly string[];

/** One query word: it matches a document when any of its alternatives does. */
export interface Clause {
  /** the word as typed (any of these) */
  readonly typed: readonly TermSet[];
  /** forms derived for spacing (splits, concatenations) */
  readonly derived: readonly TermSet[];
}

/**
 * An AND of clauses. No clause: nothing to search for (q has no word). No two clauses are
 * alike: AND is idempotent, so a word q repeats is one clause (the bench's 1,024-byte query, a
 * word and 144 times another, was 145 clauses and 6 ms of the service thread a search).
 */
export interface QueryPlan {
  readonly clauses: readonly Clause[];
}

/** A split is taken where RARE_RATIO × df(whole or bridge) ≤ df of the parts (see above). */
export const RARE_RATIO = 2;
/** Longest whole-run word that is tried in two parts (letters). */
export const SPLIT_MAX_CHARS = 24;
/** Queries of more words are matched as typed only. */
export const MAX_SPACING_WORDS = 8;
/**
 * A whole-run word is cut only when at most this many documents have it (it is rare, or not
 * indexed at all): a word that many documents have as typed is what its writers meant. So its
 * parts are read only for such a word, in a second read once its own count is known
 * (partsToRead), not for every Latin word of every query.
 */
export const SPLIT_MAX_DF = 20;
/** Most parts a Hangul word is cut into. */
export const MAX_SPLIT_PARTS = 4;
/** Concatenations of at most this many adjacent words. */
export const MAX_CONCATENATED = 3;

const LETTERS = /^\p{L}+$/u;

const PREFIX_MARK = '*';

/** The plan's term for a prefix (prefix=1): `sea*`. */
export function prefixMark(prefix: string): string {
  return prefix + PREFIX_MARK;
}

/** The prefix a plan term stands for, or null for a term matched whole. */
export function markedPrefix(term: string): string | null {
  return term.endsWith(PREFIX_MARK) ? term.slice(0, -PREFIX_MARK.length) : null;
}

/**
 * A plan's `has` over a document's terms: a term whole, a prefix mark by any term that starts
 * with the prefix.
 */
export function documentHas(terms: ReadonlySet<string>): (term: string) => boolean {
  return (t) => {
    const prefix = markedPrefix(t);
    if (prefix === null) return terms.has(t);
    for (const term of terms) if (matchesPrefix(term, prefix)) return true;
    return false;
  };
}

/** A query word that spacing can apply to: one stem, of one kind. */
interface Unit {
  stem: string;
  bigram: boolean;
  chars: string[];
}

function unitOf(word: QueryWord): Unit | null {
  if (word.stems.length !== 1) return null;
  const stem = word.stems[0]!;
  return { stem, bigram: isBigramRun(stem), chars: Array.from(stem) };
}

/**
 * What deciding the plan of q takes: its words, and the terms whose df the decision reads
 * (`lookups`) — known before any df is.
 */
export interface PlanCandidates {
  readonly words: readonly QueryWord[];
  /** per word: the spacing unit, or null (a word of several runs, or derivations off) */
  readonly units: ReadonlyArray<Unit | null>;
  /** per concatenation [from, to] (word indexes, inclusive): its terms */
  readonly concatenations: ReadonlyArray<{ from: number; to: number; terms: TermSet }>;
  /** the terms whose df decides the splits */
  readonly lookups: readonly string[];
  /** prefix=1: the prefix that prefixMark(prefix) stands for in the last word, else null */
  readonly prefix: string | null;
}

/**
 * The candidates of q's derived forms (the dictionary decides the splits among them); with
 * `prefix` (prefix=1), q's last term as a prefix where the rule of prefix-expansion.ts makes it one.
 */
export function planCandidates(q: string, opts: { prefix?: boolean } = {}): PlanCandidates {
  const words = queryWords(q);
  const prefix = opts.prefix ? withPrefixMark(q, words) : null;
  const spacing = words.length <= MAX_SPACING_WORDS;
  const units = words.map((w, i) =>
    spacing && !(prefix !== null && i === words.length - 1) ? unitOf(w) : null,
  );
  const concatenations: Array<{ from: number; to: number; terms: TermSet }> = [];
  for (let from = 0; from < units.length; from++) {
    for (let to = from + 1; to < units.length && to - from < MAX_CONCATENATED; to++) {
      const run = units.slice(from, to + 1);
      if (run.some((u) => u === null || u.bigram !== run[0]!.bigram)) break;
      if (run[0]!.bigram && !run.some((u) => u!.chars.length === 1)) continue;
      concatenations.push({
        from,
        to,
        terms: distinctStemTerms([run.map((u) => u!.stem).join('')]),
      });
    }
  }
  const lookups = new Set<string>();
  for (const cc of concatenations) for (const t of cc.terms) lookups.add(t);
  for (const u of units) {
    if (!u) continue;
    if (u.bigram) {
      if (u.chars.length >= 4) for (const t of distinctStemTerms([u.stem])) lookups.add(t);
    } else if (latinSplittable(u)) {
      lookups.add(u.stem);
      for (let k = 2; k <= u.chars.length - 2; k++) {
        lookups.add(u.chars.slice(0, k).join(''));
        lookups.add(u.chars.slice(k).join(''));
      }
    }
  }
  return { words, units, concatenations, lookups: [...lookups], prefix };
}

/**
 * prefix=1: when q's last term is a prefix (prefixQuery), it is replaced by its mark among the
 * last word's terms (in place) and returned; else null.
 */
function withPrefixMark(q: string, words: QueryWord[]): string | null {
  const { prefix } = prefixQuery(q, true);
  const last = words[words.length - 1];
  if (prefix === null || !last?.terms.includes(prefix)) return null;
  words[words.length - 1] = {
    ...last,
    terms: last.terms.map((t) => (t === prefix ? prefixMark(prefix) : t)),
  };
  return prefix;
}

function latinSplittable(u: Unit): boolean {
  return u.chars.length >= 4 && u.chars.length <= SPLIT_MAX_CHARS && LETTERS.test(u.stem);
}

/** The plan of q given the collection's document frequencies (0 for a term it has not). */
export function decidePlan(c: PlanCandidates, df: (term: string) => number): QueryPlan {
  const clauses = c.words.map((word, i) => {
    const derived: TermSet[] = [];
    const u = c.units[i];
    const split = u ? (u.bigram ? hangulSplit(u, df) : latinSplit(u, df)) : null;
    if (split) derived.push(split);
    for (const cc of c.concatenations) {
      if (cc.from <= i && i <= cc.to && cc.terms.every((t) => df(t) > 0)) derived.push(cc.terms);
    }
    return { typed: [word.terms], derived };
  });
  const seen = new Set<string>();
  return {
    clauses: clauses.filter((clause) => {
      const key = `${clauseKey(clause.typed)}\u0003${clauseKey(clause.derived)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
  };
}

/**
 * Alternatives as one string (a term is a run of letters, marks and digits, or a prefix mark:
 * no control characters).
 */
const clauseKey = (sets: readonly TermSet[]) =>
  sets.map((set) => set.join('\u0001')).join('\u0002');

/** decidePlan(planCandidates(q), df). */
export function planQuery(q: string, df: (term: string) => number): QueryPlan {
  return decidePlan(planCandidates(q), df);
}

/** The bigrams of a Hangul word's parts, cut at its rare bridges; null when none is. */
function hangulSplit(u: Unit, df: (term: string) => number): TermSet | null {
  const n = u.chars.length;
  if (n < 4) return null;
  const bigram = (i: number) => u.chars[i]! + u.chars[i + 1]!;
  /** cut after syllable index i (0-based): parts chars[..i] and chars[i+1..] */
  const weak: Array<{ at: number; df: number }> = [];
  for (let at = 1; at <= n - 3; at++) {
    const bridge = df(bigram(at));
    const sides = Math.min(df(bigram(at - 1)), df(bigram(at + 1)));
    if (sides > 0 && RARE_RATIO * bridge <= sides) weak.push({ at, df: bridge });
  }
  weak.sort((a, b) => a.df - b.df || a.at - b.at);
  const cuts: number[] = [];
  for (const w of weak) {
    if (cuts.length + 1 >= MAX_SPLIT_PARTS) break;
    if (cuts.every((at) => Math.abs(at - w.at) >= 2)) cuts.push(w.at);
  }
  if (cuts.length === 0) return null;
  cuts.sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const at of [...cuts, n - 1]) {
    const part = u.chars.slice(from, at + 1).join('');
    const stem = queryStem(part, 'word');
    // a part is searched by its stem unless that leaves one syllable (too broad)
    parts.push(Array.from(stem).length >= 2 ? stem : part);
    from = at + 1;
  }
  return distinctStemTerms(parts);
}

/** The best cut of a whole-run word into two indexed terms; null when none is taken. */
function latinSplit(u: Unit, df: (term: string) => number): TermSet | null {
  if (!latinSplittable(u)) return null;
  const whole = df(u.stem);
  if (whole > SPLIT_MAX_DF) return null;
  let best: TermSet | null = null;
  let bestDf = 0;
  for (let k = 2; k <= u.chars.length - 2; k++) {
    const a = u.chars.slice(0, k).join('');
    const b = u.chars.slice(k).join('');
    const parts = Math.min(df(a), df(b));
    if (parts > 0 && RARE_RATIO * whole <= parts && parts > bestDf) {
      best = [a, b];
      bestDf = parts;
    }
  }
  return best;
}

/** Every term the plan can ask for, distinct. */
export function planTerms(plan: QueryPlan): string[] {
  const seen = new Set<string>();
  for (const c of plan.clauses)
    for (const set of [...c.typed, ...c.derived]) for (const t of set) seen.add(t);
  return [...seen];
}

/** The terms of q as typed (every typed alternative's), distinct. */
export function typedTerms(plan: QueryPlan): string[] {
  const seen = new Set<string>();
  for (const c of plan.clauses) for (const set of c.typed) for (const t of set) seen.add(t);
  return [...seen];
}

/** Whether a plan has derived forms (otherwise it is matched exactly as before them). */
export function hasDerived(plan: QueryPlan): boolean {
  return plan.clauses.some((c) => c.derived.length > 0);
}

/** Whether a document whose terms `has` tells matches the plan (as typed or derived). */
export function matchesPlan(plan: QueryPlan, has: (term: string) => boolean): boolean {
  if (plan.clauses.length === 0) return false;
  const all = (set: TermSet) => set.every(has);
  return plan.clauses.every((c) => c.typed.some(all) || c.derived.some(all));
}

/** Whether a document matches q as typed. */
export function matchesTyped(plan: QueryPlan, has: (term: string) => boolean): boolean {
  if (plan.clauses.length === 0) return false;
  return plan.clauses.every((c) => c.typed.some((set) => set.every(has)));
}

/**
 * The relevance tier of a document that matches the plan (sort=0): 0 typed with the typed
 * terms in the title, 1 typed, 2 derived with the plan matched in the title, 3 derived.
 */
export function planTier(
  plan: QueryPlan,
  has: (term: string) => boolean,
  inTitle: (term: string) => boolean,
): 0 | 1 | 2 | 3 {
  if (matchesTyped(plan, has)) return matchesTyped(plan, inTitle) ? 0 : 1;
  return matchesPlan(plan, inTitle) ? 2 : 3;
}

/**
 * What the pending tail's SQL filters by before the dictionary is known: a row can match q's
 * plan only when it has every `required` term (the typed terms of the words nothing can be
 * derived for) and at least one `wanted` term (any term a plan of q can ask for); the plan
 * itself is then matched on the row's terms among the wanted ones. A prefix mark is never
 * required: the snapshot's SQL matches the prefix by its range and adds the mark to the row.
 */
export function tailFilter(c: PlanCandidates): { required: string[]; wanted: string[] } {
  const required = new Set<string>();
  const wanted = new Set<string>(c.lookups);
  c.words.forEach((w, i) => {
    for (const t of w.terms) wanted.add(t);
    const u = c.units[i];
    const splittable =
      u !== null && u !== undefined && (u.bigram ? u.chars.length >= 4 : latinSplittable(u));
    const joined = c.concatenations.some((cc) => cc.from <= i && i <= cc.to);
    if (!splittable && !joined)
      for (const t of w.terms) if (markedPrefix(t) === null) required.add(t);
  });
  for (const cc of c.concatenations) for (const t of cc.terms) wanted.add(t);
  return { required: [...required], wanted: [...wanted] };
}

/**
 * A search's brute force over documents given one by one (their terms): the documents that
 * match q's plan, the plan decided by these same documents' counts, as the engine decides it
 * (eval and bench check the engine against it). Keeps of each document only which of the terms
 * a plan of q can ask for it has, and only as a count per distinct such subset: documents with
 * the same subset count alike for the plan and its matches, so the memory is that of the
 * subsets seen, not of the documents (the bench counts 1,000,000 documents for 26 queries).
 */
export class PlanCounter {
  private readonly candidates: PlanCandidates;
  private readonly wanted: string[];
  /** the documents added, by the subset of `wanted` they have (its terms joined by NUL) */
  private readonly subsets = new Map<string, { terms: Set<string>; documents: number }>();

  constructor(q: string) {
    this.candidates = planCandidates(q);
    this.wanted = tailFilter(this.candidates).wanted;
  }

  /** One more document, by whether it has a term. */
  add(has: (term: string) => boolean): void {
    const terms = this.wanted.filter(has);
    const key = terms.join('\0');
    const subset = this.subsets.get(key);
    if (subset) subset.documents++;
    else this.subsets.set(key, { terms: new Set(terms), documents: 1 });
  }

  /** q's plan over the documents added. */
  plan(): QueryPlan {
    return decidePlan(this.candidates, (t) => this.documents((terms) => terms.has(t)));
  }

  /** The number of documents added that match q's plan. */
  count(): number {
    const plan = this.plan();
    return this.documents((terms) => matchesPlan(plan, (t) => terms.has(t)));
  }

  /** the documents added whose subset of terms passes `test` */
  private documents(test: (terms: Set<string>) => boolean): number {
    let n = 0;
    for (const s of this.subsets.values()) if (test(s.terms)) n += s.documents;
    return n;
  }
}

/** The two-part cuts of a whole-run word that latinSplit weighs: its parts' terms. */
function latinParts(u: Unit): string[] {
  const parts: string[] = [];
  for (let k = 2; k <= u.chars.length - 2; k++)
    parts.push(u.chars.slice(0, k).join(''), u.chars.slice(k).join(''));
  return parts;
}

/**
 * The terms a search reads first: every term a plan of q can ask for (tailFilter's wanted) but
 * the parts of whole-run words, which partsToRead adds for the rare ones only.
 */
export function firstRead(c: PlanCandidates, wanted = tailFilter(c).wanted): string[] {
  const later = new Set<string>();
  for (const u of c.units)
    if (u && !u.bigram && latinSplittable(u)) for (const t of latinParts(u)) later.add(t);
  // a part that is also a word of q, or a term of a concatenation, is read first anyway
  const needed = new Set(c.words.flatMap((w) => w.terms));
  for (const cc of c.concatenations) for (const t of cc.terms) needed.add(t);
  return wanted.filter((t) => !later.has(t) || needed.has(t));
}

/**
 * The parts' terms to read after firstRead (`read`: what it read), given the counts read so
 * far: those of the whole-run words that at most SPLIT_MAX_DF documents have (the only ones
 * latinSplit may cut), less what was read already.
 */
export function partsToRead(
  c: PlanCandidates,
  df: (term: string) => number,
  read: ReadonlySet<string> = new Set(firstRead(c)),
): string[] {
  const out = new Set<string>();
  for (const u of c.units) {
    if (!u || u.bigram || !latinSplittable(u) || df(u.stem) > SPLIT_MAX_DF) continue;
    for (const t of latinParts(u)) if (!read.has(t)) out.add(t);
  }
  return [...out];
}
