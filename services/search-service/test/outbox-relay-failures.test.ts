import type { TestDatabase } from '@hub/testing';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { createOutboxRelay } from '../src/index/meilisearch/outbox/relay';
import { useRelayTest } from './helpers/outbox-relay';
import type { MeiliStub } from './meili-stub';
import { remove, silentLogger, upsert, waitFor, withTx } from './outbox-fixtures';

/** The outbox relay when Meilisearch fails: errors, timeouts, outages, rejections, a dying relay. */

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
const { makeEngine, outbox, slowBatchOfA } = useRelayTest((t) => ({ db, stub, engine } = t), {
  current: () => engine,
});
const id = (dockey: string) => meiliDocumentId('abcd1234', dockey);

describe('index failures', () => {
  test('When a collection is dropped while a batch of it waits for Meilisearch, the purge waits until that batch is recorded', async () => {
    const { relayB, a } = await slowBatchOfA();
    await withTx(db.pool, (tx) => engine.dropCollection(tx, 'abcd1234'));
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
