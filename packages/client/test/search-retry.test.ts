import {
  SEARCH_HTTP_ERRORS,
  SEARCH_RETRY_AFTER_SECONDS,
} from '../../contracts/src/search/http-errors';
import { SearchHttpError, TooManyRequestsError } from '../src/errors';
import type { SearchRetryOptions } from '../src/search/search-types';
import { fakeSearchClient, type Answer } from './fake-fetch';

const JSON_OK: Answer = {
  status: 200,
  body: '{"querytime":1,"start":0,"numfound":0,"docs":[]}',
  headers: { 'Content-Type': 'application/json' },
};
const OK: Answer = { status: 200, body: 'OK' };
const { status, text } = SEARCH_HTTP_ERRORS.tooManyRequests;

function refused(retryAfter?: string): Answer {
  return {
    status,
    body: text,
    headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
  };
}

/** A client with `retry` on (its waits recorded, never slept) answering `answers` in turn. */
function retrying(retry: Omit<SearchRetryOptions, 'sleep'> | undefined, ...answers: Answer[]) {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  const { fetch, search } = fakeSearchClient(answers, retry && { retry: { ...retry, sleep } });
  return { fetch, search, waits };
}

describe('Retries of 429 too many requests (opt-in)', () => {
  it('Without the retry option a 429 is thrown at once', async () => {
    const { fetch, search } = retrying(undefined, refused('1'), JSON_OK);
    await expect(search.search({ q: 'a' })).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(fetch.calls).toHaveLength(1);
  });

  it('With retry, a 429 is sent again after its Retry-After, and the next answer counts', async () => {
    const { fetch, search, waits } = retrying(
      { maxAttempts: 3, maxWaitMs: 10_000 },
      refused('1'),
      refused('2'),
      JSON_OK,
    );
    await expect(search.search({ q: 'a' })).resolves.toMatchObject({ numfound: 0 });
    expect(waits).toEqual([1000, 2000]);
    expect(fetch.calls).toHaveLength(3);
    expect(new Set(fetch.calls.map((c) => c.url)).size).toBe(1);
  });

  it('Every operation is retried (a refused request did nothing), the same request each time', async () => {
    const { fetch, search } = retrying({ maxAttempts: 2, maxWaitMs: 1000 }, refused('0'), OK);
    await search.add({ dockey: 'k', doc: '{}' });
    expect(fetch.calls).toHaveLength(2);
    expect(fetch.calls[1]).toEqual(fetch.calls[0]);
  });

  it('After maxAttempts attempts the last 429 is thrown', async () => {
    const { fetch, search, waits } = retrying(
      { maxAttempts: 2, maxWaitMs: 10_000 },
      refused('1'),
      refused('3'),
    );
    await expect(search.search({ q: 'a' })).rejects.toMatchObject({
      code: 'tooManyRequests',
      retryAfterSeconds: 3,
    });
    expect(waits).toEqual([1000]);
    expect(fetch.calls).toHaveLength(2);
  });

  it('A retry that would wait beyond maxWaitMs in all is not made: its 429 is thrown at once', async () => {
    const { fetch, search, waits } = retrying(
      { maxAttempts: 5, maxWaitMs: 2500 },
      refused('1'),
      refused('1'),
      refused('1'),
    );
    await expect(search.search({ q: 'a' })).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(waits).toEqual([1000, 1000]);
    expect(fetch.calls).toHaveLength(3);
  });

  it('A 429 without a valid Retry-After waits SEARCH_RETRY_AFTER_SECONDS', async () => {
    const { search, waits } = retrying(
      { maxAttempts: 3, maxWaitMs: 10_000 },
      refused(),
      refused('soon'),
      JSON_OK,
    );
    await search.search({ q: 'a' });
    expect(waits).toEqual([SEARCH_RETRY_AFTER_SECONDS * 1000, SEARCH_RETRY_AFTER_SECONDS * 1000]);
  });

  it('Other errors are never retried', async () => {
    const row = SEARCH_HTTP_ERRORS.prefixInvalid;
    const { fetch, search, waits } = retrying(
      { maxAttempts: 3, maxWaitMs: 10_000 },
      { status: row.status, body: row.text },
      { status: 503, body: 'Service Unavailable', headers: { 'Retry-After': '1' } },
    );
    await expect(search.search({ q: 'a', prefix: true })).rejects.toBeInstanceOf(SearchHttpError);
    await expect(search.status()).rejects.not.toBeInstanceOf(SearchHttpError);
    expect(waits).toEqual([]);
    expect(fetch.calls).toHaveLength(2);
  });

  it('Without a sleep of its own, the client waits with setTimeout', async () => {
    const { fetch, search } = fakeSearchClient([refused('0'), JSON_OK], {
      retry: { maxAttempts: 2, maxWaitMs: 0 },
    });
    await search.search({ q: 'a' });
    expect(fetch.calls).toHaveLength(2);
  });

  it.each([
    [{ maxAttempts: 0, maxWaitMs: 1000 }],
    [{ maxAttempts: 1.5, maxWaitMs: 1000 }],
    [{ maxAttempts: 2, maxWaitMs: -1 }],
    [{ maxAttempts: 2, maxWaitMs: Number.NaN }],
  ])('Retry options out of range (%p) are refused when the client is made', (retry) => {
    expect(() => fakeSearchClient([], { retry })).toThrow(RangeError);
  });
});
