import type { FetchInit, FetchLike } from '../src/http';

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
