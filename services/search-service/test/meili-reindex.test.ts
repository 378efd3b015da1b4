import { queueReindex } from '../src/cli/reindex/queue';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId, toMeiliDocument } from '../src/index/meilisearch/mapping';
import type { TestDatabase } from './helpers/harness';
import { storedCollection, useMeilisearch } from './helpers/meili';
import type { MeiliStub } from './meili-stub';
import { silentLogger, upsert, withTx } from './outbox-fixtures';

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
let cid: string;
let docIds: Map<string, string>;

useMeilisearch((m) => ({ db, stub, engine } = m), { engine: { runRelay: false } });
beforeAll(async () => ({ cid, docIds } = await storedCollection(db.pool)));

test('When the index is out of step with Postgres, reindex makes it hold exactly the stored documents', async () => {
  await engine.ensureSettings();
  // the index has a wrong copy of a, and a leftover document Postgres no longer has
  await engine.gateway.upsert([
    { ...(await mapped('a', 'stale title')), version: '1' },
    { ...(await mapped('gone', 'leftover')), doc_id: '999', version: '3' },
  ]);
  const stats = await queueReindex({
    pool: db.pool,
    engine,
    logger: silentLogger,
    collectionId: cid,
  });
  expect(stats).toEqual({ collections: 1, queued: 3, deletes: 1, unreadable: 0 });
  await engine.settle();
  const docs = stub.documents();
  expect([...docs.keys()].sort()).toEqual(
    ['a', 'b', 'c'].map((k) => meiliDocumentId(cid, k)).sort(),
  );
  expect(docs.get(meiliDocumentId(cid, 'a'))).toMatchObject({
    doc_id: docIds.get('a'),
    version: '1',
    text: { title: 'stored a' },
  });
});

test('When a reindex runs while the service writes, a newer change is never overwritten by the reindex', async () => {
  const before = stub.history.length;
  await queueReindex({ pool: db.pool, engine, logger: silentLogger, collectionId: cid });
  // the service updates a after the reindex read it (the store would say version 2)
  await withTx(db.pool, (tx) =>
    engine.recordChange(
      tx,
      upsert({
        collectionId: cid,
        dockey: 'a',
        docId: docIds.get('a')!,
        version: 2,
        title: 'newer a',
      }),
    ),
  );
  await engine.settle();
  expect(stub.documents().get(meiliDocumentId(cid, 'a'))).toMatchObject({
    version: '2',
    text: { title: 'newer a' },
  });
  // b and c were sent again (forced) although Meilisearch had that version
  const resent = stub.history.slice(before).map(([id]) => id);
  expect(resent).toEqual(
    expect.arrayContaining([meiliDocumentId(cid, 'b'), meiliDocumentId(cid, 'c')]),
  );
});

async function mapped(dockey: string, title: string) {
  return toMeiliDocument(
    upsert({ collectionId: cid, dockey, docId: docIds.get(dockey) ?? '1', version: 1, title }),
  );
}
