import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { FeedApp } from '../src/app';
import { getFeed, item, makeApp, publish, settled, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML } from './helpers/requests';
import { READ_TOKEN, token } from './helpers/tokens';

const db = useDatabase({ emptyEachTest: true });

const served = (app: FeedApp) => app.fastPathStats.served;

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
