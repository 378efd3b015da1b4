import type { FeedClient } from '@hub/client' with { 'resolution-mode': 'import' };
import { FEED_ERRORS } from '@hub/contracts';
import { runClientReadme } from '@hub/testing';
import { serveApp, useDatabase } from './helpers/harness';
import { item, TYPE_JSON as JSON_TYPE, TYPE_XML as XML_TYPE } from './helpers/requests';
import { READ_TOKEN, token, WRITE_TOKEN } from './helpers/tokens';

// The client is ESM: loaded with import() (jest maps it to its TypeScript sources).
type ClientModule = typeof import('@hub/client', { with: { 'resolution-mode': 'import' } });
const loadClient = (): Promise<ClientModule> => import('@hub/client');

describe('feed-service through @hub/client', () => {
  const db = useDatabase();
  let lib!: ClientModule;
  let service!: Awaited<ReturnType<typeof serveApp>>;
  let writer!: FeedClient;
  let reader!: FeedClient;
  beforeAll(async () => {
    lib = await loadClient();
    service = await serveApp(db);
    writer = new lib.FeedClient({ baseUrl: service.url, token: WRITE_TOKEN });
    reader = new lib.FeedClient({ baseUrl: service.url, token: READ_TOKEN });
  });
  afterAll(() => service.close());

  it('Publishing answers 201 with the stored item and its Location; the same item again answers 200', async () => {
    const input = item({ link: 'https://hub.example.com/client/1' }) as Parameters<
      FeedClient['publish']
    >[0];
    const first = await writer.publish(input);
    expect(first).toEqual({
      status: 201,
      created: true,
      location: `${service.url}/hub/contents/${first.item.id}`,
      item: {
        id: first.item.id,
        title: '서울의 가을 산책길',
        link: 'https://hub.example.com/client/1',
        author: 'hub@example.com (Hub)',
        description: '단풍이 아름다운 산책 코스를 소개합니다.',
        category: 'trip',
        pubDate: 'Mon, 23 Nov 2026 05:26:57 GMT',
        guid: 'https://hub.example.com/client/1',
        creator: '김하늘',
      },
    });
    expect(first.item.id).toMatch(/^[0-9]+$/);
    expect(await writer.publish(input)).toEqual({ ...first, status: 200, created: false });
  });

  it('A taken link throws FeedLinkConflictError with the Location of the item that has it', async () => {
    const a = await writer.publish({ ...baseItem(), link: 'https://hub.example.com/client/a' });
    const other = { ...baseItem(), link: 'https://hub.example.com/client/a', title: 'other' };
    const error = await writer.publish(other).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.FeedLinkConflictError);
    expect(error).toMatchObject({
      ...answered(409, 'linkConflict'),
      location: a.location,
      body: JSON.stringify({ error: { status: 409, message: FEED_ERRORS.linkConflict.text } }),
    });
    const b = await writer.publish({ ...baseItem(), link: 'https://hub.example.com/client/b' });
    await expect(
      writer.update(b.item.id, { ...baseItem(), link: 'https://hub.example.com/client/a' }),
    ).rejects.toMatchObject({ status: 409, location: a.location });
  });

  it('When the feed did not change, read answers the remembered representation', async () => {
    const client = new lib.FeedClient({ baseUrl: service.url, token: READ_TOKEN });
    const first = await client.read({ category: 'trip' });
    expect(first.status).toBe(200);
    expect(first.contentType).toBe(JSON_TYPE);
    expect(first.etag).toMatch(/^W\/".+"$/);
    expect(first.feed.channel.item.map((i) => i.link)).toContain(
      'https://hub.example.com/client/1',
    );
    const again = await client.read({ category: 'trip' });
    expect(again).toEqual({ ...first, status: 304, notModified: true });
    expect(again.feed).toBe(first.feed);
  });

  it('After a write, read answers 200 with the new representation and a new ETag', async () => {
    const client = new lib.FeedClient({ baseUrl: service.url, token: READ_TOKEN });
    const before = await client.read({ category: 'life' });
    await writer.publish({
      ...baseItem(),
      category: 'life',
      link: 'https://hub.example.com/client/life',
    });
    const after = await client.read({ category: 'life' });
    expect(after.status).toBe(200);
    expect(after.notModified).toBe(false);
    expect(after.etag).not.toBe(before.etag);
    expect(after.feed.channel.item.map((i) => i.link)).toEqual([
      'https://hub.example.com/client/life',
    ]);
    expect((await client.read({ category: 'life' })).status).toBe(304);
  });

  it('A read in format xml answers the RSS 2.0 text with the vendor XML type', async () => {
    const rss = await reader.read({ format: 'xml', category: 'trip' });
    expect(rss.status).toBe(200);
    expect(rss.contentType).toBe(XML_TYPE);
    expect(rss.feed).toBe(rss.text);
    expect(rss.text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n?<rss version="2\.0"/);
    expect(rss.text).toContain('<guid>https://hub.example.com/client/1</guid>');
  });

  it('A 304 for an ETag the client does not remember has no body', async () => {
    const current = await reader.read();
    const fresh = new lib.FeedClient({ baseUrl: service.url, token: READ_TOKEN });
    expect(await fresh.read({ etag: current.etag! })).toEqual({
      status: 304,
      notModified: true,
      etag: current.etag,
      feed: undefined,
    });
  });

  it('Update replaces the item; delete removes it; deleting it again is FeedError 404', async () => {
    const p = await writer.publish({ ...baseItem(), link: 'https://hub.example.com/client/u' });
    const updated = await writer.update(p.item.id, {
      ...baseItem(),
      link: 'https://hub.example.com/client/u',
      title: 'new title',
      pubDate: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
    });
    expect(updated).toMatchObject({
      id: p.item.id,
      title: 'new title',
      pubDate: 'Fri, 02 Jan 2026 03:04:05 GMT',
    });
    await expect(writer.delete(p.item.id)).resolves.toBeUndefined();
    const error = await writer.delete(p.item.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.FeedError);
    expect(error).toMatchObject({ ...answered(404, 'notFound'), detail: undefined });
  });

  it('A token without hub:write cannot publish: FeedError 403 of FEED_ERRORS.forbidden', async () => {
    const error = await reader.publish(baseItem()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.FeedError);
    expect((error as InstanceType<ClientModule['FeedError']>).is(FEED_ERRORS.forbidden)).toBe(true);
    expect(error).toMatchObject({
      status: 403,
      code: 'forbidden',
      text: FEED_ERRORS.forbidden.text,
    });
  });

  it('An expired token is FeedError 401 with the reason as detail', async () => {
    const expired = new lib.FeedClient({ baseUrl: service.url, token: token({ expiresIn: -10 }) });
    await expect(expired.read()).rejects.toMatchObject({
      name: 'FeedError',
      status: 401,
      code: 'authenticationFailed',
      text: FEED_ERRORS.authenticationFailed.text,
      message: `${FEED_ERRORS.authenticationFailed.text}: token expired`,
      detail: 'token expired',
    });
  });

  it('A bad item is FeedError 422 naming the field', async () => {
    await expect(writer.publish({ ...baseItem(), title: ' ' })).rejects.toMatchObject({
      status: 422,
      code: 'invalidParameter',
      text: FEED_ERRORS.invalidParameter.text,
      detail: expect.stringContaining('title'),
    });
  });
});

describe('The client README examples (feed) run against the feed-service', () => {
  const db = useDatabase();

  it('Every feed example runs and prints what its comment says', async () => {
    const service = await serveApp(db);
    try {
      const { printed, expected } = await runClientReadme('feed', {
        client: await loadClient(),
        env: { FEED_TOKEN: WRITE_TOKEN },
        addresses: { 'http://127.0.0.1:8080': service.url },
      });
      expect(printed).toEqual(expected);
      expect(printed.length).toBeGreaterThanOrEqual(8);
    } finally {
      await service.close();
    }
  });
});

/** A FeedError's status, code, and text and message: the text of that FEED_ERRORS row. */
function answered(status: number, code: keyof typeof FEED_ERRORS) {
  return { status, code, text: FEED_ERRORS[code].text, message: FEED_ERRORS[code].text };
}

function baseItem() {
  return {
    title: 't',
    link: 'https://hub.example.com/client/x',
    description: 'd',
    category: 'it',
    creator: 'c',
  } as const;
}
