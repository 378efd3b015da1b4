/**
 * Ranking metrics at a cutoff k, with binary relevance (a document is judged relevant to the
 * query or not).
 */

/** Relevant documents among the first k returned, over all relevant documents. */
export function recallAt(k: number, returned: readonly string[], relevant: ReadonlySet<string>) {
  if (relevant.size === 0) return 1;
  return hits(k, returned, relevant) / relevant.size;
}

/**
 * Relevant documents among the first k returned, over the documents returned there (at most
 * k): a false match costs precision, a short list does not. 0 when nothing is returned (every
 * query of the set has a relevant document, so an empty answer is a miss).
 */
export function precisionAt(k: number, returned: readonly string[], relevant: ReadonlySet<string>) {
  const shown = Math.min(k, returned.length);
  return shown === 0 ? 0 : hits(k, returned, relevant) / shown;
}

/** Discounted cumulative gain of the first k, over that of the ideal order (1 / log2(rank + 1)). */
export function ndcgAt(k: number, returned: readonly string[], relevant: ReadonlySet<string>) {
  let dcg = 0;
  returned.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 1 : dcg / ideal;
}

function hits(k: number, returned: readonly string[], relevant: ReadonlySet<string>): number {
  return returned.slice(0, k).filter((id) => relevant.has(id)).length;
}
