import { queryTerms, terms, type AnalyserOptions } from '../../src/index/analyser';

/** A query matches a text when every query term is among the text's terms (as the engine). */
export function matches(text: string, q: string, opts: AnalyserOptions = {}): boolean {
  const have = new Set(terms(text, opts));
  const need = queryTerms(q, opts);
  return need.length > 0 && need.every((t) => have.has(t));
}
