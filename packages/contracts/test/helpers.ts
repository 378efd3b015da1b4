/** What the contract tests share: reading a Result, and a doc body to give parseDoc. */
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
