import { createLogger } from '@hub/service-kit';
import { del, getFeed, item, makeApp, publish, put, until, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML } from './helpers/requests';
import {
  ALL,
  category,
  closeHubs,
  FAST,
  metric,
  publishPinged,
  sorted,
  startHub,
  websubApp,
} from './helpers/websub-hub';

const db = useDatabase({ emptyEachTest: true });
afterEach(closeHubs);

const hubApp = (urls: string[], deps: Parameters<typeof makeApp>[2] = {}) =>
  websubApp(db, urls, deps);

describe('pings', () => {
  test('When an item is published, each hub gets one publish ping for the overall feed and one for its category feed', async () => {
    const a = await startHub();
    const b = await startHub();
    const app = await hubApp([a.url, b.url]);
    expect((await publish(app, item({ category: 'trip' }))).status).toBe(201);
    await app.websub.settled();
    for (const hub of [a, b]) {
      expect(hub.topics()).toEqual(sorted([ALL, category('trip')]));
      for (const ping of hub.pings) {
        expect(ping.mode).toBe('publish');
        expect(ping.urls).toHaveLength(1);
        expect(ping.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      }
    }
    expect(await metric(app, /^websub_pings_total\{.*result="delivered"/)).toBe(2);
  });

  test('When an update moves an item from category A to B, the hub hears of the overall feed, A and B', async () => {
    const hub = await startHub();
    const app = await hubApp([hub.url]);
    const created = await publishPinged(app, item({ category: 'trip' }));
    hub.pings.length = 0;
    const moved = await put(app, created.body.id, item({ category: 'food' }));
    expect(moved.status).toBe(200);
    await app.websub.settled();
    expect(hub.topics()).toEqual(sorted([ALL, category('food'), category('trip')]));
  });

  test('When an item is deleted, the hub hears of the overall feed and its category feed', async () => {
    const hub = await startHub();
    const app = await hubApp([hub.url]);
    const created = await publishPinged(app, item({ category: 'it' }));
    hub.pings.length = 0;
    const deleted = await del(app, created.body.id);
    expect(deleted.status).toBe(204);
    await app.websub.settled();
    expect(hub.topics()).toEqual(sorted([ALL, category('it')]));
  });

  test('When a write changes nothing (a repeated POST, a refused item), no hub is pinged', async () => {
    const hub = await startHub();
    const app = await hubApp([hub.url]);
    await publishPinged(app, item());
    hub.pings.length = 0;
    expect((await publish(app, item())).status).toBe(200);
    expect((await publish(app, item({ title: 'other' }))).status).toBe(409);
    expect((await publish(app, item({ category: 'nope' }))).status).toBe(422);
    await app.websub.settled();
    expect(hub.pings).toEqual([]);
  });

  test('When a hub answers 500 twice, the ping is retried and arrives', async () => {
    const hub = await startHub((_ping, nth) => (nth <= 2 ? 500 : 202));
    const logger = createLogger('feed-service', 'silent');
    const warn = jest.spyOn(logger, 'warn');
    const app = await hubApp([hub.url], { logger });
    await publishPinged(app, item({ category: 'life' }));
    expect(hub.topics()).toEqual(
      sorted([ALL, ALL, ALL, category('life'), category('life'), category('life')]),
    );
    expect(await metric(app, /^websub_pings_total\{.*result="delivered"/)).toBe(2);
    expect(await metric(app, /^websub_ping_attempt_failures_total\{/)).toBe(4);
    expect(await metric(app, /^websub_pings_total\{.*result="failed"/)).toBe(0);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ hub: hub.url, topic: ALL, attempt: 1, failure: 'HTTP 500' }),
      'websub: ping attempt failed, retrying',
    );
  });

  test('When a hub keeps failing, the ping is given up after the last attempt and counted as failed', async () => {
    const hub = await startHub(() => 503);
    const app = await hubApp([hub.url], { websub: { ...FAST, attempts: 3 } });
    await publishPinged(app, item({ category: 'biz' }));
    expect(hub.topics()).toEqual(
      sorted([ALL, ALL, ALL, category('biz'), category('biz'), category('biz')]),
    );
    expect(await metric(app, /^websub_pings_total\{.*result="failed"/)).toBe(2);
    expect(await metric(app, /^websub_ping_attempt_failures_total\{/)).toBe(6);
  });

  test('When a hub refuses a ping with a 4xx, it is not retried', async () => {
    const hub = await startHub(() => 400);
    const app = await hubApp([hub.url]);
    await publishPinged(app, item({ category: 'biz' }));
    expect(hub.topics()).toEqual(sorted([ALL, category('biz')]));
    expect(await metric(app, /^websub_pings_total\{.*result="failed"/)).toBe(2);
  });

  test('When the hub cannot be reached, the failures are counted and the publish still answers 201', async () => {
    const gone = await startHub();
    await gone.close();
    const app = await hubApp([gone.url], { websub: { ...FAST, attempts: 2 } });
    expect((await publish(app, item())).status).toBe(201);
    await app.websub.settled();
    expect(await metric(app, /^websub_ping_attempt_failures_total\{/)).toBe(4);
    expect(await metric(app, /^websub_pings_total\{.*result="failed"/)).toBe(2);
  });

  test('When FEED_WEBSUB_HUBS is empty, nothing is sent and the feeds name no hub', async () => {
    const hub = await startHub();
    const app = await makeApp(db, { FEED_WEBSUB_HUBS: ' ' }, { websub: FAST });
    expect(app.websub.hubs).toEqual([]);
    await publishPinged(app, item());
    await new Promise((r) => setTimeout(r, 100));
    expect(hub.pings).toEqual([]);
    const rss = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(rss.text).not.toContain('rel="hub"');
    const json = await getFeed(app, '/hub/contents', ACCEPT_JSON);
    expect(json.body.channel).not.toHaveProperty('hub');
  });

  test('When the hub is slow, the publish response does not wait for it', async () => {
    const hub = await startHub(() => 'hang');
    const app = await hubApp([hub.url]);
    const res = await publish(app, item());
    expect(res.status).toBe(201);
    await until(async () => hub.pings.length === 2); // both pings are out, neither answered
    hub.release();
    await app.websub.settled();
    expect(await metric(app, /^websub_pings_total\{.*result="delivered"/)).toBe(2);
  });

  test('When writes come while a ping is under way, they are folded into one more ping per feed', async () => {
    const hub = await startHub((_ping, nth) => (nth === 1 ? 'hang' : 202));
    const app = await hubApp([hub.url]);
    await publish(app, item({ link: 'https://hub.example.com/1', category: 'it' }));
    await until(async () => hub.pings.length === 2); // both first attempts are out
    for (const n of [2, 3, 4])
      await publish(app, item({ link: `https://hub.example.com/${n}`, category: 'it' }));
    expect(hub.topics()).toEqual(sorted([ALL, category('it')]));
    hub.release();
    await app.websub.settled();
    // the first ping of each feed, then one for the three later writes
    expect(hub.topics()).toEqual(sorted([ALL, ALL, category('it'), category('it')]));
  });
});

describe('stopping', () => {
  test('When the service stops while a hub does not answer, close() gives up after the drain time', async () => {
    const hub = await startHub(() => 'hang');
    const app = await hubApp([hub.url], { websub: { ...FAST, drainMs: 100 } });
    await publish(app, item());
    await until(async () => hub.pings.length === 2); // both first attempts are out
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await metric(app, /^websub_pings_total\{.*result="abandoned"/)).toBe(2);
  });

  test('When the service stops during a retry wait, close() does not wait for the retry', async () => {
    const hub = await startHub(() => 500);
    const app = await hubApp([hub.url], {
      websub: { ...FAST, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    await publish(app, item());
    await until(async () => hub.pings.length === 2); // both first attempts are out
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(hub.pings.length).toBe(2);
    expect(await metric(app, /^websub_pings_total\{.*result="abandoned"/)).toBe(2);
  });
});
