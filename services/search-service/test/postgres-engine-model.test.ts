import { MERGE_FACTOR } from '../src/index/postgres/fold/segment-builder';
import { makeDoc, modelApp, modelIndex, random, type ModelQuery } from './helpers/engine-model';
import { foldAll, useSearchDatabase } from './helpers/harness';

/** The Postgres engine against a model: every answer as brute force over the documents gives it. */

const db = useSearchDatabase();

/** 300 category numbers: 2 and 4 (present) repeated, the rest in no document */
const MANY_CATEGORIES = Array.from({ length: 300 }, (_, i) =>
  i % 3 === 0 ? 2 + (i % 2) * 2 : 1000 + i,
);

/** the model's queries: plain, sorted, paged, with ca / ex_ca and date ranges */
const queries = () => {
  const out: ModelQuery[] = [];
  for (const q of ['서울', '바다 fox', 'quick', '맛집', '부산', '2024 tea', '커피']) {
    out.push({ q, sort: 0, start: 0, len: 10 });
    out.push({ q, sort: 1, start: 5, len: 10 });
    out.push({ q, sort: 0, start: 0, len: 100, ca: [1, 2] });
    out.push({ q, sort: 0, start: 10, len: 10, exCa: [3] });
    // long category lists (more than the snapshot's SQL is sent), repeated and absent values
    out.push({ q, sort: 0, start: 0, len: 10, ca: MANY_CATEGORIES });
    out.push({ q, sort: 1, start: 0, len: 10, ca: [2, 2, 4, 2], exCa: [3, 3, 3, 1] });
    out.push({
      q,
      sort: 1,
      start: 0,
      len: 10,
      from: 1_700_000_000 + 5 * 3600,
      to: 1_700_000_000 + 9 * 3600,
    });
    out.push({ q, sort: 0, start: 0, len: 20, from: 1_700_000_000 + 12 * 3600 });
  }
  return out;
};

/** checks every query of `queries` against brute force, naming `state` in a failure */
const checker =
  ({ search, want }: Pick<Awaited<ReturnType<typeof modelApp>>, 'search' | 'want'>) =>
  async (state: string) => {
    for (const p of queries()) {
      expect({ state, ...p, ...(await search(p)) }).toEqual({ state, ...p, ...want(p) });
    }
  };

test('When documents are added, changed and deleted across folds and merges, every search answers what brute force over the documents answers', async () => {
  const index = modelIndex(db.pool);
  const { app, c, add, change, search, want } = await modelApp(db, index, 0x5eed);
  const check = checker({ search, want });
  await add(120);
  await check('all pending');
  await foldAll(index);
  await check('folded and merged');
  await change();
  await check('changes pending, tombstones not applied');
  await add(40);
  await foldAll(index);
  await check('changes folded');
  await change();
  await foldAll(index);
  await check('second round of changes folded');
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS live FROM search_segments WHERE collection_id = $1 AND retired_at IS NULL`,
    [c.cid],
  );
  expect(rows[0].live).toBeLessThan(MERGE_FACTOR * 2); // merges happened
  const { rows: kinds } = await db.pool.query(
    `SELECT count(*) FILTER (WHERE packed IS NOT NULL)::int AS packed,
            count(*) FILTER (WHERE packed IS NULL)::int AS rows
     FROM search_segments WHERE collection_id = $1 AND retired_at IS NULL`,
    [c.cid],
  );
  expect(kinds[0].packed).toBeGreaterThan(0); // small segments: one value
  expect(kinds[0].rows).toBeGreaterThan(0); // merged past 30 documents: a row per term
  await app.services.close();
}, 120_000);

test('When a fold of a few documents grows the collection view past its capacity, every search answers what brute force answers', async () => {
  // the view's arrays start at 1,024 numbers: 1,020 folded and searched, then a fold of 9 is
  // placed number by number and grows them. The 9 are older than every other document, so
  // they go last and no number before them moves: until 2026-12-02 the ranks of the numbers
  // not moved were lost there, and date-filtered counts and small result pages came out wrong
  const index = modelIndex(db.pool);
  const { app, add, search, want } = await modelApp(db, index, 0xca9);
  const check = checker({ search, want });
  await add(1_020);
  await foldAll(index);
  await check('1,020 folded');
  const rand = random(0x01d);
  await add(9, () => ({ ...makeDoc(rand), regdate: 1_700_000_000 - 3600 }));
  await foldAll(index);
  await check('9 more folded: the view grew');
  await app.services.close();
}, 120_000);
