// Types of raw-get.mjs, for the tests (test/bench-raw-get.test.ts).
export interface RawAnswer {
  status: number;
  /** the body, when kept (keepBody, or a status other than 200); else null */
  body: Buffer | null;
}
export interface RawGet {
  get(path: string, keepBody: boolean): Promise<RawAnswer>;
  request(method: string, path: string, body: string | null, keepBody: boolean): Promise<RawAnswer>;
  close(): void;
}
export function createRawGet(opts: { port: number; connections: number }): RawGet;
