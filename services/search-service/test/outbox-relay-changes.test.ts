import type { TestDatabase } from '@hub/testing';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { useRelayTest } from './helpers/outbox-relay';
import type { MeiliStub } from './meili-stub';
import { remove, upsert, waitFor, withTx } from './outbox-fixtures';

/** The outbox relay: what a recorded change becomes in the index, transactions, ordering. */

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
const id = (dockey: string, cid = 'abcd1234') => meiliDocumentId(cid, dockey);
const { outbox, recordSettled, slowBatchOfA } = useRelayTest((t) => ({ db, stub, engine } = t));

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
    await withTx(db.pool, (tx) => engine.dropCollection(tx, 'abcd1234'));
    // a collection created again with the same id waits behind the drop
    await recordSettled(upsert({ dockey: 'c', docId: 3, version: 1 }));
    expect([...stub.documents().keys()].sort()).toEqual([id('c'), id('z', 'other123')].sort());
    expect(stub.history.map(([i]) => i)).not.toContain(id('b'));
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
