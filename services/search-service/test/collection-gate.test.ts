import { SEARCH_HTTP_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { createCollectionGate, type CollectionGate } from '../src/http/collection-gate';
import { appWithCollection, useSearchDatabase } from './helpers/harness';
import { docJson } from './helpers/requests';

/** The per-collection cap on searches running at once (fairness between collections). */

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** One search of `key` per release, each noting its index in `started` as it starts. */
function runEach(
  gate: CollectionGate,
  key: string,
  releases: Array<{ promise: Promise<void> }>,
  started: number[],
): Promise<number>[] {
  return releases.map((r, i) =>
    gate.run(key, async () => {
      started.push(i);
      await r.promise;
      return i;
    }),
  );
}

test('When more searches of one collection arrive than the cap, the rest wait and start in order of arrival', async () => {
  const gate = createCollectionGate(2);
  const started: number[] = [];
  const releases = Array.from({ length: 5 }, deferred);
  const runs = runEach(gate, 'c1', releases, started);
  await new Promise((r) => setImmediate(r));
  expect(started).toEqual([0, 1]);
  expect(gate.load('c1')).toEqual({ active: 2, waiting: 3 });
  releases[1]!.resolve();
  await new Promise((r) => setImmediate(r));
  expect(started).toEqual([0, 1, 2]);
  for (const r of releases) r.resolve();
  expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
  expect(gate.load('c1')).toEqual({ active: 0, waiting: 0 });
});

test('When one collection is at its cap, another collection’s search runs at once', async () => {
  const gate = createCollectionGate(1);
  const hold = deferred();
  const busy = gate.run('busy', () => hold.promise);
  const queued = gate.run('busy', async () => 'queued');
  expect(await gate.run('other', async () => 'ran')).toBe('ran');
  expect(gate.load('busy')).toEqual({ active: 1, waiting: 1 });
  hold.resolve();
  await busy;
  expect(await queued).toBe('queued');
});

/** A clock the test moves by hand, for the gate's averages of operations in flight. */
function manualClock() {
  const clock = { t: 0, demandWindowMs: 1_000, now: () => clock.t };
  return clock;
}

const NO_BOUNDS = { maxWaiting: 64, maxWaitMs: 60_000 };

test('When another collection keeps as many operations in flight as the cap on average, a collection’s searches run at most its share of the cap at once', async () => {
  const clock = manualClock();
  const gate = createCollectionGate(4, NO_BOUNDS, clock);
  const adds = Array.from({ length: 5 }, deferred);
  const adding = adds.map((a) => gate.track('writer', () => a.promise));
  expect(gate.cap('reader')).toBe(4); // just started: its average is still 0
  clock.t += 2_000; // 5 in flight for 2 s: an average of 5 × (1 − e^−2) ≈ 4.3
  const started: number[] = [];
  const releases = Array.from({ length: 4 }, deferred);
  const runs = runEach(gate, 'reader', releases, started);
  await new Promise((r) => setImmediate(r));
  expect(gate.cap('reader')).toBe(2);
  expect(gate.cap('writer')).toBe(4); // the reader has not demanded long enough to take a share
  expect(started).toEqual([0, 1]);
  expect(gate.load('reader')).toEqual({ active: 2, waiting: 2 });

  // the writer is done; once its average is below the cap the reader has the whole cap again
  for (const a of adds) a.resolve();
  await Promise.all(adding);
  clock.t += 300; // 4.3 × e^−0.3 ≈ 3.2: below 4
  expect(gate.cap('reader')).toBe(4);
  releases[0]!.resolve();
  await new Promise((r) => setImmediate(r));
  expect(started).toEqual([0, 1, 2, 3]);
  expect(gate.load('reader')).toEqual({ active: 3, waiting: 0 });
  for (const r of releases) r.resolve();
  await Promise.all(runs);
  expect(gate.load('reader')).toEqual({ active: 0, waiting: 0 });
});

/** One write of 'writer' in flight for `ms` of the clock; answers the cap 'reader' had meanwhile. */
async function capDuringOneWrite(
  gate: CollectionGate,
  clock: ReturnType<typeof manualClock>,
  ms: number,
): Promise<number> {
  const write = deferred();
  const writing = gate.track('writer', () => write.promise);
  clock.t += ms;
  const cap = gate.cap('reader');
  write.resolve();
  await writing;
  return cap;
}

test('When another collection has fewer operations in flight than the cap on average (a trickle of writes), a collection keeps its whole cap', async () => {
  const clock = manualClock();
  const gate = createCollectionGate(2, NO_BOUNDS, clock);
  // 50 writes a second of 10 ms each, for 5 s: one in flight half of the time
  for (let i = 0; i < 250; i++) {
    expect(await capDuringOneWrite(gate, clock, 10)).toBe(2);
    clock.t += 10;
  }
  // one write in flight for a long time averages 1: still below the cap of 2
  expect(await capDuringOneWrite(gate, clock, 60_000)).toBe(2);
});

test('When more collections are demanding than the cap allows, each still runs one search at a time', async () => {
  const clock = manualClock();
  const gate = createCollectionGate(2, NO_BOUNDS, clock);
  const holds = ['a', 'b', 'c'].map(() => Array.from({ length: 3 }, deferred));
  const busy = ['a', 'b', 'c'].flatMap((c, i) =>
    holds[i]!.map((h) => gate.track(c, () => h.promise)),
  );
  clock.t += 5_000;
  expect(gate.cap('a')).toBe(1);
  expect(await gate.run('a', async () => 'ran')).toBe('ran');
  for (const h of holds.flat()) h.resolve();
  await Promise.all(busy);
  clock.t += 5_000;
  expect(gate.cap('a')).toBe(2);
});

test('When an operation fails, it no longer counts in flight', async () => {
  const clock = manualClock();
  const gate = createCollectionGate(2, NO_BOUNDS, clock);
  const holds = Array.from({ length: 3 }, deferred);
  const failing = holds.map((h) =>
    gate.track('w', async () => {
      await h.promise;
      throw new Error('db down');
    }),
  );
  clock.t += 5_000;
  expect(gate.cap('r')).toBe(1);
  for (const h of holds) h.resolve();
  for (const f of failing) await expect(f).rejects.toThrow('db down');
  clock.t += 5_000;
  expect(gate.cap('r')).toBe(2);
});

test('When a search fails, its slot is given back', async () => {
  const gate = createCollectionGate(1);
  await expect(gate.run('c', async () => Promise.reject(new Error('engine down')))).rejects.toThrow(
    'engine down',
  );
  expect(await gate.run('c', async () => 'next')).toBe('next');
  expect(gate.load('c')).toEqual({ active: 0, waiting: 0 });
});

test('When the cap is 0, searches are not capped', async () => {
  const gate = createCollectionGate(0);
  const hold = deferred();
  const first = gate.run('c', () => hold.promise);
  expect(await gate.run('c', async () => 'not waiting')).toBe('not waiting');
  hold.resolve();
  await first;
});

/** What a refused search throws: 429 too many requests, Retry-After 1. */
async function refusal(run: Promise<unknown>) {
  const e = await run.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ServiceError);
  const { status, text, headers } = e as ServiceError;
  return { status, text, headers };
}

const TOO_MANY = {
  status: SEARCH_HTTP_ERRORS.tooManyRequests.status,
  text: 'too many requests',
  headers: { 'Retry-After': '1' },
};

test('When a collection already has its most searches waiting, one more is refused at once and the waiting ones still run', async () => {
  const gate = createCollectionGate(1, { maxWaiting: 2, maxWaitMs: 60_000 });
  const started: number[] = [];
  const releases = Array.from({ length: 3 }, deferred);
  const runs = runEach(gate, 'c', releases, started);
  expect(gate.load('c')).toEqual({ active: 1, waiting: 2 });
  expect(await refusal(gate.run('c', async () => 'never'))).toEqual(TOO_MANY);
  expect(gate.load('c')).toEqual({ active: 1, waiting: 2 });
  for (const r of releases) r.resolve();
  expect(await Promise.all(runs)).toEqual([0, 1, 2]);
  expect(gate.load('c')).toEqual({ active: 0, waiting: 0 });
  // the refused search no longer counts its collection as busy
  expect(gate.cap()).toBe(1);
});

test('When a collection’s queue is full, another collection’s search runs at once', async () => {
  const gate = createCollectionGate(2, { maxWaiting: 1, maxWaitMs: 60_000 });
  const hold = deferred();
  const busy = [0, 1, 2].map(() => gate.run('busy', () => hold.promise));
  expect(await refusal(gate.run('busy', async () => 'never'))).toEqual(TOO_MANY);
  expect(await gate.run('other', async () => 'ran')).toBe('ran');
  hold.resolve();
  await Promise.all(busy);
});

test('When a search has waited its longest, it is refused and leaves the queue; the next one waits its turn', async () => {
  const gate = createCollectionGate(1, { maxWaiting: 4, maxWaitMs: 50 });
  const hold = deferred();
  const busy = gate.run('c', () => hold.promise);
  const late = gate.run('c', async () => 'never');
  expect(gate.load('c')).toEqual({ active: 1, waiting: 1 });
  expect(await refusal(late)).toEqual(TOO_MANY);
  expect(gate.load('c')).toEqual({ active: 1, waiting: 0 });
  const next = gate.run('c', async () => 'next');
  hold.resolve();
  await busy;
  expect(await next).toBe('next');
  expect(gate.load('c')).toEqual({ active: 0, waiting: 0 });
});

test('When no search may wait, a search beyond the cap is refused at once', async () => {
  const gate = createCollectionGate(1, { maxWaiting: 0, maxWaitMs: 60_000 });
  const hold = deferred();
  const busy = gate.run('c', () => hold.promise);
  expect(await refusal(gate.run('c', async () => 'never'))).toEqual(TOO_MANY);
  hold.resolve();
  await busy;
});

test('When a waiting search’s signal aborts, it leaves the queue at once and never runs', async () => {
  const gate = createCollectionGate(1, { maxWaiting: 4, maxWaitMs: 60_000 });
  const hold = deferred();
  const busy = gate.run('c', () => hold.promise);
  const gone = new AbortController();
  let ran = false;
  const waiting = gate.run('c', async () => (ran = true), gone.signal);
  expect(gate.load('c')).toEqual({ active: 1, waiting: 1 });
  gone.abort();
  expect(await refusal(waiting)).toEqual(TOO_MANY);
  expect(gate.load('c')).toEqual({ active: 1, waiting: 0 });
  hold.resolve();
  await busy;
  expect(ran).toBe(false);
});

describe('through the API', () => {
  const db = useSearchDatabase();

  test('When SEARCH_MAX_CONCURRENT_SEARCHES is 1, parallel searches of one collection all answer, one after another', async () => {
    const { app, api } = await appWithCollection(
      db,
      {},
      { env: { SEARCH_MAX_CONCURRENT_SEARCHES: '1' } },
    );
    for (let i = 0; i < 3; i++) await api.add(`k${i}`, docJson({ icontents_title: 'gated' }));
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.search({ q: 'gated' })));
    expect(answers.map((r) => [r.status, JSON.parse(r.text).numfound])).toEqual(
      Array.from({ length: 8 }, () => [200, 3]),
    );
    await app.services.close();
  });
});
