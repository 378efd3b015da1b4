/** The WebSub tests' hubs on loopback, and how they read what the feed-service did. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { FeedApp } from '../../src/app';
import { BASE_URL, makeApp, type TestDatabase } from './harness';
import { publish } from './requests';

/** Retries in milliseconds instead of seconds. */
export const FAST = { baseDelayMs: 10, maxDelayMs: 40, timeoutMs: 2000, drainMs: 200 };

export interface Ping {
  contentType: string | undefined;
  mode: string | null;
  url: string | null;
  /** every hub.url of the body (one expected) */
  urls: string[];
}

/**
 * A WebSub hub on loopback: records every request; `answer` decides each response
 * (its status, or 'hang' to keep it open until the hub is closed). closeHubs() closes it.
 */
export async function startHub(answer: (ping: Ping, nth: number) => number | 'hang' = () => 202) {
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
/** Closes the hubs started so far (afterEach). */
export async function closeHubs(): Promise<void> {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
}

export const ALL = `${BASE_URL}/hub/contents`;
export const sorted = (topics: string[]) => topics.sort();
export const category = (code: string) => `${BASE_URL}/hub/categories/${code}/contents`;

/** An app of `db` that pings these hubs, retrying in milliseconds (FAST). */
export function websubApp(
  db: TestDatabase,
  urls: string[],
  deps: Parameters<typeof makeApp>[2] = {},
): Promise<FeedApp> {
  return makeApp(db, { FEED_WEBSUB_HUBS: urls.join(', ') }, { websub: FAST, ...deps });
}

/** Publishes `body` and waits until the pings it causes are done (delivered or given up). */
export async function publishPinged(app: FeedApp, body: unknown) {
  const res = await publish(app, body);
  await app.websub.settled();
  return res;
}

export async function metric(app: FeedApp, line: RegExp): Promise<number> {
  const text = (await request(app).get('/metrics')).text;
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').pop()) : 0;
}
