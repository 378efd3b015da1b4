import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DOMParser } from '@xmldom/xmldom';
import request from 'supertest';
import { createLogger } from '@hub/service-kit';
import { openApiChecker } from '@hub/testing';
import type { FeedApp } from '../src/app';
import { loadConfig } from '../src/config';
import { backoffDelay, DEFAULT_PING_POLICY } from '../src/websub/ping-policy';
import { BASE_URL, makeApp, settled, until, useDatabase } from './helpers/harness';
import {
  ACCEPT_JSON,
  ACCEPT_XML,
  CHANNEL_KEYS,
  del,
  getFeed,
  item,
  publish,
  put,
} from './helpers/requests';

const db = useDatabase({ emptyEachTest: true });

/** Retries in milliseconds instead of seconds. */
const FAST = { baseDelayMs: 10, maxDelayMs: 40, timeoutMs: 2000, drainMs: 200 };

interface Ping {
  contentType: string | undefined;
  mode: string | null;
  url: string | null;
  /** every hub.url of the body (one expected) */
  urls: string[];
}

/**
 * A WebSub hub on loopback: records every request; `answer` decides each response
 * (its status, or 'hang' to keep it open until the hub is closed).
 */
async function startHub(answer: (ping: Ping, nth: number) => number | 'hang' = () => 202) {
  const pings: Ping[] = [];
  const perTopic = new Map<string, number>();
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const ping: Ping = {
        contentType: req.headers['content-type'],
        mode: form.get('hub.mode'),
        url: form.get('hub.url'),
        urls: form.getAll('hub.url'),
      };
      if (req.method !== 'POST') ping.mode = `${req.method} ${ping.mode}`;
      pings.push(ping);
      const nth = (perTopic.get(ping.url ?? '') ?? 0) + 1;
      perTopic.set(ping.url ?? '', nth);
      const status = answer(ping, nth);
      if (status === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const hub = {
    url: `http://127.0.0.1:${port}/hub`,
    pings,
    /** the hub.url of each ping, sorted */
    topics: () => pings.map((p) => p.url).sort(),
    release: () => hanging.splice(0).forEach((res) => res.writeHead(204).end()),
    close: async () => {
      hub.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  hubs.push(hub);
  return hub;
}
const hubs: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
});

const ALL = `${BASE_URL}/hub/contents`;
const sorted = (topics: string[]) => topics.sort();
const category = (code: string) => `${BASE_URL}/hub/categories/${code}/contents`;

function hubApp(urls: string[], deps: Parameters<typeof makeApp>[2] = {}): Promise<FeedApp> {
  return makeApp(db, { FEED_WEBSUB_HUBS: urls.join(', ') }, { websub: FAST, ...deps });
}

/** Publishes `body` and waits until the pings it causes are done (delivered or given up). */
async function publishPinged(app: FeedApp, body: unknown) {
  const res = await publish(app, body);
  await app.websub.settled();
  return res;
}

async function metric(app: FeedApp, line: RegExp): Promise<number> {
  const text = (await request(app).get('/metrics')).text;
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').pop()) : 0;
}

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

describe('discovery', () => {
  test('When hubs are set, the RSS has an atom:link rel="hub" per hub after rel="self", escaped like every text', async () => {
    const app = await makeApp(
      db,
      { FEED_WEBSUB_HUBS: 'https://hub.example.net/, https://pubsub.example.org/hub?key=a&b="c"' },
      { cache: false },
    );
    await publish(app, item());
    for (const [path, self] of [
      ['/hub/contents', ALL],
      ['/hub/categories/trip/contents', category('trip')],
    ] as const) {
      const rss = await getFeed(app, path, ACCEPT_XML);
      expect(rss.text).toContain(
        `<atom:link href="${self}" rel="self" type="application/rss+xml"/>` +
          '<atom:link href="https://hub.example.net/" rel="hub"/>' +
          '<atom:link href="https://pubsub.example.org/hub?key=a&amp;b=&quot;c&quot;" rel="hub"/>',
      );
      const doc = new DOMParser().parseFromString(rss.text, 'text/xml');
      const links = Array.from(
        doc.getElementsByTagNameNS('http://www.w3.org/2005/Atom', 'link'),
      ).filter((l) => l.getAttribute('rel') === 'hub');
      expect(links.map((l) => l.getAttribute('href'))).toEqual([
        'https://hub.example.net/',
        'https://pubsub.example.org/hub?key=a&b="c"',
      ]);
    }
  });

  test('When hubs are set, the JSON channel lists them in hub, keeps every spec field and matches the OpenAPI document', async () => {
    const app = await makeApp(
      db,
      { FEED_WEBSUB_HUBS: 'https://hub.example.net/,https://pubsub.example.org/hub' },
      { cache: false },
    );
    await publish(app, item());
    const json = await getFeed(app, '/hub/categories/trip/contents', ACCEPT_JSON);
    expect(Object.keys(json.body.channel)).toEqual([...CHANNEL_KEYS, 'hub', 'item']);
    expect(json.body.channel.hub).toEqual([
      'https://hub.example.net/',
      'https://pubsub.example.org/hub',
    ]);
    const check = openApiChecker(require('../openapi/openapi.json') as Record<string, unknown>);
    expect(() => check('GET', '/hub/categories/trip/contents', json)).not.toThrow();
  });

  test('When hubs are set, the fast path and the Express route send identical bytes', async () => {
    const at = Date.UTC(2026, 10, 23, 5, 26, 57);
    const env = { FEED_WEBSUB_HUBS: 'https://hub.example.net/' };
    const fast = await makeApp(db, env, { clock: () => at });
    const slow = await makeApp(db, env, { clock: () => at, fastPath: false });
    await settled([fast, slow], () => publish(fast, item()));
    for (const accept of [ACCEPT_JSON, ACCEPT_XML]) {
      await getFeed(fast, '/hub/contents', accept); // fills the cache through Express
      const before = fast.fastPathStats.served;
      const f = await getFeed(fast, '/hub/contents', accept);
      expect(fast.fastPathStats.served).toBe(before + 1);
      const s = await getFeed(slow, '/hub/contents', accept);
      expect(f.text).toBe(s.text);
      expect(f.headers.etag).toBe(s.headers.etag);
      expect(f.text).toContain('https://hub.example.net/');
    }
  });
});

describe('settings', () => {
  const base = { DATABASE_URL: 'postgres://localhost/x', FEED_JWT_SECRET: 'x'.repeat(32) };

  test('When FEED_WEBSUB_HUBS holds a bad hub URL, loadConfig names it along with the other problems', () => {
    expect(() =>
      loadConfig({
        ...base,
        PORT: 'abc',
        FEED_WEBSUB_HUBS: 'https://hub.example.net/, not a url, ftp://hub.example.org/',
      }),
    ).toThrow(
      /PORT must be an integer[\s\S]*FEED_WEBSUB_HUBS: "not a url" must be an absolute http or https URL[\s\S]*FEED_WEBSUB_HUBS: "ftp:\/\/hub.example.org\/" must be an absolute http or https URL/,
    );
    expect(() =>
      loadConfig({ ...base, FEED_WEBSUB_HUBS: 'https://user:secret@hub.example.net/' }),
    ).toThrow(/FEED_WEBSUB_HUBS: "hub.example.net" must not carry a user name or password/);
  });

  test('When FEED_WEBSUB_HUBS lists hubs, they are kept as written, once each; unset means none', () => {
    expect(
      loadConfig({
        ...base,
        FEED_WEBSUB_HUBS: ' https://a.example/hub , https://b.example/,https://a.example/hub,',
      }).websubHubs,
    ).toEqual(['https://a.example/hub', 'https://b.example/']);
    expect(loadConfig(base).websubHubs).toEqual([]);
  });

  test('When retries back off, each wait doubles up to the cap, with at most half of it random', () => {
    const p = DEFAULT_PING_POLICY;
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(p, n, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 8000,
    ]);
    expect([1, 2, 3].map((n) => backoffDelay(p, n, () => 0))).toEqual([500, 1000, 2000]);
  });
});
