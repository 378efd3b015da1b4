import request from 'supertest';
import { renderFromStore } from '../src/domain/read-feed';
import { validatorsOf } from '../src/http/feed-response';
import { getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML } from './helpers/requests';

const db = useDatabase({ emptyEachTest: true });

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

  test('When a feed is rendered, the rendering has no HTTP validators; the edge derives ETag and Last-Modified from it', async () => {
    const app = await makeApp(db);
    await publish(app, item());
    const rendered = await renderFromStore(app.context.domain, 'all', 'json');
    expect(Object.keys(rendered).sort()).toEqual(['changedAt', 'format', 'head', 'readAt', 'tail']);
    const { etag, lastModified } = validatorsOf(rendered);
    const res = await getFeed(app, '/hub/contents');
    expect([res.headers.etag, res.headers['last-modified']]).toEqual([etag, lastModified]);
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
