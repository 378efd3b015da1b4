// Types of mix.mjs, for the tests of its logic (test/bench-oracle.test.ts).
import type { OracleQuery } from './oracle.mjs';
export interface Send {
  params: Record<string, string | number>;
  oracle?: number;
}
export function buildMix(options: {
  df: { ko: Map<string, number>; en: Map<string, number> };
  oracle: OracleQuery[];
  count: number;
}): { distinct: number; sends: Send[] };
