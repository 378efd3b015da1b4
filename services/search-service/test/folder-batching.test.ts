import {
  createPostgresIndex,
  type PostgresIndexOptions,
} from '../src/index/postgres/postgres-index';
import { appWithCollection, useSearchDatabase } from './helpers/harness';
import { docJson } from './helpers/requests';

/**
 * When the folder's background loop folds a collection (IndexFolder.round(false)): at
 * minBatch pending documents, once the first has waited maxDelayMs, or once they have stopped
 * growing for quietMs; until then searches match them in the pending tail.
 */

const db = useSearchDatabase();

async function collectionFolded(opts: PostgresIndexOptions) {
  const index = createPostgresIndex(db.pool, { autoFold: false, ...opts });
  const { app, c, api } = await appWithCollection(db, {}, { index });
  let n = 0;
  return {
    add: async (count: number) => {
      for (let i = 0; i < count; i++) {
        const res = await api.add(`d${n}`, docJson({ score_regdate: 1_700_000_000 + n++ }));
        expect(res.status).toBe(200);
      }
    },
    /** one background round, then the collection's documents still pending */
    round: async () => {
      await index.folder.round(false);
      const { rows } = await db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM search_pending WHERE collection_id = $1',
        [c.cid],
      );
      return rows[0]!.n;
    },
    close: () => app.services.close(),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('When pending documents keep growing short of the batch, the background round waits for more', async () => {
  const f = await collectionFolded({
    foldMinBatch: 100,
    foldMaxDelayMs: 60_000,
    foldQuietMs: 60_000,
  });
  await f.add(2);
  expect(await f.round()).toBe(2);
  await f.add(1);
  expect(await f.round()).toBe(3);
  await f.close();
});

test('When pending documents reach the batch, the background round folds them', async () => {
  const f = await collectionFolded({
    foldMinBatch: 3,
    foldMaxDelayMs: 60_000,
    foldQuietMs: 60_000,
  });
  await f.add(3);
  expect(await f.round()).toBe(0);
  await f.close();
});

test('When pending documents have not grown for the quiet time, the background round folds them short of the batch', async () => {
  const f = await collectionFolded({ foldMinBatch: 100, foldMaxDelayMs: 60_000, foldQuietMs: 50 });
  await f.add(3);
  expect(await f.round()).toBe(3); // first seen: they may still grow
  await sleep(200);
  expect(await f.round()).toBe(0);
  await f.close();
});

test('When the first pending document has waited the longest delay, the background round folds even while writes go on', async () => {
  const f = await collectionFolded({
    foldMinBatch: 100,
    foldMaxDelayMs: 300,
    foldQuietMs: 60_000,
  });
  await f.add(1);
  expect(await f.round()).toBe(1);
  await sleep(400);
  await f.add(1);
  expect(await f.round()).toBe(0);
  await f.close();
});
