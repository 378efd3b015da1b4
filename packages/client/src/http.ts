/** What the client needs of `fetch`: any WHATWG fetch (Node 20+, browsers, undici) fits. */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** The global fetch, looked up at call time (so a polyfill installed later is used). */
export const globalFetch: FetchLike = (url, init) => globalThis.fetch(url, init);

/** `base` (with or without a trailing slash, with or without a path prefix) + `path`. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/** A token given as text or as a function (to renew short-lived tokens). */
export type TokenSource = string | (() => string | Promise<string>);

export async function resolveToken(token: TokenSource): Promise<string> {
  return typeof token === 'function' ? token() : token;
}
