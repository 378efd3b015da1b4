import { DOMParser } from '@xmldom/xmldom';
import { openApiChecker } from '@hub/testing';
import { loadConfig } from '../src/config';
import { backoffDelay, DEFAULT_PING_POLICY } from '../src/websub/ping-policy';
import { getFeed, item, makeApp, publish, settled, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML, CHANNEL_KEYS } from './helpers/requests';
import { ALL, category } from './helpers/websub-hub';

const db = useDatabase({ emptyEachTest: true });

describe('discovery', () => {
  /** An app (no feed cache) whose FEED_WEBSUB_HUBS is `hubs`, with one item published. */
  async function publishedWithHubs(hubs: string) {
    const app = await makeApp(db, { FEED_WEBSUB_HUBS: hubs }, { cache: false });
    await publish(app, item());
    return app;
  }

  test('When hubs are set, the RSS has an atom:link rel="hub" per hub after rel="self", escaped like every text', async () => {
    const app = await publishedWithHubs(
      'https://hub.example.net/, https://pubsub.example.org/hub?key=a&b="c"',
    );
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
    const app = await publishedWithHubs('https://hub.example.net/,https://pubsub.example.org/hub');
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
