// Types of raw-http.mjs, for the tests (test/bench-raw-http.test.ts).
export interface RawAnswer {
  status: number;
  /** the body, when kept (keepBody, or a status other than 200); else null */
  body: Buffer | null;
}
export interface RawHttp {
  get(path: string, keepBody: boolean): Promise<RawAnswer>;
  request(method: string, path: string, body: string | null, keepBody: boolean): Promise<RawAnswer>;
  close(): void;
}
export function createRawHttp(opts: { port: number; connections: number }): RawHttp;
