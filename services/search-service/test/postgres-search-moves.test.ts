import { modelApp, modelIndex, type ModelQuery } from './helpers/engine-model';
import { foldAll, interceptedPool, useSearchDatabase } from './helpers/harness';

/**
 * A fold or a merge that moves a search's snapshot while the search reads it never fails the
 * search: here the snapshot moves before every read of a deleted bitmap (or of the segments'
 * documents), on the pool and in a transaction alike, under a cache too small to keep what a
 * search read (an eviction before each read), and the search still answers what brute force
 * answers.
 */

const db = useSearchDatabase();

/** what a fold does to a deleted bitmap: a newer version (here with the same numbers) */
const FOLD_DELETED = `UPDATE search_deleted SET version = version + 1 WHERE collection_id = $1`;

/**
 * What a merge does to segments once their 30 s are over: each live segment replaced by a new
 * one (here a copy: the same numbers and lists), the old one dropped.
 */
const MERGE_AND_DROP = `
  WITH old AS (
    DELETE FROM search_segments WHERE collection_id = $1 AND retired_at IS NULL
    RETURNING id, collection_id, first_docno, doc_count, doc_ids, regdates, packed
  ), copied AS (
    INSERT INTO search_segments (collection_id, first_docno, doc_count, doc_ids, regdates, packed)
    SELECT collection_id, first_docno, doc_count, doc_ids, regdates, packed FROM old
    RETURNING id, first_docno
  ), lists AS (
    DELETE FROM search_postings p USING old WHERE p.segment_id = old.id
    RETURNING old.first_docno, p.kind, p.term, p.data
  )
  INSERT INTO search_postings (segment_id, kind, term, data)
  SELECT c.id, l.kind, l.term, l.data FROM lists l JOIN copied c USING (first_docno)`;

/**
 * A collection (folded documents, deleted numbers, pending documents) whose engine, while
 * `moving` is set, runs `moving.sql` (on another connection, committed) before each query
 * named `moving.before`, wherever that query runs.
 */
async function movingApp(seed: number) {
  let moving: { before: string; sql: string; cid: string } | null = null;
  let moves = 0;
  const pool = interceptedPool(db.pool, async (q, run) => {
    const name = (q as { name?: string } | null)?.name;
    if (moving && name === moving.before) {
      await db.pool.query(moving.sql, [moving.cid]);
      moves++;
    }
    return run();
  });
  // a 4 KiB cache keeps no deleted bitmap (8 KiB) and no view: every search reads them
  const index = modelIndex(pool, 4096);
  const { c, search, want, ...m } = await modelApp(db, index, seed);
  await m.add(150);
  await foldAll(index);
  await m.change(); // deletes and updates: tombstones, then deleted numbers
  await foldAll(index);
  await m.add(10); // pending
  const deleted = await db.pool.query('SELECT 1 FROM search_deleted WHERE collection_id = $1', [
    c.cid,
  ]);
  expect(deleted.rowCount).toBeGreaterThan(0);

  /** the answer (status, numfound, dockeys) and how many times the snapshot moved meanwhile */
  const searchWhileMoving = async (before: string, sql: string, p: ModelQuery) => {
    moving = { before, sql, cid: c.cid };
    moves = 0;
    try {
      const answer = await search(p);
      return { answer, moves };
    } finally {
      moving = null;
    }
  };
  return { searchWhileMoving, want };
}

const QUERIES: ModelQuery[] = [
  { q: '서울', sort: 0, start: 0, len: 10 },
  { q: 'fox', sort: 1, start: 5, len: 20, ca: [2, 3] },
];

describe('a search whose snapshot moves while it reads', () => {
  test('When a fold folds a deleted bitmap to a newer version before every read of it, the search answers 200 with what brute force answers', async () => {
    const { searchWhileMoving, want } = await movingApp(0x5eed);
    for (const p of QUERIES) {
      const { answer, moves } = await searchWhileMoving('bitmap-deleted', FOLD_DELETED, p);
      expect(answer).toEqual(want(p));
      expect(moves).toBeGreaterThanOrEqual(2); // on the pool, then in the transaction
    }
  }, 60_000);

  test('When a merge replaces and drops every segment before every read of their documents, the search answers 200 with what brute force answers', async () => {
    const { searchWhileMoving, want } = await movingApp(0x3e6e);
    for (const p of QUERIES) {
      const { answer, moves } = await searchWhileMoving('bitmap-segment-docs', MERGE_AND_DROP, p);
      expect(answer).toEqual(want(p));
      expect(moves).toBeGreaterThanOrEqual(2);
    }
  }, 60_000);

  test('When a merge replaces and drops every segment before every read of their category lists (facet=categories), the search answers 200 with the counts brute force counts', async () => {
    const { searchWhileMoving, want } = await movingApp(0xfac3);
    for (const p of QUERIES.map((q) => ({ ...q, facet: true }))) {
      const { answer, moves } = await searchWhileMoving('bitmap-category-lists', MERGE_AND_DROP, p);
      expect(answer).toEqual(want(p));
      expect(moves).toBeGreaterThanOrEqual(2);
    }
  }, 60_000);
});
