import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { appWithCollection, interceptedPool, useSearchDatabase } from './helpers/harness';
import { docJson } from './helpers/requests';

/**
 * The folder's background loop (IndexFolder.round(false)) runs a collection's merge beside its
 * next folds (folder.ts, mergeBeside): a merge of large segments takes seconds, and folds that
 * waited for it left the collection's new documents pending for every search to match one by
 * one.
 */

const db = useSearchDatabase();

/** A merge that stops before it retires its segments, until `release()`. */
function heldMerges(failWith?: Error) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const mergeReached = new Promise<void>((r) => (reached = r));
  const pool = interceptedPool(db.pool, async (q, run) => {
    const text = typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? '');
    if (/SET retired_at = now\(\)/.test(text)) {
      reached();
      await held;
      if (failWith) throw failWith;
    }
    return run();
  });
  return { pool, release, mergeReached };
}

async function collection(pool: ReturnType<typeof heldMerges>['pool']) {
  // folds of at most 9 documents as soon as the loop sees them: the eighth fold makes the run
  // of eight alike that the merge policy merges
  const index = createPostgresIndex(pool, { autoFold: false, foldBatchSize: 9, foldMinBatch: 1 });
  const { app, c, api } = await appWithCollection(db, {}, { index });
  let n = 0;
  const add = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const res = await api.add(`d${n}`, docJson({ score_regdate: 1_700_000_000 + n++ }));
      expect(res.status).toBe(200);
    }
  };
  const count = async (table: 'search_pending' | 'search_segments', where = 'true') => {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE collection_id = $1 AND ${where}`,
      [c.cid],
    );
    return rows[0]!.n;
  };
  const numfound = async () => JSON.parse((await api.search({ q: 'body' })).text).numfound;
  return { index, app, add, count, numfound };
}

test('When a merge is under way, the background loop folds the collection’s next documents beside it', async () => {
  const merges = heldMerges();
  const f = await collection(merges.pool);
  for (let i = 0; i < 8; i++) {
    await f.add(9);
    await f.index.folder.round(false);
  }
  await merges.mergeReached; // the eighth fold's merge waits before it retires its segments
  await f.add(9);
  const r = await f.index.folder.round(false);
  expect(r.folded).toBe(9);
  expect(await f.count('search_pending')).toBe(0);
  expect(await f.count('search_segments', 'retired_at IS NULL')).toBe(9);
  expect(await f.numfound()).toBe(81);

  merges.release();
  let merged = 0;
  for (let i = 0; i < 100 && merged === 0; i++) {
    merged = (await f.index.folder.round(false)).merged;
    if (merged === 0) await new Promise((r) => setTimeout(r, 20));
  }
  expect(merged).toBe(1); // counted by the round after it finished
  expect(await f.count('search_segments', 'retired_at IS NULL')).toBe(2);
  expect(await f.numfound()).toBe(81);
  await f.app.services.close();
});

test('When a merge beside the folds fails for a reason not the collection’s, the next round fails with it', async () => {
  const outage = new Error('connection terminated unexpectedly');
  const merges = heldMerges(outage);
  const f = await collection(merges.pool);
  for (let i = 0; i < 8; i++) {
    await f.add(9);
    await f.index.folder.round(false);
  }
  await merges.mergeReached;
  merges.release();
  let failure: unknown = null;
  for (let i = 0; i < 100 && failure === null; i++) {
    await f.index.folder.round(false).catch((err: unknown) => (failure = err));
    if (failure === null) await new Promise((r) => setTimeout(r, 20));
  }
  expect(failure).toBe(outage);
  // nothing was lost: the merge's transaction rolled back, every document is found
  expect(await f.count('search_segments', 'retired_at IS NULL')).toBe(8);
  expect(await f.numfound()).toBe(72);
  await f.app.services.close();
});
