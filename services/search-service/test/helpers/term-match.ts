import { queryTerms, terms, type AnalyserOptions } from '../../src/index/analyser';

/** A query matches a text when every query term is among the text's terms (as the engine). */
export function matches(text: string, q: string, opts: AnalyserOptions = {}): boolean {
  const have = new Set(terms(text, opts));
  const need = queryTerms(q, opts);
  return need.length > 0 && need.every((t) => have.has(t));
}

type MatchCase = readonly [text: string, q: string];

/** One test per [text, q] case, named `title` (%s: the text, then q): q finds the text. */
export function testFinds(title: string, cases: readonly MatchCase[]): void {
  test.each(cases)(title, (text, q) => {
    expect(matches(text, q)).toBe(true);
  });
}

/** One test per [text, q] case, named `title` (%s: the text, then q): q does not find the text. */
export function testMisses(
  title: string,
  cases: readonly MatchCase[],
  opts: AnalyserOptions = {},
): void {
  test.each(cases)(title, (text, q) => {
    expect(matches(text, q, opts)).toBe(false);
  });
}
