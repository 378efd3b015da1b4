import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { LISTENER_APPLICATION_NAME } from '../src/cache/invalidation';
import type { FeedApp } from '../src/app';
import { renderFromStore } from '../src/domain/read-feed';
import { makeApp, settled, until, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML, getFeed, item, publish } from './helpers/requests';
import { READ_TOKEN, token } from './helpers/tokens';

const db = useDatabase({ emptyEachTest: true });

const titles = (res: request.Response) =>
  (res.body.channel.item as { title: string }[]).map((i) => i.title);
const served = (app: FeedApp) => app.fastPathStats.served;

describe('validators and Cache-Control', () => {
  test('When a feed is served, it carries a weak ETag, Last-Modified of the newest change and private Cache-Control', async () => {
    const app = await makeApp(db, { FEED_CACHE_MAX_AGE: '120' });
    await publish(app, item());
    const { rows } = await db.pool.query<{ changed_at: Date }>(
      "SELECT changed_at FROM feed_state WHERE feed = 'all'",
    );
    const res = await getFeed(app, '/hub/contents');
    expect(res.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(res.headers['last-modified']).toBe(
      new Date(Math.floor(rows[0]!.changed_at.getTime() / 1000) * 1000).toUTCString(),
    );
    expect(res.headers['cache-control']).toBe('private, max-age=120');
  });

  test('When only the request time changes, the ETag stays; JSON and XML have different ETags', async () => {
    let clock = Date.UTC(2026, 0, 1, 0, 0, 0);
    const app = await makeApp(db, {}, { clock: () => clock });
    await publish(app, item());
    const a = await getFeed(app, '/hub/contents');
    clock += 5000;
    const b = await getFeed(app, '/hub/contents');
    expect(b.body.channel.lastBuildDate).not.toBe(a.body.channel.lastBuildDate);
    expect(b.headers.etag).toBe(a.headers.etag);
    const x = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(x.headers.etag).not.toBe(a.headers.etag);
  });

  test('When If-None-Match holds the current ETag, GET answers 304 without a body; a stale one gets 200', async () => {
    const app = await makeApp(db);
    await publish(app, item());
    const first = await getFeed(app, '/hub/contents');
    const etag = first.headers.etag!;
    for (const inm of [etag, etag.slice(2), `"nope", ${etag}`, '*']) {
      const res = await getFeed(app, '/hub/contents').set('If-None-Match', inm);
      expect([inm, res.status]).toEqual([inm, 304]);
      expect(res.text ?? '').toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe(first.headers['cache-control']);
      expect(res.headers['content-type']).toBeUndefined();
    }
    await publish(app, item({ title: 'new', link: 'https://hub.example.com/new' }));
    const after = await getFeed(app, '/hub/contents').set('If-None-Match', etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
  });

  test('When If-Modified-Since is at or after Last-Modified, GET answers 304; before it, 200', async () => {
    const app = await makeApp(db);
    await publish(app, item());
    await db.pool.query("UPDATE feed_state SET changed_at = now() - interval '1 hour'"); // settled for a while
    await db.pool.query("UPDATE feed_items SET updated_at = now() - interval '1 hour'");
    const first = await getFeed(app, '/hub/contents');
    const lm = first.headers['last-modified']!;
    expect((await getFeed(app, '/hub/contents').set('If-Modified-Since', lm)).status).toBe(304);
    expect(
      (
        await getFeed(app, '/hub/contents').set(
          'If-Modified-Since',
          new Date(Date.parse(lm) + 60_000).toUTCString(),
        )
      ).status,
    ).toBe(304);
    expect(
      (
        await getFeed(app, '/hub/contents').set(
          'If-Modified-Since',
          new Date(Date.parse(lm) - 1000).toUTCString(),
        )
      ).status,
    ).toBe(200);
    expect((await getFeed(app, '/hub/contents').set('If-Modified-Since', 'garbage')).status).toBe(
      200,
    );
    // If-None-Match decides when both are sent
    expect(
      (
        await getFeed(app, '/hub/contents')
          .set('If-Modified-Since', lm)
          .set('If-None-Match', '"other"')
      ).status,
    ).toBe(200);
  });

  test('When a feed is asked for without a valid token, validators do not help: 401 before 304', async () => {
    const app = await makeApp(db);
    const first = await getFeed(app, '/hub/contents');
    const res = await request(app)
      .get('/hub/contents')
      .set('Accept', ACCEPT_JSON)
      .set('If-None-Match', first.headers.etag!);
    expect(res.status).toBe(401);
  });
});

describe('invalidation', () => {
  test('When an item is published, the next read of the same instance shows it', async () => {
    const app = await makeApp(db);
    await publish(app, item({ title: 'one', link: 'https://hub.example.com/one' }));
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['one']);
    await publish(app, item({ title: 'two', link: 'https://hub.example.com/two' }));
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['two', 'one']);
  });

  test('When an item is published through instance A, instance B (same database) serves the new item', async () => {
    const a = await makeApp(db);
    const b = await makeApp(db);
    await settled([a, b], () =>
      publish(a, item({ title: 'before', link: 'https://hub.example.com/before', category: 'it' })),
    );
    for (const path of ['/hub/contents', '/hub/categories/it/contents']) {
      await getFeed(b, path);
      await getFeed(b, path, ACCEPT_XML);
    }
    const servedBefore = served(b);
    expect(titles(await getFeed(b, '/hub/contents'))).toEqual(['before']);
    expect(served(b)).toBe(servedBefore + 1); // B answers from its cache
    await publish(
      a,
      item({ title: 'after', link: 'https://hub.example.com/after', category: 'it' }),
    );
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'after');
    expect(titles(await getFeed(b, '/hub/categories/it/contents'))).toEqual(['after', 'before']);
    expect((await getFeed(b, '/hub/contents', ACCEPT_XML)).text).toContain('<title>after</title>');
  });

  test('When a write touches one category, other categories stay cached', async () => {
    const app = await makeApp(db);
    await settled([app], () => publish(app, item({ category: 'life' })));
    await getFeed(app, '/hub/categories/biz/contents');
    const before = served(app);
    await settled([app], () =>
      publish(app, item({ category: 'life', link: 'https://hub.example.com/life/2' })),
    );
    await getFeed(app, '/hub/categories/biz/contents');
    expect(served(app)).toBe(before + 1);
  });

  test('When the LISTEN connection drops, the cache is bypassed, and after reconnecting B again hears A', async () => {
    const a = await makeApp(db);
    const b = await makeApp(db);
    await publish(a, item({ title: 'first', link: 'https://hub.example.com/first' }));
    await getFeed(b, '/hub/contents');
    const connections = b.listener!.connections;
    const { rows } = await db.pool.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2); // A's and B's listeners (and other open apps')
    // while it is down nothing stale is served: B reads through to the database
    await publish(a, item({ title: 'second', link: 'https://hub.example.com/second' }));
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'second');
    await until(
      async () => b.listener!.connections > connections && a.listener!.connections > connections,
    );
    expect(b.context.domain.cache.enabled).toBe(true);
    await getFeed(b, '/hub/contents'); // fill again
    const before = served(b);
    await getFeed(b, '/hub/contents');
    expect(served(b)).toBe(before + 1); // cached again
    const heard = b.listener!.notifications;
    await publish(a, item({ title: 'third', link: 'https://hub.example.com/third' }));
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'third');
    expect(b.listener!.notifications).toBeGreaterThan(heard);
  });

  test('When a render started before a write finishes after it, the stale rendering is not cached', async () => {
    const app = await makeApp(db);
    await publish(app, item({ title: 'old', link: 'https://hub.example.com/old' }));
    const cache = app.context.domain.cache;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.getOrLoad('all', 'json', async () => {
      const rep = await renderFromStore(app.context.domain, 'all', 'json');
      await gate;
      return rep;
    });
    await publish(app, item({ title: 'new', link: 'https://hub.example.com/new' }));
    release();
    await slow;
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['new', 'old']);
  });
});

describe('fast path', () => {
  const strip = (h: Record<string, string>) => {
    const { date: _d, 'x-request-id': _r, connection: _c, 'keep-alive': _k, ...rest } = h;
    return rest;
  };

  test('When a cached feed is read, the fast path answers with the same status, headers and bytes as the Express route', async () => {
    const at = Date.UTC(2026, 10, 23, 5, 26, 57);
    const fast = await makeApp(db, {}, { clock: () => at });
    const slow = await makeApp(db, {}, { clock: () => at, fastPath: false });
    await settled([fast, slow], () =>
      publish(fast, item({ title: '빠른 길 <&> ]]> 😀', category: 'culture' })),
    );
    const variants: [string, string, Record<string, string>][] = [];
    for (const path of [
      '/hub/contents',
      '/hub/categories/culture/contents',
      '/hub/categories/trip/contents',
    ]) {
      for (const accept of [ACCEPT_JSON, ACCEPT_XML, 'application/rss+xml', '*/*'])
        variants.push([path, accept, {}]);
    }
    for (const [path, accept] of variants) {
      await getFeed(fast, path, accept); // fills the cache through Express
      await getFeed(slow, path, accept);
    }
    const etag = (await getFeed(fast, '/hub/contents')).headers.etag!;
    variants.push(['/hub/contents', ACCEPT_JSON, { 'If-None-Match': etag }]);
    for (const [path, accept, extra] of variants) {
      const before = served(fast);
      const f = await getFeed(fast, path, accept).set(extra).set('X-Request-Id', 'req-123');
      expect(served(fast)).toBe(before + 1);
      const s = await getFeed(slow, path, accept).set(extra).set('X-Request-Id', 'req-123');
      expect(served(slow)).toBe(0);
      expect([path, accept, f.status]).toEqual([path, accept, s.status]);
      expect(strip(f.headers)).toEqual(strip(s.headers));
      expect(f.headers['x-request-id']).toBe('req-123');
      expect(s.headers['x-request-id']).toBe('req-123');
      expect(f.text).toBe(s.text);
    }
    // HEAD, and the access_token query parameter
    const headF = await request(fast)
      .head('/hub/contents')
      .set('Accept', ACCEPT_XML)
      .set('Authorization', `Bearer ${READ_TOKEN}`);
    const headS = await request(slow)
      .head('/hub/contents')
      .set('Accept', ACCEPT_XML)
      .set('Authorization', `Bearer ${READ_TOKEN}`);
    expect(headF.status).toBe(200);
    expect(strip(headF.headers)).toEqual(strip(headS.headers));
    const before = served(fast);
    const q = await request(fast)
      .get(`/hub/contents?access_token=${READ_TOKEN}`)
      .set('Accept', ACCEPT_JSON);
    expect(q.status).toBe(200);
    expect(served(fast)).toBe(before + 1);
    expect(q.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('When both paths answer, the raw header lines come in the same order with the same names', async () => {
    const at = Date.UTC(2026, 10, 23, 5, 26, 57);
    const fast = await makeApp(db, {}, { clock: () => at });
    const slow = await makeApp(db, {}, { clock: () => at, fastPath: false });
    await settled([fast, slow], () => publish(fast, item()));
    const raw = async (app: FeedApp, extra: Record<string, string> = {}) => {
      const server = http.createServer(app);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      const headers = {
        Accept: ACCEPT_XML,
        Authorization: `Bearer ${READ_TOKEN}`,
        'X-Request-Id': 'same',
        ...extra,
      };
      const get = () =>
        new Promise<{ status: number; raw: string[]; body: string }>((resolve, reject) => {
          http
            .get(
              { port, host: '127.0.0.1', path: '/hub/contents', headers, agent: false },
              (res) => {
                let body = '';
                res.setEncoding('utf8');
                res.on('data', (c: string) => (body += c));
                res.on('end', () =>
                  resolve({ status: res.statusCode!, raw: res.rawHeaders, body }),
                );
              },
            )
            .on('error', reject);
        });
      await get(); // fill the caches
      const answer = await get();
      server.close();
      const i = answer.raw.indexOf('Date');
      answer.raw.splice(i, 2);
      return answer;
    };
    const f = await raw(fast);
    const s = await raw(slow);
    expect(f).toEqual(s);
    expect(f.raw.filter((_, i) => i % 2 === 0)).toEqual([
      'X-Request-Id',
      'Content-Type',
      'Content-Length',
      'Vary',
      'Cache-Control',
      'ETag',
      'Last-Modified',
      'Connection',
    ]);
    const etag = f.raw[f.raw.indexOf('ETag') + 1]!;
    expect(await raw(fast, { 'If-None-Match': etag })).toEqual(
      await raw(slow, { 'If-None-Match': etag }),
    );
  });

  test('When the fast path serves requests, they are counted in http_requests_total', async () => {
    const app = await makeApp(db);
    await getFeed(app, '/hub/contents');
    await getFeed(app, '/hub/contents');
    await getFeed(app, '/hub/contents');
    expect(served(app)).toBe(2);
    app.fastPathStats.flushMetrics();
    const metrics = await request(app).get('/metrics');
    const line = metrics.text
      .split('\n')
      .find((l) =>
        l.startsWith('http_requests_total{method="GET",route="/hub/contents",status="200"'),
      );
    expect(line).toMatch(/ 3$/);
  });

  test('When the feed is not cached or the request is not a plain success, Express answers instead', async () => {
    const app = await makeApp(db);
    await settled([app], () => publish(app, item()));
    const fresh = token({ sub: 'someone-new' });
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON, fresh)).status).toBe(200); // feed rendered + cached by Express
    expect(served(app)).toBe(0);
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON, fresh)).status).toBe(200);
    expect(served(app)).toBe(1);
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON, 'bad')).status).toBe(401);
    expect((await getFeed(app, '/hub/contents', 'text/html', fresh)).status).toBe(422);
    expect(
      (await getFeed(app, '/hub/contents', 'application/vnd.vendor.resource-2.0+json', fresh))
        .status,
    ).toBe(404);
    expect((await getFeed(app, '/hub/categories/zzz/contents', ACCEPT_JSON, fresh)).status).toBe(
      422,
    );
    expect((await getFeed(app, '/hub/contents/', ACCEPT_JSON, fresh)).status).toBe(200); // trailing slash: Express
    expect(served(app)).toBe(1);
  });

  test('When a reader brings a new valid token and the feed is cached, the fast path verifies the token itself and answers', async () => {
    const app = await makeApp(db);
    await settled([app], () => publish(app, item()));
    await getFeed(app, '/hub/contents'); // cached
    const before = served(app);
    const readers = Array.from({ length: 5 }, (_, i) => token({ sub: `reader-${i}` }));
    for (const t of readers) {
      const res = await getFeed(app, '/hub/contents', ACCEPT_JSON, t);
      expect(res.status).toBe(200);
    }
    expect(served(app)).toBe(before + readers.length);
    // one that fails verification is Express's to answer, with the usual 401
    const forged = token({ sub: 'x', secret: 'another-secret-another-secret-0123456789' });
    const res = await getFeed(app, '/hub/contents', ACCEPT_JSON, forged);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { status: 401, message: 'authentication failed: invalid signature' },
    });
    expect(served(app)).toBe(before + readers.length);
  });

  test('When the fast path answers without a client id, each response gets its own UUID-shaped X-Request-Id', async () => {
    const app = await makeApp(db);
    await getFeed(app, '/hub/contents'); // cached
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++)
      ids.add(String((await getFeed(app, '/hub/contents')).headers['x-request-id']));
    expect(ids.size).toBe(20);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('When a remembered token expires, the fast path stops serving it and Express answers 401', async () => {
    let clock = Date.now();
    const app = await makeApp(db, {}, { clock: () => clock });
    const t = token({ expiresIn: 30 });
    await getFeed(app, '/hub/contents', ACCEPT_JSON, t);
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON, t)).status).toBe(200);
    expect(served(app)).toBe(1);
    clock += 31_000;
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON, t)).status).toBe(401);
    expect(served(app)).toBe(1);
  });

  test('When caching is switched off, every read goes through Express and still answers 200', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await settled([app], () => publish(app, item()));
    await getFeed(app, '/hub/contents');
    expect((await getFeed(app, '/hub/contents')).status).toBe(200);
    expect(served(app)).toBe(0);
  });
});
