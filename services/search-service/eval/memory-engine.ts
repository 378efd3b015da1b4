import { distinctTerms, queryTerms, type AnalyserOptions } from '../src/index/analyser';
import { andInto, newBitset, setBit, type Bitset } from '../src/index/postgres/format/bitset';
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
 * (terms of every icontents field, title terms apart), the same AND of the query's terms over
 * posting bitsets, and the engine's own evaluate() for the order (title tier, then newest
 * score_regdate, then the higher documents.id), as if every document were folded into one
 * segment. Only the storage is left out; test/korean-eval.test.ts checks that the real engine
 * answers the same.
 */
export function createMemoryEngine(
  docs: readonly EvalDocument[],
  analyser: AnalyserOptions,
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
  const list = (lists: Map<string, Bitset>, term: string) =>
    lists.get(term) ?? newBitset(docs.length);

  return {
    search(q, len) {
      const terms = queryTerms(q, analyser);
      if (terms.length === 0) return [];
      const matches = list(words, terms[0]!).slice();
      for (const term of terms.slice(1)) andInto(matches, list(words, term));
      const titleMatches = matches.slice();
      for (const term of terms) andInto(titleMatches, list(titleWords, term));
      const { docIds } = evaluate({
        matches,
        titleMatches,
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
