import type pg from 'pg';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { createCallLimiter } from '../src/http/call-limiter';
import { apiCalls, appWithCollection, makeApp, useSearchDatabase } from './helpers/harness';
import { client, type TestCollection } from './helpers/requests';

/**
 * The API call limit across instances: admitted from blocks reserved in one counter row per
 * collection and window, used calls settled in batches, one call at a time near the limit.
 */

const db = useSearchDatabase();

const LIMIT = SEARCH_ERRORS.common.callLimitReached.text;
// flushes only when the test asks (or near the limit)
const MANUAL = { SEARCH_API_CALL_FLUSH_MS: '60000', SEARCH_API_CALL_EXACT_MARGIN: '0' };

const shared = (c: TestCollection) => apiCalls(db.pool, c);

/** A pool that counts the statements touching api_calls. */
function countingPool(pool: pg.Pool): { pool: pg.Pool; count: () => number } {
  let n = 0;
  const wrapped = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (q: unknown, ...rest: unknown[]) => {
          const text = typeof q === 'string' ? q : (q as { text: string }).text;
          if (/INTO api_calls|take_api_call/.test(text)) n++;
          return (target.query as (...a: unknown[]) => unknown)(q, ...rest);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { pool: wrapped, count: () => n };
}

test('When two instances share a collection, together they admit exactly the limit (no overshoot)', async () => {
  const { app: a, c } = await appWithCollection(db, { max_api_calls: 10 }, { env: MANUAL });
  const b: SearchApp = makeApp(db, { env: MANUAL });
  const onA = client(a, c);
  const onB = client(b, c);

  for (let i = 0; i < 6; i++) expect((await onA.search({ q: 'x' })).status).toBe(200);
  await a.services.callLimiter.flush();
  expect(await shared(c)).toBe(6);

  // B reserves from the shared row and stops exactly at the limit
  let admittedOnB = 0;
  for (let i = 0; i < 10; i++) if ((await onB.search({ q: 'x' })).status === 200) admittedOnB++;
  expect(admittedOnB).toBe(4);
  expect(await shared(c)).toBe(10);
  expect((await onB.search({ q: 'x' })).text).toBe(LIMIT);

  // A holds no reserved call: it cannot admit past the limit, flushed or not
  expect((await onA.search({ q: 'x' })).text).toBe(LIMIT);
  await a.services.callLimiter.flush();
  expect((await onA.search({ q: 'x' })).text).toBe(LIMIT);
  expect(await shared(c)).toBe(10);
  await a.services.close();
  await b.services.close();
});

test('When calls are far below the limit, they do not each go to the database', async () => {
  const { pool, count } = countingPool(db.pool);
  const { app, c, api } = await appWithCollection(
    db,
    { max_api_calls: 1_000_000 },
    { pool, env: { SEARCH_API_CALL_FLUSH_MS: '60000' } },
  );
  for (let i = 0; i < 50; i++) expect((await api.search({ q: 'x' })).status).toBe(200);
  expect(count()).toBe(1); // the first call of the window learns the shared count
  await app.services.callLimiter.flush();
  expect(count()).toBe(2); // one batch for the other 49
  expect(await shared(c)).toBe(50);
  await app.services.close();
});

test('When calls are refused at the limit, the refused calls are not counted', async () => {
  const { app, c, api } = await appWithCollection(db, { max_api_calls: 3 }, { env: MANUAL });
  const statuses = [];
  for (let i = 0; i < 8; i++) statuses.push((await api.search({ q: 'x' })).status);
  expect(statuses).toEqual([200, 200, 200, 406, 406, 406, 406, 406]);
  await app.services.callLimiter.flush();
  expect(await shared(c)).toBe(3);
  await app.services.close();
});

test('When every operation but status is called, each counts one call', async () => {
  const { app, api } = await appWithCollection(db, { max_api_calls: 5 }, { env: MANUAL });
  const doc = JSON.stringify({ icontents_title: 't', icontents_body: 'b', score_regdate: 1 });
  expect((await api.add('a', doc)).status).toBe(200);
  expect((await api.update('a', doc)).status).toBe(200);
  expect((await api.updateField('a', 'score_x', '1')).status).toBe(200);
  expect((await api.status()).status).toBe(200);
  expect((await api.search({ q: 't' })).status).toBe(200);
  expect((await api.delete('a')).status).toBe(200);
  expect((await api.add('b', doc)).text).toBe(LIMIT);
  expect((await api.status()).status).toBe(200);
  await app.services.close();
});

test('When a call fails a parameter check, it still counts (counting happens at step 4, before parameters)', async () => {
  const { app, api } = await appWithCollection(db, { max_api_calls: 2 }, { env: MANUAL });
  expect((await api.search({})).text).toBe(SEARCH_ERRORS.search.qNull.text);
  expect((await api.search({ q: 'x' })).status).toBe(200);
  expect((await api.search({ q: 'x' })).text).toBe(LIMIT);
  await app.services.close();
});

test('When the window ends, counting starts again from zero', async () => {
  let now = 1_000_000_000_000;
  const limiter = createCallLimiter({
    pool: db.pool,
    windowSeconds: 60,
    flushMs: 60_000,
    exactMargin: 0,
    now: () => now,
  });
  const { app, c } = await appWithCollection(db, { max_api_calls: 2 });
  expect(await limiter.admit(c.cid, 2)).toBe(true);
  expect(await limiter.admit(c.cid, 2)).toBe(true);
  expect(await limiter.admit(c.cid, 2)).toBe(false);
  now += 60_000;
  expect(await limiter.admit(c.cid, 2)).toBe(true);
  await limiter.close();
  const { rows } = await db.pool.query(
    'SELECT window_start, calls::int FROM api_calls WHERE collection_id = $1 ORDER BY window_start',
    [c.cid],
  );
  expect(rows.map((r) => r.calls)).toEqual([2, 1]);
  await app.services.close();
});

test('When counted calls are flushed in the background, the shared row catches up within the flush interval', async () => {
  const { app, c, api } = await appWithCollection(
    db,
    { max_api_calls: 1000 },
    { env: { SEARCH_API_CALL_FLUSH_MS: '20' } },
  );
  for (let i = 0; i < 5; i++) await api.search({ q: 'x' });
  await new Promise((r) => setTimeout(r, 150));
  expect(await shared(c)).toBe(5);
  await app.services.close();
});

test('When many calls arrive at once on one instance, it admits exactly the limit', async () => {
  const { app, c, api } = await appWithCollection(db, { max_api_calls: 7 }, { env: MANUAL });
  const answers = await Promise.all(Array.from({ length: 30 }, () => api.search({ q: 'x' })));
  expect(answers.filter((r) => r.status === 200)).toHaveLength(7);
  expect(answers.filter((r) => r.text === LIMIT)).toHaveLength(23);
  await app.services.callLimiter.flush();
  expect(await shared(c)).toBe(7);
  await app.services.close();
});

test('When the counter cannot be read on the first call, that call answers 503 and the next call tries again', async () => {
  let failing = true;
  const pool = new Proxy(db.pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (q: unknown, ...rest: unknown[]) => {
          const text = typeof q === 'string' ? q : (q as { text: string }).text;
          if (failing && /take_api_call/.test(text)) return Promise.reject(new Error('down'));
          return (target.query as (...a: unknown[]) => unknown)(q, ...rest);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const { app, api } = await appWithCollection(db, { max_api_calls: 1 }, { pool, env: MANUAL });
  const doc = JSON.stringify({ icontents_title: 't', icontents_body: 'b', score_regdate: 1 });
  expect((await api.add('a', doc)).text).toBe(SEARCH_ERRORS.add.userInfoFail.text);
  failing = false;
  expect((await api.add('a', doc)).status).toBe(200);
  expect((await api.add('b', doc)).text).toBe(LIMIT);
  await app.services.close();
});

test('When hundreds of calls race with background flushes on one instance, it still admits exactly the limit', async () => {
  const { app, c, api } = await appWithCollection(
    db,
    { max_api_calls: 50 },
    {
      env: { SEARCH_API_CALL_FLUSH_MS: '10', SEARCH_API_CALL_EXACT_MARGIN: '5' },
    },
  );
  const answers = await Promise.all(Array.from({ length: 200 }, () => api.search({ q: 'x' })));
  expect(answers.filter((r) => r.status === 200)).toHaveLength(50);
  await app.services.callLimiter.flush();
  expect(await shared(c)).toBe(50);
  await app.services.close();
});

/**
 * A pool whose block reservations after the first wait until the test lets them go (or fail,
 * while `failing`); counts the reservations asked for.
 */
function heldReservations(pool: pg.Pool) {
  let asked = 0;
  let failing = false;
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const held = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return async (q: unknown, ...rest: unknown[]) => {
          const text = typeof q === 'string' ? q : (q as { text: string }).text;
          if (/take_api_call/.test(text) && ++asked > 1) {
            await gate;
            if (failing) throw new Error('down');
          }
          return (target.query as (...a: unknown[]) => unknown)(q, ...rest);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    pool: held,
    asked: () => asked,
    /** lets the held reservations go (failing them when asked); later ones are held again */
    release(fail = false) {
      failing = fail;
      const go = release;
      gate = new Promise<void>((r) => (release = r));
      go();
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

/** A limiter on heldReservations for a new collection of `maxCalls` (blocks of 32 by default). */
async function limiterOfHeldReservations(maxCalls = 1_000_000, blockSize = 32) {
  const { app, c } = await appWithCollection(db, { max_api_calls: maxCalls });
  const db2 = heldReservations(db.pool);
  const limiter = createCallLimiter({
    pool: db2.pool,
    windowSeconds: 86_400,
    flushMs: 60_000,
    exactMargin: 0,
    blockSize,
  });
  return { app, c, db2, limiter, admit: () => limiter.admit(c.cid, maxCalls) };
}

test('When half of a block is used, the next is reserved ahead and calls do not wait for it', async () => {
  const { app, c, db2, limiter, admit } = await limiterOfHeldReservations();

  for (let i = 0; i < 16; i++) expect(await admit()).toBe(true);
  await settle();
  expect(db2.asked()).toBe(1); // the first block; 16 of its 32 calls are left
  expect(await admit()).toBe(true);
  await settle();
  expect(db2.asked()).toBe(2); // 15 left: the next block is asked for, and held

  // the rest of the block is admitted while the reservation ahead has not come back
  for (let i = 0; i < 15; i++) expect(await admit()).toBe(true);
  let answered = false;
  const waiting = admit().then((ok) => ((answered = true), ok));
  await settle();
  expect(answered).toBe(false); // no call left: this one waits for the block ahead
  db2.release();
  expect(await waiting).toBe(true);
  expect(db2.asked()).toBe(2);

  await limiter.close();
  expect(await shared(c)).toBe(33);
  await app.services.close();
});

test('When a reservation ahead fails, the calls go on from the block and the next call reserves again', async () => {
  const { app, c, db2, limiter, admit } = await limiterOfHeldReservations();

  for (let i = 0; i < 17; i++) expect(await admit()).toBe(true);
  await settle();
  db2.release(true); // the reservation ahead fails
  await settle();
  for (let i = 0; i < 15; i++) expect(await admit()).toBe(true);
  const next = admit(); // no call left: it reserves again
  await settle();
  expect(db2.asked()).toBe(3);
  db2.release();
  expect(await next).toBe(true);

  await limiter.close();
  expect(await shared(c)).toBe(33);
  await app.services.close();
});

test('When blocks are small near the limit, nothing is reserved ahead', async () => {
  const { app, c, db2, limiter, admit } = await limiterOfHeldReservations(100, 256);
  // a block of 100 / 8 = 12 calls, under RESERVE_AHEAD_MIN_BLOCK
  for (let i = 0; i < 12; i++) expect(await admit()).toBe(true);
  await settle();
  expect(db2.asked()).toBe(1);
  db2.release();
  await limiter.close();
  expect(await shared(c)).toBe(12);
  await app.services.close();
});
