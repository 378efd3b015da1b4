import http from 'node:http';
import { SEARCH_ERRORS, SEARCH_HTTP_ERRORS, SEARCH_RETRY_AFTER_SECONDS } from '@hub/contracts';
import { listen } from '@hub/testing';
import type { AddressInfo } from 'node:net';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import type { SearchIndex } from '../src/index/search-index';
import type { SearchApp } from '../src/app';
import { apiCalls, makeApp, newCollection, useSearchDatabase } from './helpers/harness';
import { loadClient } from './helpers/client';
import { client, docJson, type TestCollection } from './helpers/requests';

/**
 * The bound on a collection's searches waiting for their share of the cores: one more search
 * answers 429 too many requests with Retry-After, and other collections are not affected.
 */

const db = useSearchDatabase();

/** An engine whose searches of one collection wait until `release` (the others run at once). */
function heldEngine() {
  const real = createPostgresIndex(db.pool);
  let held = '';
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const holding = new Promise<void>((r) => (started = r));
  /** searches of the held collection the engine was asked for */
  let heldSearches = 0;
  const index: SearchIndex = Object.assign(Object.create(real) as SearchIndex, {
    search: async (query: Parameters<SearchIndex['search']>[0]) => {
      if (query.collectionId === held) {
        heldSearches++;
        started();
        await released;
      }
      return real.search(query);
    },
  });
  return {
    index,
    hold: (cid: string) => (held = cid),
    holding,
    release,
    heldSearches: () => heldSearches,
  };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

function search(app: SearchApp, c: TestCollection) {
  return client(app, c)
    .search({ q: 'queued' })
    .then((r) => r);
}

/**
 * An app with collections `a` and `b`, one document each, `a`'s searches held in the engine,
 * and `running`: a search of `a` the engine holds (until `engine.release()`).
 */
async function appWithHeldSearch(env: Record<string, string>) {
  const engine = heldEngine();
  const app = makeApp(db, { index: engine.index, env });
  const a = await newCollection(app);
  const b = await newCollection(app);
  for (const c of [a, b]) await client(app, c).add('k', docJson({ icontents_title: 'queued' }));
  engine.hold(a.cid);
  const running = search(app, a);
  await engine.holding;
  return { app, a, b, engine, running };
}

/**
 * appWithHeldSearch with one search at a time and a queue of one, and `waiting`: a second
 * search of `a`, in the queue (which is then full).
 */
async function appWithFullQueue() {
  const held = await appWithHeldSearch({
    SEARCH_MAX_CONCURRENT_SEARCHES: '1',
    SEARCH_MAX_QUEUED_SEARCHES: '1',
  });
  const { app, a } = held;
  const waiting = search(app, a);
  await until(() => app.services.gate.load(a.cid).waiting === 1);
  return { ...held, waiting };
}

test('When a collection already has SEARCH_MAX_QUEUED_SEARCHES searches waiting, one more answers 429 too many requests with Retry-After, and another collection’s search answers 200', async () => {
  const { app, a, b, engine, running, waiting } = await appWithFullQueue();

  const refused = await search(app, a);
  expect([refused.status, refused.text]).toEqual([429, 'too many requests']);
  expect(refused.headers['retry-after']).toBe('1');
  expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');

  const other = await search(app, b);
  expect([other.status, JSON.parse(other.text).numfound]).toEqual([200, 1]);

  engine.release();
  for (const r of await Promise.all([running, waiting]))
    expect([r.status, JSON.parse(r.text).numfound]).toEqual([200, 1]);
  // the refused search passed the call limit step: it is counted like the two served
  await app.services.callLimiter.flush();
  expect(await apiCalls(db.pool, a)).toBe(1 + 3);
});

test('Through @hub/client, the 429 is a TooManyRequestsError with its Retry-After, and the retry option sends the search again once the queue drains', async () => {
  const { app, a, engine, running, waiting } = await appWithFullQueue();
  const lib = await loadClient();
  const server = await listen(app);
  try {
    const options = { baseUrl: server.url, cid: a.cid, apikey: a.apikey };
    const error = await new lib.SearchClient(options).search({ q: 'queued' }).catch((e) => e);
    expect(error).toBeInstanceOf(lib.TooManyRequestsError);
    expect(error).toMatchObject({
      ...SEARCH_HTTP_ERRORS.tooManyRequests,
      code: 'tooManyRequests',
      retryAfterSeconds: SEARCH_RETRY_AFTER_SECONDS,
    });

    const waits: number[] = [];
    const patient = new lib.SearchClient({
      ...options,
      retry: {
        maxAttempts: 2,
        maxWaitMs: 1000,
        // the queue drains while the client waits
        sleep: async (ms) => {
          waits.push(ms);
          engine.release();
          await Promise.all([running, waiting]);
        },
      },
    });
    expect((await patient.search({ q: 'queued' })).numfound).toBe(1);
    expect(waits).toEqual([SEARCH_RETRY_AFTER_SECONDS * 1000]);
  } finally {
    engine.release();
    await server.close();
  }
});

test('When a collection’s queue is full, a search with a bad parameter still answers its own 400 row (parameters are checked before the wait)', async () => {
  const { app, a, engine, running, waiting } = await appWithFullQueue();

  const bad = await client(app, a).search({ q: 'queued', len: '5' });
  expect([bad.status, bad.text]).toEqual([400, SEARCH_ERRORS.search.lenInvalid.text]);
  expect(app.services.gate.load(a.cid)).toEqual({ active: 1, waiting: 1 });

  engine.release();
  for (const r of await Promise.all([running, waiting])) expect(r.status).toBe(200);
});

test('When a search has waited SEARCH_MAX_SEARCH_WAIT_MS for its collection’s share, it answers 429 too many requests', async () => {
  const { app, a, engine, running } = await appWithHeldSearch({
    SEARCH_MAX_CONCURRENT_SEARCHES: '1',
    SEARCH_MAX_SEARCH_WAIT_MS: '100',
  });
  const late = await search(app, a);
  expect([late.status, late.text, late.headers['retry-after']]).toEqual([
    429,
    'too many requests',
    '1',
  ]);
  expect(app.services.gate.load(a.cid)).toEqual({ active: 1, waiting: 0 });
  engine.release();
  expect((await running).status).toBe(200);
});

test('When a client whose search waits for its collection’s share goes away, the search leaves the queue and never runs', async () => {
  const { app, a, engine, running } = await appWithHeldSearch({
    SEARCH_MAX_CONCURRENT_SEARCHES: '1',
  });
  // a client of its own server (supertest's would stay open once its request is aborted)
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  const leaving = http.get(
    `http://127.0.0.1:${port}/v2/${a.cid}/search/json?apikey=${a.apikey}&q=queued`,
  );
  leaving.on('error', () => undefined);
  await until(() => app.services.gate.load(a.cid).waiting === 1);
  leaving.destroy();
  await until(() => app.services.gate.load(a.cid).waiting === 0);
  server.closeAllConnections();
  server.close();
  engine.release();
  expect((await running).status).toBe(200);
  expect(engine.heldSearches()).toBe(1);
});
