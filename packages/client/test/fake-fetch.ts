import type { FetchInit, FetchLike } from '../src/http';
import { SearchClient, type SearchClientOptions } from '../src/search/search-client';

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Call extends FetchInit {
  url: string;
}

/** A fetch that records each call and answers the given answers in turn. */
export function fakeFetch(...answers: Answer[]): FetchLike & { calls: Call[] } {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, ...init });
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected request ${init.method} ${url}`);
    const headers = new Map(
      Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v] as const),
    );
    return {
      status: answer.status,
      headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null },
      text: async () => answer.body ?? '',
    };
  };
  return Object.assign(fetch, { calls });
}

export const FAKE_APIKEY = '0123456789abcdef0123456789abcdef';

/** A SearchClient of collection abcd1234 ({base_url} http://h/index, {search_url} http://s) on
 * a fakeFetch of these answers; `options` adds to or replaces its options. */
export function fakeSearchClient(
  answers: Answer[],
  options: Partial<SearchClientOptions> = {},
): { fetch: ReturnType<typeof fakeFetch>; search: SearchClient } {
  const fetch = fakeFetch(...answers);
  const search = new SearchClient({
    baseUrl: 'http://h/index',
    searchUrl: 'http://s',
    cid: 'abcd1234',
    apikey: FAKE_APIKEY,
    fetch,
    ...options,
  });
  return { fetch, search };
}
