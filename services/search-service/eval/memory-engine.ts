import { distinctTerms, queryTerms, type AnalyserOptions } from '../src/index/analyser';
import {
  andNotInto,
  cardinality,
  newBitset,
  orInto,
  setBit,
  type Bitset,
} from '../src/index/postgres/format/bitset';
import {
  andPlanInto,
  fillAll,
  PlanBitsets,
  type OrTerm,
} from '../src/index/postgres/read/plan-bitsets';
import { decidePlan, hasDerived, planCandidates, type QueryPlan } from '../src/index/query-plan';
import { CollectionView } from '../src/index/postgres/read/collection-view';
import { evaluate } from '../src/index/postgres/read/evaluate';

/** A document of the evaluation set: an icontents_title, an icontents_body and its date. */
export interface EvalDocument {
  id: string;
  title: string;
  body: string;
  /** score_regdate */
  regdate: number;
}

export interface MemoryEngine {
  /** the ids of the first `len` documents the Postgres engine answers for q (sort=0) */
  search(q: string, len: number): string[];
}

/**
 * The Postgres engine's matching and ranking over documents held in memory: the same analyser
 * (terms of every icontents field, title terms apart), the same query plan (query-plan.ts:
 * the words as typed or by the forms derived for spacing from these documents' counts) over
 * posting bitsets (plan-bitsets.ts), and the engine's own evaluate() for the order (its
 * relevance tiers, then newest score_regdate, then the higher documents.id), as if every
 * document were folded into one segment. Only the storage is left out; test/korean-eval.test.ts checks that the real engine
 * answers the same.
 */
export function createMemoryEngine(
  docs: readonly EvalDocument[],
  analyser: AnalyserOptions,
  /** derived forms for spacing (query-plan.ts), as the engine has them; off: as typed only */
  spacing = true,
): MemoryEngine {
  // document number i is documents.id i + 1: the order the real engine gives when they are
  // added one after another
  const view = new CollectionView('eval', 'eval');
  view.append(
    0,
    docs.map((_, i) => i + 1),
    docs.map((d) => d.regdate),
  );
  const words = new Map<string, Bitset>();
  const titleWords = new Map<string, Bitset>();
  const post = (lists: Map<string, Bitset>, term: string, docno: number) => {
    let bits = lists.get(term);
    if (!bits) lists.set(term, (bits = newBitset(docs.length)));
    setBit(bits, docno);
  };
  docs.forEach((d, docno) => {
    for (const term of distinctTerms([d.title, d.body], analyser)) post(words, term, docno);
    for (const term of distinctTerms([d.title], analyser)) post(titleWords, term, docno);
  });
  const orTerm =
    (lists: Map<string, Bitset>): OrTerm =>
    (term, bits) => {
      const found = lists.get(term);
      if (found) orInto(bits, found);
      return found !== undefined;
    };
  const df = (term: string) => {
    const found = words.get(term);
    return found ? cardinality(found) : 0;
  };

  return {
    search(q, len) {
      let plan: QueryPlan = analyser.bigramOnly
        ? { clauses: queryTerms(q, analyser).map((t) => ({ typed: [[t]], derived: [] })) }
        : decidePlan(planCandidates(q), df);
      if (!spacing) plan = { clauses: plan.clauses.map((c) => ({ ...c, derived: [] })) };
      if (plan.clauses.length === 0) return [];
      const size = docs.length;
      const work = new PlanBitsets(size, newBitset(size));
      const matches = newBitset(size);
      fillAll(matches, size);
      andPlanInto(matches, plan, true, orTerm(words), work);
      const tiers = rankTiers(plan, matches, orTerm(words), orTerm(titleWords), work);
      const { docIds } = evaluate({
        matches,
        tiers,
        view,
        tail: [],
        sort: 0,
        start: 0,
        len,
        from: null,
        to: null,
      });
      return docIds.map((id) => docs[Number(id) - 1]!.id);
    },
  };
}

/** bitmap-search.ts's relevance tiers, over lists in memory. */
function rankTiers(
  plan: QueryPlan,
  matches: Bitset,
  words: OrTerm,
  titles: OrTerm,
  work: PlanBitsets,
): Bitset[] {
  if (!hasDerived(plan)) {
    const title = matches.slice();
    andPlanInto(title, plan, false, titles, work);
    return [title];
  }
  const typed = matches.slice();
  andPlanInto(typed, plan, false, words, work);
  const typedTitle = typed.slice();
  andPlanInto(typedTitle, plan, false, titles, work);
  andNotInto(typed, typedTitle);
  const derivedTitle = matches.slice();
  andNotInto(derivedTitle, typed);
  andNotInto(derivedTitle, typedTitle);
  andPlanInto(derivedTitle, plan, true, titles, work);
  return [typedTitle, typed, derivedTitle];
}
