import { SEARCH_ERRORS } from '../../contracts/src/search/errors';
import { SEARCH_HTTP_ERRORS } from '../../contracts/src/search/http-errors';
import {
  HubClientError,
  SearchError,
  SearchHttpError,
  TooManyRequestsError,
  UnexpectedResponseError,
  type SearchHttpErrorCode,
} from '../src/errors';
import { fakeFetch, fakeSearchClient } from './fake-fetch';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

function client(...answers: Parameters<typeof fakeFetch>) {
  return fakeSearchClient(answers);
}

const BEYOND_SPEC_OPTION_ROWS: SearchHttpErrorCode[] = [
  'hlInvalid',
  'hlPreTooLong',
  'hlPreInvalid',
  'hlPostTooLong',
  'hlPostInvalid',
  'facetInvalid',
  'prefixInvalid',
];

const HTTP_LEVEL_ROWS: SearchHttpErrorCode[] = [
  'notFound',
  'methodNotAllowed',
  'badRequest',
  'payloadTooLarge',
  'unsupportedMediaType',
];

describe('Search-service answers the spec has no row for', () => {
  it('Every row of SEARCH_HTTP_ERRORS is covered here', () => {
    expect([...BEYOND_SPEC_OPTION_ROWS, ...HTTP_LEVEL_ROWS, 'tooManyRequests'].sort()).toEqual(
      Object.keys(SEARCH_HTTP_ERRORS).sort(),
    );
  });

  it.each(BEYOND_SPEC_OPTION_ROWS)(
    'A search answered with the %s row (a search option beyond the spec) throws a SearchHttpError with that code',
    async (code) => {
      const row = SEARCH_HTTP_ERRORS[code];
      const { search } = client({ status: row.status, body: row.text, headers: TEXT });
      const error = await search.search({ q: 'a', hl: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SearchHttpError);
      expect(error).toBeInstanceOf(HubClientError);
      expect(error).not.toBeInstanceOf(TooManyRequestsError);
      expect(error).toMatchObject({
        name: 'SearchHttpError',
        code,
        status: row.status,
        text: row.text,
        message: row.text,
        body: row.text,
      });
      expect((error as SearchHttpError).is(row)).toBe(true);
    },
  );

  it.each(HTTP_LEVEL_ROWS)(
    'An answer with the HTTP-level %s row throws a SearchHttpError with that code, for any operation',
    async (code) => {
      const row = SEARCH_HTTP_ERRORS[code];
      const { search } = client(
        { status: row.status, body: row.text },
        { status: row.status, body: row.text },
      );
      await expect(search.delete({ dockey: 'k' })).rejects.toMatchObject({
        code,
        status: row.status,
      });
      await expect(search.status()).rejects.toBeInstanceOf(SearchHttpError);
    },
  );

  it('A row’s text with another status is no row: an UnexpectedResponseError', async () => {
    const { search } = client(
      { status: 400, body: SEARCH_HTTP_ERRORS.tooManyRequests.text },
      { status: 422, body: SEARCH_HTTP_ERRORS.facetInvalid.text },
    );
    await expect(search.search({ q: 'a' })).rejects.toBeInstanceOf(UnexpectedResponseError);
    await expect(search.search({ q: 'a' })).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it('A spec row still answers as its SearchError, never as a SearchHttpError', async () => {
    const row = SEARCH_ERRORS.search.sortInvalid;
    const { search } = client({ status: row.status, body: row.text });
    const error = await search.search({ q: 'a', facet: 'categories' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SearchError);
    expect(error).not.toBeInstanceOf(SearchHttpError);
  });
});

describe('429 too many requests', () => {
  const { status, text } = SEARCH_HTTP_ERRORS.tooManyRequests;

  it('The 429 too many requests throws a TooManyRequestsError carrying Retry-After in seconds', async () => {
    const { search } = client({ status, body: text, headers: { ...TEXT, 'Retry-After': '1' } });
    const error = await search.search({ q: 'a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toBeInstanceOf(SearchHttpError);
    expect(error).toMatchObject({
      name: 'TooManyRequestsError',
      code: 'tooManyRequests',
      status: 429,
      text,
      body: text,
      retryAfterSeconds: 1,
    });
  });

  it('A Retry-After given as an HTTP-date is the seconds from now to it', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const { search } = client({ status, body: text, headers: { 'Retry-After': inTwoMinutes } });
    const error = (await search
      .search({ q: 'a' })
      .catch((e: unknown) => e)) as TooManyRequestsError;
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(119);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(120);
  });

  it.each([undefined, '', 'soon', '-1', '1.5'])(
    'Without a valid Retry-After (%p), retryAfterSeconds is undefined',
    async (retryAfter) => {
      const headers: Record<string, string> =
        retryAfter === undefined ? {} : { 'Retry-After': retryAfter };
      const { search } = client({ status, body: text, headers });
      await expect(search.search({ q: 'a' })).rejects.toMatchObject({
        code: 'tooManyRequests',
        retryAfterSeconds: undefined,
      });
    },
  );
});
