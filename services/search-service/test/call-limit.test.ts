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
