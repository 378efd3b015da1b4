import type { TestDatabase } from '@hub/testing';
import { createMetrics } from '@hub/service-kit';
import {
  createMeilisearchIndex,
  type MeilisearchIndex,
} from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { createOutboxRelay } from '../src/index/meilisearch/outbox/relay';
import type { DocumentChange } from '../src/index/search-index';
import { startMeiliStub, type MeiliStub } from './meili-stub';
import { remove, silentLogger, testDatabase, upsert, waitFor, withTx } from './outbox-fixtures';

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;

const id = (dockey: string, cid = 'abcd1234') => meiliDocumentId(cid, dockey);

function makeEngine(
  over: Partial<Parameters<typeof createMeilisearchIndex>[0]> = {},
): MeilisearchIndex {
  return createMeilisearchIndex({
    pool: db.pool,
    url: stub.url,
    apiKey: 'k',
    logger: silentLogger,
    requestTimeoutMs: 300,
    taskTimeoutMs: 600,
    relay: { baseBackoffMs: 50, maxBackoffMs: 200, pollIntervalMs: 200 },
    ...over,
  });
}

/** One change recorded in its own transaction, as a write of the service does. */
function recordChange(change: DocumentChange): Promise<void> {
  return withTx(db.pool, (tx) => engine.recordChange(tx, change));
}

/** One change recorded, then sent and confirmed. */
async function recordSettled(change: DocumentChange): Promise<void> {
  await recordChange(change);
  await engine.settle();
}

/**
 * Document a (version 1) committed, and relay A's batch of it waiting on a slow Meilisearch
 * task (300 ms); relay B is a second relay, not started.
 */
async function slowBatchOfA() {
  await recordChange(upsert({ dockey: 'a', docId: 1, version: 1 }));
  stub.taskDelayMs = 300;
  const relay = () =>
    createOutboxRelay({ pool: db.pool, sink: engine.gateway, logger: silentLogger });
  const a = relay().runOnce();
  const relayB = relay();
  await waitFor(() => stub.requests.some((q) => q.path === '/indexes/documents/documents'));
  return { relayB, a };
}

async function outbox() {
  const r = await db.pool.query(
    `SELECT id::int, op, meili_id, version::int, attempts, isolate, done_at IS NOT NULL AS done, last_error,
            next_attempt_at > clock_timestamp() AS backing_off
       FROM search_outbox ORDER BY id`,
  );
  return r.rows;
}

beforeAll(async () => {
  db = await testDatabase();
  stub = await startMeiliStub();
});
afterAll(async () => {
  await stub.close();
  await db.drop();
});
beforeEach(async () => {
  stub.reset();
  stub.documents().clear();
  stub.history.length = 0;
  await db.pool.query('TRUNCATE search_outbox, search_applied_versions');
  engine = makeEngine();
  await engine.ensureSettings();
});
afterEach(async () => {
  await engine.stop();
});

describe('recordChange', () => {
  test('When the write transaction rolls back, no outbox row remains; when it commits, one row does', async () => {
    await expect(
      withTx(db.pool, async (tx) => {
        await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 }));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await outbox()).toEqual([]);
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    expect(await outbox()).toMatchObject([
      { op: 'upsert', meili_id: id('a'), version: 1, done: false },
    ]);
  });

  test('When the relay runs, every committed change reaches the index and is marked done', async () => {
    await withTx(db.pool, async (tx) => {
      await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1, categories: [4] }));
      await engine.recordChange(tx, upsert({ dockey: 'b', docId: 2, version: 1 }));
    });
    await engine.settle();
    expect(stub.documents().get(id('a'))).toMatchObject({
      doc_id: '1',
      collection_id: 'abcd1234',
      categories: [4],
    });
    expect(stub.documents().has(id('b'))).toBe(true);
    expect((await outbox()).every((r) => r.done)).toBe(true);
    // one batch: a single addDocuments call for both
    expect(stub.requests.filter((r) => r.path === '/indexes/documents/documents')).toHaveLength(1);
  });

  test('When several versions of a document are pending, one add with the newest is sent', async () => {
    for (const v of [1, 2, 3]) {
      await withTx(db.pool, (tx) =>
        engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: v })),
      );
    }
    await engine.settle();
    const adds = stub.requests.filter((r) => r.path === '/indexes/documents/documents');
    expect(adds.map((r) => (r.body as Array<{ version: string }>).map((d) => d.version))).toEqual([
      ['3'],
    ]);
    expect(stub.history).toEqual([[id('a'), '3']]);
  });

  test('When a document is deleted and added again, the re-added one (new documents.id, version 1) wins', async () => {
    await recordSettled(upsert({ dockey: 'a', docId: 1, version: 5 }));
    await recordSettled(remove({ dockey: 'a', docId: 1, version: 6 }));
    expect(stub.documents().has(id('a'))).toBe(false);
    await recordSettled(upsert({ dockey: 'a', docId: 2, version: 1 }));
    expect(stub.documents().get(id('a'))).toMatchObject({ doc_id: '2', version: '1' });
  });

  test('When a delete carries the version of the last upsert (as the store sends it), the document goes', async () => {
    await recordSettled(upsert({ dockey: 'a', docId: 1, version: 4 }));
    await recordSettled(remove({ dockey: 'a', docId: 1, version: 4 }));
    expect(stub.documents().has(id('a'))).toBe(false);
    // a late copy of the upsert cannot bring it back
    await recordSettled(upsert({ dockey: 'a', docId: 1, version: 4 }));
    expect(stub.documents().has(id('a'))).toBe(false);
  });

  test('When a collection is dropped, its pending changes are dropped and its documents purged by filter', async () => {
    await withTx(db.pool, async (tx) => {
      await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 }));
      await engine.recordChange(
        tx,
        upsert({ dockey: 'z', docId: 9, version: 1, collectionId: 'other123' }),
      );
    });
    await engine.settle();
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'b', docId: 2, version: 1 })),
    );
    await withTx(db.pool, (tx) => engine.dropCollection!(tx, 'abcd1234'));
    // a collection created again with the same id waits behind the drop
    await recordSettled(upsert({ dockey: 'c', docId: 3, version: 1 }));
    expect([...stub.documents().keys()].sort()).toEqual([id('c'), id('z', 'other123')].sort());
    expect(stub.history.map(([i]) => i)).not.toContain(id('b'));
  });
});

describe('index failures', () => {
  test('When a collection is dropped while a batch of it waits for Meilisearch, the purge waits until that batch is recorded', async () => {
    const { relayB, a } = await slowBatchOfA();
    await withTx(db.pool, (tx) => engine.dropCollection!(tx, 'abcd1234'));
    expect(await relayB.runOnce()).toMatchObject({ selected: 1, skipped: 1, done: 0 });
    expect(await a).toMatchObject({ done: 0 });
    stub.taskDelayMs = 0;
    await relayB.drain();
    expect(stub.documents().has(id('a'))).toBe(false);
    expect(stub.history).toEqual([
      [id('a'), '1'],
      [id('a'), 'deleted'],
    ]);
  });

  test('When Meilisearch answers 503, the rows back off and arrive on a later attempt', async () => {
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    stub.failRequests(1, 503, (r) => r.path === '/indexes/documents/documents');
    const first = await engine.relay.runOnce();
    expect(first).toMatchObject({ selected: 1, done: 0, failed: 1 });
    expect(await outbox()).toMatchObject([{ attempts: 1, done: false, backing_off: true }]);
    expect((await outbox())[0].last_error).toMatch(/503/);
    // still backing off: the next batch takes nothing
    expect((await engine.relay.runOnce()).selected).toBe(0);
    await waitFor(async () => (await engine.relay.runOnce()).done === 1, 2000, 20);
    expect(stub.documents().has(id('a'))).toBe(true);
  });

  test('When requests time out or the task never finishes, the change still arrives after recovery', async () => {
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    stub.hangRequests(1, (r) => r.path === '/indexes/documents/documents');
    expect((await engine.relay.runOnce()).failed).toBe(1);
    stub.taskDelayMs = 1000;
    expect((await engine.relay.runOnce({ ignoreBackoff: true })).failed).toBe(1);
    stub.taskDelayMs = 0;
    await engine.settle();
    expect(stub.documents().get(id('a'))).toMatchObject({ version: '1' });
    expect((await outbox())[0]).toMatchObject({ done: true, attempts: 2 });
  });

  test('When Meilisearch is down for a while, nothing is lost and everything arrives once it is back', async () => {
    stub.down = true;
    engine.start();
    for (let i = 0; i < 20; i++) {
      await withTx(db.pool, (tx) =>
        engine.recordChange(tx, upsert({ dockey: `d${i}`, docId: i + 1, version: 1 })),
      );
    }
    await new Promise((r) => setTimeout(r, 400));
    expect(stub.documents().size).toBe(0);
    expect((await engine.relay.pending()).count).toBe(20);
    stub.down = false;
    await waitFor(() => stub.documents().size === 20, 5000);
    await waitFor(async () => (await engine.relay.pending()).count === 0, 5000);
  });

  test('When a task is rejected because of one bad document, the others arrive and the bad one is retried alone until accepted', async () => {
    await engine.stop();
    engine = makeEngine({ relay: { baseBackoffMs: 50, maxBackoffMs: 200, maxRejections: 100 } });
    const poison = id('poison');
    stub.failTasks(1000, 'invalid_request', (docs) => docs.some((d) => d.id === poison));
    await withTx(db.pool, async (tx) => {
      await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 }));
      await engine.recordChange(tx, upsert({ dockey: 'poison', docId: 2, version: 1 }));
      await engine.recordChange(tx, upsert({ dockey: 'b', docId: 3, version: 1 }));
    });
    expect((await engine.relay.runOnce()).failed).toBe(3);
    expect((await outbox()).every((r) => r.isolate)).toBe(true);
    for (let i = 0; i < 6; i++) await engine.relay.runOnce({ ignoreBackoff: true });
    expect(stub.documents().has(id('a'))).toBe(true);
    expect(stub.documents().has(id('b'))).toBe(true);
    expect(stub.documents().has(poison)).toBe(false);
    const rows = await outbox();
    expect(rows.find((r) => r.meili_id === poison)).toMatchObject({ done: false });
    expect(rows.find((r) => r.meili_id === poison).attempts).toBeGreaterThan(1);
    // once Meilisearch accepts it, it arrives too
    stub.reset();
    await engine.settle();
    expect(stub.documents().has(poison)).toBe(true);
  });

  test('When the relay dies after Meilisearch applied a batch but before recording it, the batch is sent again once its claim expires', async () => {
    await withTx(db.pool, async (tx) => {
      await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 }));
      await engine.recordChange(tx, remove({ dockey: 'gone', docId: 2, version: 2 }));
    });
    // a relay whose process "dies" as soon as Meilisearch applied its writes: it never records
    const dying = createOutboxRelay({
      pool: db.pool,
      logger: silentLogger,
      claimLeaseMs: 300,
      sink: {
        upsert: (docs) => engine.gateway.upsert(docs).then(() => new Promise<void>(() => {})),
        remove: (ids) => engine.gateway.remove(ids).then(() => new Promise<void>(() => {})),
        purgeCollection: (cid) => engine.gateway.purgeCollection(cid),
      },
    });
    void dying.runOnce();
    await waitFor(() => stub.documents().has(id('a')));
    await waitFor(() => stub.history.some(([i]) => i === id('gone')));
    // nothing was recorded: the rows are still pending, untouched, and claimed
    expect(await outbox()).toMatchObject([
      { done: false, attempts: 0 },
      { done: false, attempts: 0 },
    ]);
    const relay2 = createOutboxRelay({ pool: db.pool, sink: engine.gateway, logger: silentLogger });
    expect(await relay2.runOnce()).toMatchObject({ selected: 0 });
    await new Promise((r) => setTimeout(r, 350));
    await relay2.drain();
    expect((await outbox()).every((r) => r.done)).toBe(true);
    expect(stub.history.filter(([i]) => i === id('a'))).toEqual([
      [id('a'), '1'],
      [id('a'), '1'],
    ]);
  });
});

describe('transactions', () => {
  test('When the relay waits for a slow Meilisearch task, no Postgres transaction stays open meanwhile', async () => {
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    stub.taskDelayMs = 400;
    const batch = engine.relay.runOnce();
    await waitFor(() => stub.requests.some((q) => q.path === '/indexes/documents/documents'));
    await new Promise((r) => setTimeout(r, 100));
    const open = await db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
    );
    expect(open.rows[0].n).toBe(0);
    expect(await batch).toMatchObject({ selected: 1, done: 1, failed: 0 });
    expect(await outbox()).toMatchObject([{ done: true, attempts: 0 }]);
  });
});

describe('ordering', () => {
  test('When an older change arrives after a newer one was applied, it is not sent', async () => {
    await recordSettled(upsert({ dockey: 'a', docId: 1, version: 3 }));
    await recordSettled(upsert({ dockey: 'a', docId: 1, version: 2 }));
    expect(stub.history).toEqual([[id('a'), '3']]);
    expect(stub.documents().get(id('a'))).toMatchObject({ version: '3' });
  });

  test('When an older change failed and backs off, the newer one is sent at once and settles both', async () => {
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    stub.failRequests(1, 500, (r) => r.path === '/indexes/documents/documents');
    await engine.relay.runOnce();
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 2 })),
    );
    const r = await engine.relay.runOnce();
    expect(r.done).toBe(2);
    expect(stub.history).toEqual([[id('a'), '2']]);
  });

  test('When two relays run at once on one document, they never send it concurrently nor out of order', async () => {
    const { relayB, a } = await slowBatchOfA();
    await withTx(db.pool, (tx) =>
      engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 2 })),
    );
    // B locks the version-2 row but cannot take the document while A holds it
    expect(await relayB.runOnce()).toMatchObject({ selected: 1, skipped: 1, done: 0 });
    expect(await a).toMatchObject({ done: 1 });
    stub.taskDelayMs = 0;
    await relayB.drain();
    expect(stub.history).toEqual([
      [id('a'), '1'],
      [id('a'), '2'],
    ]);
  });
});

describe('status and metrics', () => {
  test('When Meilisearch is unreachable, status says not searchable with the reason', async () => {
    stub.down = true;
    const s = await engine.status('abcd1234');
    expect(s.searchable).toBe(false);
    expect(s.reason).toMatch(/meilisearch unreachable/);
    await expect(engine.ping()).rejects.toThrow();
    stub.down = false;
    await expect(engine.status('abcd1234')).resolves.toEqual({ searchable: true });
  });

  test('When the oldest pending change is older than the limit, status says not searchable', async () => {
    const lagging = makeEngine({ maxLagSeconds: 60 });
    await withTx(db.pool, (tx) =>
      lagging.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    await expect(lagging.status('abcd1234')).resolves.toEqual({ searchable: true });
    await db.pool.query(`UPDATE search_outbox SET created_at = now() - interval '61 seconds'`);
    const s = await lagging.status('abcd1234');
    expect(s).toMatchObject({ searchable: false });
    expect(s.reason).toMatch(/lags/);
    // other collections are not affected
    await expect(lagging.status('other123')).resolves.toEqual({ searchable: true });
  });

  test('When a metrics registry is passed, outbox pending count and lag are exposed', async () => {
    const metrics = createMetrics('search-service');
    const withMetrics = makeEngine({ metrics });
    await withTx(db.pool, (tx) =>
      withMetrics.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    await db.pool.query(`UPDATE search_outbox SET created_at = now() - interval '5 seconds'`);
    let text = await metrics.registry.metrics();
    expect(text).toMatch(/search_outbox_pending\{service="search-service"\} 1/);
    const lag = Number(/search_outbox_lag_seconds\{[^}]*\} ([0-9.]+)/.exec(text)![1]);
    expect(lag).toBeGreaterThanOrEqual(5);
    await withMetrics.settle();
    text = await metrics.registry.metrics();
    expect(text).toMatch(/search_outbox_pending\{service="search-service"\} 0/);
    expect(text).toMatch(/search_outbox_lag_seconds\{service="search-service"\} 0/);
    expect(text).toMatch(/search_outbox_applied_total\{service="search-service"\} 1/);
    expect(text).toMatch(/search_outbox_visibility_seconds_count\{service="search-service"\} 1/);
    // a second engine on the same registry reuses the metrics
    expect(() => makeEngine({ metrics })).not.toThrow();
  });
});

describe('visibility latency', () => {
  test('When NOTIFY is turned off, the relay still finds the change by polling', async () => {
    const quiet = makeEngine({ notify: false, relay: { pollIntervalMs: 50 } });
    quiet.start();
    await withTx(db.pool, (tx) =>
      quiet.recordChange(tx, upsert({ dockey: 'quiet', docId: 500, version: 1 })),
    );
    const ms = await waitFor(() => stub.documents().has(id('quiet')), 2000, 2);
    await quiet.stop();
    expect(ms).toBeLessThan(1000);
  });

  test('When the relay is running, a committed change is in the index well within 1 s (NOTIFY wake-up)', async () => {
    // the poll fallback is set far away so that only NOTIFY can explain a fast arrival
    const live = makeEngine({ relay: { pollIntervalMs: 10_000 } });
    live.start();
    await live.ensureSettings();
    await new Promise((r) => setTimeout(r, 200)); // LISTEN established
    stub.taskDelayMs = 5; // a small Meilisearch indexing time
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      await withTx(db.pool, (tx) =>
        live.recordChange(tx, upsert({ dockey: `lat${i}`, docId: 100 + i, version: 1 })),
      );
      samples.push(await waitFor(() => stub.documents().has(id(`lat${i}`)), 1000, 1));
    }
    await live.stop();
    samples.sort((a, b) => a - b);
    const p50 = samples[Math.floor(samples.length / 2)]!;
    const max = samples.at(-1)!;
    console.log(
      `outbox visibility (commit → stub applied, stub task time 5 ms): p50 ${p50} ms, max ${max} ms`,
    );
    expect(max).toBeLessThan(1000);
  });
});
