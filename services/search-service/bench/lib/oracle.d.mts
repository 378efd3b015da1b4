// Types of oracle.mjs, for the tests of its logic (test/bench-oracle.test.ts).
export interface OracleQuery {
  params: Record<string, string | number>;
  words: string[];
  ca?: number[];
  exCa?: number[];
  from?: number;
  to?: number;
}
export type Ack = (ok: boolean) => void;
export interface Model {
  size(): number;
  anyLive(r: () => number): string | undefined;
  put(dockey: string, docJson: string): Ack;
  remove(dockey: string): Ack;
  watch(id: number): { end(): { low: number; high: number } };
}
export function asciiWords(docJson: string): Set<string>;
export function oracleQueries(now: number): OracleQuery[];
export function createModel(queries: OracleQuery[]): Model;
