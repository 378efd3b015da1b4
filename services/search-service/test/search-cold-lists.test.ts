import type { SearchApp } from '../src/app';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../src/index/postgres/postgres-index';
import {
  answerWithoutTime,
  client,
  docJson,
  foldAll,
  makeApp,
  newCollection,
  recordingPool,
  useSearchDatabase,
  type TestCollection,
} from './helpers/harness';

/**
 * A search whose terms no search of this instance read yet in a row segment asks for their
 * lists with its snapshot (snapshot-reader.ts, COLD_LISTS_WITH_SNAPSHOT), from the row segments
 * of the collection's last snapshot: one round trip, not two. The answer is the same. The folds
 * are another instance's, so that this one knows the segments from its snapshots only (its own
 * folds and merges warm it: index-warmer.test.ts).
 */

const db = useSearchDatabase();

/** documents of words w0 … w5, each in a few of them, three folds of four merged into rows */
const doc = (i: number) =>
  docJson({
    icontents_title: `w${i % 6} w${(i + 1) % 6}`,
    icontents_body: `w${(i * 5) % 6}`,
    score_regdate: 1_700_000_000 + i,
  });

let app: SearchApp;
/** the instance that folds and merges */
let folder: PostgresSearchIndex;
let c: TestCollection;
let seen: Array<{ name: string; values: unknown[] }>;

/** 32 more documents, folded four at a time and merged: another row segment */
async function addRowSegment(from: number) {
  for (let i = from; i < from + 32; i++) {
    expect((await client(app, c).add(`d${i}`, doc(i))).status).toBe(200);
  }
  await foldAll(folder);
}

beforeAll(async () => {
  const recording = recordingPool(db.pool);
  seen = recording.seen;
  folder = createPostgresIndex(db.pool, { foldBatchSize: 4, packedMaxDocs: 8, autoFold: false });
  const index = createPostgresIndex(recording.pool, { autoFold: false });
  app = makeApp(db, { pool: recording.pool, index });
  c = await newCollection(app);
  await addRowSegment(0);
  const rows = await db.pool.query(
    `SELECT count(*)::int AS n FROM search_segments
      WHERE collection_id = $1 AND packed IS NULL AND retired_at IS NULL`,
    [c.cid],
  );
  expect(rows.rows[0].n).toBeGreaterThan(0);
});

const answer = (on: SearchApp, params: Record<string, string | number>) =>
  answerWithoutTime(on, c, params);

/** An instance whose cache has read nothing of the collection. */
const freshAnswer = (params: Record<string, string | number>) =>
  answer(makeApp(db, { index: createPostgresIndex(db.pool, { autoFold: false }) }), params);

const listReads = () => seen.filter((q) => q.name === 'bitmap-postings-found').length;
const lastSnapshot = () => seen.filter((q) => q.name === 'bitmap-snapshot-read').at(-1)!;

test('When a search is the first of the collection here, its cold lists are read after its snapshot', async () => {
  const reads = listReads();
  const got = await answer(app, { q: 'w1', sort: 1 });
  expect(lastSnapshot().values[3]).toEqual([]); // no segments known yet: nothing asked ahead
  expect(listReads()).toBe(reads + 1);
  expect(got).toEqual(await freshAnswer({ q: 'w1', sort: 1 }));
});

test('When a search’s terms were never read here, their lists come with its snapshot: no statement reads lists after', async () => {
  const reads = listReads();
  const got = await answer(app, { q: 'w2 w3' });
  const asked = lastSnapshot().values;
  // w2, w3 and their joined form (spacing), word and title lists (relevance), in the row segment
  expect(new Set(asked[4] as string[])).toEqual(new Set(['w', 't']));
  expect(new Set(asked[5] as string[])).toEqual(new Set(['w2', 'w3', 'w2w3']));
  expect(listReads()).toBe(reads);
  expect((got as { numfound: number }).numfound).toBeGreaterThan(0);
  expect(got).toEqual(await freshAnswer({ q: 'w2 w3' }));
});

test('When a search’s lists are cached already, its snapshot asks for none', async () => {
  await answer(app, { q: 'w4' });
  await answer(app, { q: 'w4', sort: 1, start: 10 });
  expect(lastSnapshot().values[3]).toEqual([]);
});

test('When a row segment came after the last snapshot, its lists are read after, and the answer is a fresh instance’s', async () => {
  await addRowSegment(32);
  const reads = listReads();
  const got = await answer(app, { q: 'w5' });
  expect(listReads()).toBe(reads + 1); // the new segment's, which the last snapshot did not list
  expect(got).toEqual(await freshAnswer({ q: 'w5' }));
  const again = await answer(app, { q: 'w0' }); // now asked ahead of both row segments
  expect(listReads()).toBe(reads + 1);
  expect(again).toEqual(await freshAnswer({ q: 'w0' }));
});
