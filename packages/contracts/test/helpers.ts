/**
 * What the contract tests share: reading a Result, a doc body to give parseDoc, and tables of
 * calls and their results.
 */
import type { ContractError, Result } from '../src';

export function errorOf<T>(r: Result<T>): ContractError | undefined {
  return r.ok ? undefined : r.error;
}

export function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected success, got ${r.error.text}`);
  return r.value;
}

/** [what, raw, error] rows → [what, '<status> <text>', raw, error] for readable test names. */
export function labelled<R>(
  rows: [string, R, ContractError][],
): [string, string, R, ContractError][] {
  return rows.map(([what, raw, e]) => [what, `${e.status} ${e.text}`, raw, e]);
}

/** A valid doc body with the given extra (or replaced) members, as JSON members text. */
export function doc(members: Record<string, string> = {}): string {
  const base: Record<string, string> = {
    icontents_title: '"Title"',
    icontents_body: '"Body text"',
    score_regdate: '1700000000',
    ...members,
  };
  const parts = Object.entries(base)
    .filter(([, v]) => v !== 'OMIT')
    .map(([k, v]) => `${JSON.stringify(k)}:${v}`);
  return `{${parts.join(',')}}`;
}

/**
 * One test per case, named `title` (it.each: the case's values fill its placeholders): a case
 * is fn's arguments and then what fn gives for them (toEqual).
 */
export function testCalls<A extends unknown[], R>(
  title: string,
  fn: (...args: A) => R,
  cases: readonly (readonly [...A, R])[],
): void {
  it.each(cases as unknown as unknown[][])(title, (...row) => {
    expect(fn(...(row.slice(0, -1) as A))).toEqual(row.at(-1));
  });
}
