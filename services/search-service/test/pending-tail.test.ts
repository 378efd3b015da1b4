import { insertPending } from '../src/index/postgres/write/change-store';
import { readSnapshotRows } from '../src/index/postgres/read/index-store';
import { createIndexCache } from '../src/index/postgres/read/index-cache';
import {
  pendingRow,
  pendingTail,
  type PendingRow,
  type SnapshotFilter,
} from '../src/index/postgres/read/pending-tail';
import { createSnapshotReader } from '../src/index/postgres/read/snapshot-reader';
import { prefixUpperBound } from '../src/index/prefix-expansion';
import { random } from './helpers/engine-model';
import { interceptedPool, useSearchDatabase } from './helpers/harness';

/**
 * The pending tail is matched in the service (pending-tail.ts) over rows read once and cached
 * by row id. It must answer exactly what search_snapshot_plan's SQL answered (the rule it
 * replaces, still in the database for instances not yet updated): here both are asked the
 * same random filters over the same random pending rows.
 */

const db = useSearchDatabase();

const VOCABULARY = [
  '서울',
  '맛집',
  '서울맛집',
  'data',
  'base',
  'database',
  'sea',
  'seaside',
  '가을',
  '가',
  'x',
];
const MARK = 'se*';

function pick<T>(rand: () => number, from: readonly T[], p: number): T[] {
  return from.filter(() => rand() < p);
}

interface SqlSnapshotPlanRow {
  tail: Array<[number, string, string[], number[], string[]]> | null;
  pending_df: Record<string, number> | null;
}

async function sqlTail(collectionId: string, f: SnapshotFilter) {
  const { rows } = await db.pool.query<SqlSnapshotPlanRow>(
    `SELECT tail, pending_df FROM search_snapshot_plan($1, $2::text[], $3::int[], $4::int[],
       $5, $6, $7::text[], $8::text[], $9, $10, $11)`,
    [
      collectionId,
      f.required,
      f.ca,
      f.exCa,
      f.from,
      f.to,
      f.wanted,
      f.lookups,
      f.prefix?.prefix ?? null,
      f.prefix ? prefixUpperBound(f.prefix.prefix) : null,
      f.prefix?.mark ?? null,
    ],
  );
  return { tail: rows[0]!.tail ?? [], pendingDf: rows[0]!.pending_df ?? {} };
}

const byDoc = <T extends [number, ...unknown[]]>(rows: T[]) =>
  [...rows].sort((a, b) => a[0] - b[0]);

test('When the pending tail is matched in the service, it equals what search_snapshot_plan answered', async () => {
  const rand = random(0x7a11);
  const collectionId = 'tail-model';
  for (let d = 1; d <= 60; d++) {
    const terms = pick(rand, VOCABULARY, 0.35);
    await insertPending(db.pool, String(d), {
      collectionId,
      regdate: String(1_700_000_000 + d),
      categories: pick(rand, [1, 2, 3, 4], 0.4),
      titleTerms: pick(rand, terms, 0.5),
      terms,
    });
  }
  const read = await readSnapshotRows(db.pool, collectionId, []);
  const rows = read.fresh.map((r) =>
    pendingRow(r.rowId, r.docId, r.regdate, r.categories, r.terms, r.titleTerms),
  );
  expect(rows).toHaveLength(60);
  // the rows a caller holds come back as their ids only
  const known = rows.slice(0, 20).map((r) => r.rowId);
  const again = await readSnapshotRows(db.pool, collectionId, known);
  expect({ held: again.held.sort(), fresh: again.fresh.length }).toEqual({
    held: known.sort(),
    fresh: 40,
  });

  const seen = { tailRows: 0, dfTerms: 0, prefixRows: 0 };
  for (let round = 0; round < 300; round++) {
    const wanted = pick(rand, VOCABULARY, 0.3);
    const prefix = rand() < 0.25 ? { prefix: 'se', mark: MARK } : null;
    const f: SnapshotFilter = {
      required: pick(rand, wanted, 0.5),
      wanted: prefix && rand() < 0.5 ? [...wanted, MARK] : wanted,
      lookups: pick(rand, wanted, 0.5),
      ca: rand() < 0.3 ? pick(rand, [1, 2, 3, 5], 0.5) : null,
      exCa: rand() < 0.3 ? pick(rand, [1, 2, 3, 5], 0.4) : null,
      from: rand() < 0.2 ? String(1_700_000_000 + Math.floor(rand() * 60)) : null,
      to: rand() < 0.2 ? String(1_700_000_000 + Math.floor(rand() * 60)) : null,
      prefix,
    };
    const service = pendingTail(rows, f);
    const sql = await sqlTail(collectionId, f);
    seen.tailRows += sql.tail.length;
    seen.dfTerms += Object.keys(sql.pendingDf).length;
    if (prefix) seen.prefixRows += sql.tail.length;
    expect({
      round,
      f,
      tail: byDoc(service.tail),
      df: Object.fromEntries(service.pendingDf),
    }).toEqual({
      round,
      f,
      tail: byDoc(sql.tail),
      df: sql.pendingDf,
    });
  }
  // the rounds matched rows, counted terms and prefixes (not only empty answers)
  expect(seen.tailRows).toBeGreaterThan(300);
  expect(seen.dfTerms).toBeGreaterThan(100);
  expect(seen.prefixRows).toBeGreaterThan(50);
});

describe('the pending rows a search reads', () => {
  const collectionId = 'tail-cache';
  const add = (docId: number, terms: string[]) =>
    insertPending(db.pool, String(docId), {
      collectionId,
      regdate: String(1_700_000_000 + docId),
      categories: [],
      titleTerms: [],
      terms,
    });
  const filter: SnapshotFilter = {
    required: ['서울'],
    wanted: ['서울'],
    lookups: [],
    ca: null,
    exCa: null,
    from: null,
    to: null,
  };

  test('When a search already read a pending row, the next search reads only its id, and a replaced row is read again', async () => {
    await add(101, ['서울', '맛집']);
    await add(102, ['서울']);
    const asked: Array<{ text: string; values: unknown[] }> = [];
    const pool = interceptedPool(db.pool, (q, run) => {
      asked.push(q as { text: string; values: unknown[] });
      return run();
    });
    const reader = createSnapshotReader(pool, createIndexCache(1 << 20));
    const termsRead = async () => {
      asked.length = 0;
      const snap = await reader.snapshot(pool, collectionId, filter);
      expect(asked.map((q) => q.text)).toEqual([expect.stringContaining('search_snapshot_read')]);
      return { docs: snap.tail.map(([docId]) => docId).sort(), known: asked[0]!.values[1] };
    };

    expect(await termsRead()).toEqual({ docs: [101, 102], known: [] });
    const second = await termsRead();
    expect(second.docs).toEqual([101, 102]);
    expect(second.known).toHaveLength(2);

    // an update: the document's pending row is deleted and another one inserted
    await db.pool.query('DELETE FROM search_pending WHERE collection_id = $1 AND doc_id = 101', [
      collectionId,
    ]);
    await add(101, ['맛집']);
    expect((await termsRead()).docs).toEqual([102]);
  });

  test('When the cache has let a row go, the search reads its terms again and still matches it', async () => {
    const tiny = createIndexCache(1); // keeps nothing
    const reader = createSnapshotReader(db.pool, tiny);
    const snap = await reader.snapshot(db.pool, collectionId, filter);
    expect(snap.tail.map(([docId]) => docId)).toEqual([102]);
  });

  test('When searches of a collection whose pending rows nothing holds yet come together, the rows are read whole once', async () => {
    const known: unknown[] = [];
    const pool = interceptedPool(db.pool, (q, run) => {
      known.push((q as { values: unknown[] }).values[1]);
      return run();
    });
    const reader = createSnapshotReader(pool, createIndexCache(1 << 20));
    const snaps = await Promise.all(
      [1, 2, 3].map(() => reader.snapshot(pool, collectionId, filter)),
    );
    // the first read every pending row whole (its 101 and 102); the others waited, then held them
    expect(known.map((ids) => (ids as unknown[]).length)).toEqual([0, 2, 2]);
    for (const snap of snaps) expect(snap.tail.map(([docId]) => docId)).toEqual([102]);
  });
});

test('When a pending row is held, its memory is counted by its terms', () => {
  const small: PendingRow = pendingRow(1, 1, '1', [], ['a'], []);
  const large = pendingRow(
    2,
    2,
    '1',
    [],
    Array.from({ length: 200 }, (_, i) => `term${i}`),
    [],
  );
  expect(large.bytes).toBeGreaterThan(small.bytes + 200 * 80);
});
