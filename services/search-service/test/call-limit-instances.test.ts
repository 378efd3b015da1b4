import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { createCallLimiter, type CallLimiter } from '../src/http/call-limiter';
import { apiCalls, makeApp, newCollection, useSearchDatabase } from './helpers/harness';
import { client, type TestCollection } from './helpers/requests';

/**
 * The API call limit with several instances on one database, in their default configuration
 * (flushes every 250 ms): calls are admitted only from blocks reserved atomically in Postgres.
 */

const db = useSearchDatabase();
// 1,600 calls through 3 instances: seconds on a quiet machine, more than the default 30 s on a
// loaded one, where a timed-out test would leave its bursts running into the next file
jest.setTimeout(120_000);

const LIMIT = SEARCH_ERRORS.common.callLimitReached.text;
/** The overshoot bound of the README ("API call limit across instances"). */
const OVERSHOOT_BOUND = 0;
const MAX_API_CALLS = 1000;
const CLIENTS = 64;
const CALLS_PER_CLIENT = 25; // 1,600 calls in all

const counted = (c: TestCollection) => apiCalls(db.pool, c);
/** Calls reserved by instances and neither used nor given back. */
const reserved = (c: TestCollection) => apiCalls(db.pool, c, 'reserved');

/** 64 clients, each sending its calls one after the other, spread over the instances. */
async function burst(apps: SearchApp[], c: TestCollection) {
  const apis = apps.map((app) => client(app, c));
  const statuses: number[] = [];
  const texts: string[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, k) => {
      for (let i = 0; i < CALLS_PER_CLIENT; i++) {
        const res = await apis[(k + i) % apis.length]!.search({ q: 'x' });
        statuses.push(res.status);
        if (res.status !== 200) texts.push(res.text);
      }
    }),
  );
  return {
    admitted: statuses.filter((s) => s === 200).length,
    refused: statuses.filter((s) => s === 406).length,
    other: statuses.filter((s) => s !== 200 && s !== 406).length,
    texts: [...new Set(texts)],
  };
}

test(`When 3 instances share a collection at max_api_calls=1000, at most 1000 + ${OVERSHOOT_BOUND} calls are admitted and refused calls are not counted`, async () => {
  const apps = [makeApp(db), makeApp(db), makeApp(db)];
  const c = await newCollection(apps[0]!, { max_api_calls: MAX_API_CALLS });
  const result = await burst(apps, c);
  await Promise.all(apps.map((app) => app.services.close()));
  const total = await counted(c);
  expect(result.admitted).toBeLessThanOrEqual(MAX_API_CALLS + OVERSHOOT_BOUND);
  expect(result.other).toBe(0);
  expect(result.admitted + result.refused).toBe(CLIENTS * CALLS_PER_CLIENT);
  expect(result.texts).toEqual(result.refused ? [LIMIT] : []);
  expect(total).toBe(result.admitted);
  expect(await reserved(c)).toBe(0); // closing gave every unused reserved call back
});

test('When the other instances are idle, one instance serving reaches exactly max_api_calls', async () => {
  const apps = [makeApp(db), makeApp(db), makeApp(db)];
  const c = await newCollection(apps[0]!, { max_api_calls: MAX_API_CALLS });
  const first = await burst(apps, c);
  // the other two go idle; what they reserved and did not use comes back within two flushes
  await new Promise((r) => setTimeout(r, 700));
  const one = client(apps[0]!, c);
  let more = 0;
  for (;;) {
    const res = await one.search({ q: 'x' });
    if (res.status !== 200) {
      expect(res.text).toBe(LIMIT);
      break;
    }
    more++;
  }
  await Promise.all(apps.map((app) => app.services.close()));
  expect(first.admitted + more).toBe(MAX_API_CALLS);
  expect(await counted(c)).toBe(MAX_API_CALLS);
});

test('When an instance holds reserved calls, another is refused until that instance has been idle for a flush interval and gives them back', async () => {
  let now = 1_000_000_000_000;
  const options = { pool: db.pool, windowSeconds: 86_400, flushMs: 60_000, exactMargin: 0 };
  const a = createCallLimiter({ ...options, now: () => now });
  const b = createCallLimiter({ ...options, now: () => now });
  const app = makeApp(db);
  const c = await newCollection(app, { max_api_calls: 100 });
  const admitAll = async (limiter: CallLimiter) => {
    let n = 0;
    while (await limiter.admit(c.cid, 100)) n++;
    return n;
  };

  expect(await a.admit(c.cid, 100)).toBe(true); // A reserves a block of 100 / 8 = 12
  expect(await admitAll(b)).toBe(88); // B gets everything the block does not hold
  await a.flush(); // A admitted a call in this interval: it keeps its block
  expect(await reserved(c)).toBe(11);
  await a.flush(); // idle for a whole interval: the 11 unused calls go back
  expect(await reserved(c)).toBe(0);
  expect(await b.admit(c.cid, 100)).toBe(false); // B refuses from memory for one interval
  now += 60_000;
  expect(await admitAll(b)).toBe(11);
  await b.close();
  await a.close();
  expect(await counted(c)).toBe(100);
  expect(await reserved(c)).toBe(0);
  await app.services.close();
});
