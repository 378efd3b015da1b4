import { FEED_ERRORS } from '../../contracts/src/feed/errors';
import { FeedError, FeedLinkConflictError, UnexpectedResponseError } from '../src/errors';
import { FeedClient } from '../src/feed/feed-client';
import { fakeFetch } from './fake-fetch';

const JSON_TYPE = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';
const XML_TYPE = 'application/vnd.vendor.resource-1.0+xml;charset=utf-8';
const FEED = { channel: { title: 't', item: [] } };
const ITEM = {
  title: '서울의 가을 산책길',
  link: 'https://hub.example.com/contents/1',
  description: 'd',
  category: 'trip',
  creator: '김하늘',
} as const;
const STORED = { id: '7', ...ITEM, author: 'a@example.com (A)', pubDate: 'p', guid: ITEM.link };

function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: { status, message } });
}

describe('FeedClient', () => {
  it('A read sends the bearer token and the vendor media type of its format and category', async () => {
    const fetch = fakeFetch(
      { status: 200, body: JSON.stringify(FEED), headers: { 'Content-Type': JSON_TYPE } },
      { status: 200, body: '<rss/>', headers: { 'Content-Type': XML_TYPE } },
    );
    const feed = new FeedClient({ baseUrl: 'http://h:1/', token: 'T', fetch });
    const json = await feed.read();
    const rss = await feed.read({ category: 'it', format: 'xml' });
    expect(fetch.calls).toEqual([
      {
        url: 'http://h:1/hub/contents',
        method: 'GET',
        headers: { Authorization: 'Bearer T', Accept: JSON_TYPE },
      },
      {
        url: 'http://h:1/hub/categories/it/contents',
        method: 'GET',
        headers: { Authorization: 'Bearer T', Accept: XML_TYPE },
      },
    ]);
    expect(json).toEqual({
      status: 200,
      notModified: false,
      etag: undefined,
      lastModified: undefined,
      contentType: JSON_TYPE,
      text: JSON.stringify(FEED),
      feed: FEED,
    });
    expect(rss.feed).toBe('<rss/>');
  });

  it('When the feed did not change, read answers the remembered representation', async () => {
    const fetch = fakeFetch(
      { status: 200, body: JSON.stringify(FEED), headers: { ETag: 'W/"1"', 'Last-Modified': 'L' } },
      { status: 304, headers: { ETag: 'W/"1"' } },
    );
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'T', fetch });
    const first = await feed.read();
    const second = await feed.read();
    expect(fetch.calls[0]!.headers['If-None-Match']).toBeUndefined();
    expect(fetch.calls[1]!.headers['If-None-Match']).toBe('W/"1"');
    expect(second).toEqual({ ...first, status: 304, notModified: true });
    expect(second.feed).toEqual(FEED);
  });

  it('Each feed and format has its own remembered ETag', async () => {
    const fetch = fakeFetch(
      { status: 200, body: '{}', headers: { ETag: 'W/"all"' } },
      { status: 200, body: '<rss/>', headers: { ETag: 'W/"all-xml"' } },
      { status: 200, body: '{}', headers: { ETag: 'W/"trip"' } },
      { status: 304 },
    );
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'T', fetch });
    await feed.read();
    await feed.read({ format: 'xml' });
    await feed.read({ category: 'trip' });
    await feed.read({ format: 'xml' });
    expect(fetch.calls.map((c) => c.headers['If-None-Match'])).toEqual([
      undefined,
      undefined,
      undefined,
      'W/"all-xml"',
    ]);
  });

  it('A 304 for a caller-given ETag the client does not remember has no body', async () => {
    const fetch = fakeFetch({ status: 304 });
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'T', fetch });
    expect(await feed.read({ etag: 'W/"x"' })).toEqual({
      status: 304,
      notModified: true,
      etag: 'W/"x"',
      feed: undefined,
    });
    expect(fetch.calls[0]!.headers['If-None-Match']).toBe('W/"x"');
  });

  it('A token function is asked for the token on every request', async () => {
    let n = 0;
    const fetch = fakeFetch({ status: 200, body: '{}' }, { status: 200, body: '{}' });
    const feed = new FeedClient({ baseUrl: 'http://h', token: async () => `T${++n}`, fetch });
    await feed.read();
    await feed.read();
    expect(fetch.calls.map((c) => c.headers.Authorization)).toEqual(['Bearer T1', 'Bearer T2']);
  });

  it('A read error is a FeedError with the contract row, the message and its detail', async () => {
    const message = `${FEED_ERRORS.authenticationFailed.text}: token expired`;
    const body = errorBody(401, message);
    const feed = new FeedClient({
      baseUrl: 'http://h',
      token: 'T',
      fetch: fakeFetch({ status: 401, body }),
    });
    const error = await feed.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect(error).toMatchObject({
      name: 'FeedError',
      code: 'authenticationFailed',
      status: 401,
      text: 'authentication failed',
      detail: 'token expired',
      message: 'authentication failed: token expired',
      body,
    });
    expect((error as FeedError).is(FEED_ERRORS.authenticationFailed)).toBe(true);
  });

  it('An answer matching no contract row is an UnexpectedResponseError', async () => {
    const fetch = fakeFetch(
      { status: 502, body: 'Bad Gateway' },
      { status: 404, body: '{"error":{}}' },
    );
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'T', fetch });
    await expect(feed.read()).rejects.toEqual(
      new UnexpectedResponseError('feed-service answered 502', 502, 'Bad Gateway'),
    );
    await expect(feed.read()).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  /** A client (token W) whose service answers a publish with `status`, STORED and its Location. */
  function publishAnswered(status: number) {
    const fetch = fakeFetch({
      status,
      body: JSON.stringify(STORED),
      headers: { Location: 'http://h/hub/contents/7' },
    });
    return { fetch, feed: new FeedClient({ baseUrl: 'http://h', token: 'W', fetch }) };
  }

  it('Publish POSTs the item as JSON and answers 201 with the item and its Location', async () => {
    const { fetch, feed } = publishAnswered(201);
    const pubDate = new Date(Date.UTC(2026, 10, 23, 5, 26, 57));
    expect(await feed.publish({ ...ITEM, pubDate })).toEqual({
      status: 201,
      created: true,
      item: STORED,
      location: 'http://h/hub/contents/7',
    });
    expect(fetch.calls[0]).toEqual({
      url: 'http://h/hub/contents',
      method: 'POST',
      headers: {
        Authorization: 'Bearer W',
        Accept: JSON_TYPE,
        'Content-Type': 'application/json;charset=utf-8',
      },
      body: JSON.stringify({ ...ITEM, pubDate: 'Mon, 23 Nov 2026 05:26:57 GMT' }),
    });
  });

  it('Publishing an item that is already stored answers 200, created false', async () => {
    const { feed } = publishAnswered(200);
    expect(await feed.publish(ITEM)).toMatchObject({ status: 200, created: false });
  });

  it('A link taken by another item throws FeedLinkConflictError with its Location', async () => {
    const body = errorBody(409, FEED_ERRORS.linkConflict.text);
    const fetch = fakeFetch({
      status: 409,
      body,
      headers: { Location: 'http://h/hub/contents/3' },
    });
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'W', fetch });
    const error = await feed.update('9', ITEM).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedLinkConflictError);
    expect(error).toMatchObject({
      status: 409,
      code: 'linkConflict',
      text: 'an item with this link already exists',
      location: 'http://h/hub/contents/3',
    });
    expect(fetch.calls[0]).toMatchObject({ url: 'http://h/hub/contents/9', method: 'PUT' });
  });

  it('Delete answers nothing on 204 and throws the 404 row for an unknown id', async () => {
    const body = errorBody(404, FEED_ERRORS.notFound.text);
    const fetch = fakeFetch({ status: 204 }, { status: 404, body });
    const feed = new FeedClient({ baseUrl: 'http://h', token: 'W', fetch });
    await expect(feed.delete('7')).resolves.toBeUndefined();
    await expect(feed.delete('7')).rejects.toMatchObject({ status: 404, code: 'notFound' });
    expect(fetch.calls[0]).toEqual({
      url: 'http://h/hub/contents/7',
      method: 'DELETE',
      headers: { Authorization: 'Bearer W', Accept: JSON_TYPE },
    });
  });
});
