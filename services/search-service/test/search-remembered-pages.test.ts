import type { SearchApp } from '../src/app';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
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
 * A query asked again reads its page's documents with its snapshot (remembered-pages.ts): one
 * round trip to PostgreSQL instead of two. What is remembered is which documents, never their
 * content, so the answer is always the one a fresh instance gives.
 */

const db = useSearchDatabase();

let app: SearchApp;
let fresh: SearchApp;
let c: TestCollection;
let seen: Array<{ name: string; values: unknown[] }>;

beforeAll(async () => {
  const recording = recordingPool(db.pool);
  seen = recording.seen;
  const index = createPostgresIndex(recording.pool, { autoFold: false });
  app = makeApp(db, { pool: recording.pool, index });
  c = await newCollection(app);
  const api = client(app, c);
  for (let i = 1; i <= 22; i++) {
    const doc = docJson({ icontents_title: `harbour ${i}`, score_regdate: 1_700_000_000 + i });
    expect((await api.add(`d${i}`, doc)).status).toBe(200);
  }
  await foldAll(index); // d1–d22 folded; d23 below stays pending
  const pending = docJson({ icontents_title: 'harbour 23', score_regdate: 1_700_000_023 });
  expect((await client(app, c).add('d23', pending)).status).toBe(200);
});

/** An instance that remembers no page: another engine and app on the same database. */
function freshApp(): SearchApp {
  fresh ??= makeApp(db, { index: createPostgresIndex(db.pool, { autoFold: false }) });
  return fresh;
}

const answer = (on: SearchApp, params: Record<string, string | number>) =>
  answerWithoutTime(on, c, params);

const pageReads = () => seen.filter((q) => q.name.startsWith('document-load-bytes')).length;
const lastSnapshot = () => seen.filter((q) => q.name === 'bitmap-snapshot-read').at(-1)!;

test('When a query is asked again, its page comes with its snapshot: no statement reads the documents after', async () => {
  const params = { q: 'harbour', sort: 1, len: 10 };
  const first = await answer(app, params);
  expect(lastSnapshot().values[2]).toEqual([]); // asked for the first time: nothing expected
  const reads = pageReads();
  expect(reads).toBeGreaterThan(0);

  const again = await answer(app, params);
  expect(again).toEqual(first);
  expect(pageReads()).toBe(reads);
  expect(lastSnapshot().values[2]).toHaveLength(10);
  expect(again).toEqual(await answer(freshApp(), params));
});

test('When a document of a remembered page was updated, the query asked again answers it as it is now', async () => {
  const params = { q: 'harbour', sort: 1, len: 10 };
  await answer(app, params);
  const changed = docJson({
    icontents_title: 'harbour 20',
    icontents_body: 'repainted',
    score_regdate: 1_700_000_020,
  });
  expect((await client(app, c).update('d20', changed)).status).toBe(200);

  const again = (await answer(app, params)) as { docs: Array<Record<string, unknown>> };
  expect(again.docs.find((d) => d.dockey === 'd20')?.icontents_body).toBe('repainted');
  expect(again).toEqual(await answer(freshApp(), params));
});

test('When a document of a remembered page was deleted, the query asked again leaves it out and counts it no more', async () => {
  const params = { q: 'harbour', sort: 1, len: 10 };
  const before = (await answer(app, params)) as { numfound: number; docs: unknown[] };
  expect((await client(app, c).delete('d15')).status).toBe(200);

  const again = (await answer(app, params)) as {
    numfound: number;
    docs: Array<Record<string, unknown>>;
  };
  expect(again.numfound).toBe(before.numfound - 1);
  expect(again.docs.map((d) => d.dockey)).not.toContain('d15');
  expect(again).toEqual(await answer(freshApp(), params));
});

test('When a newer match moved the page, the query asked again answers the new page, as a fresh instance does', async () => {
  const params = { q: 'harbour', sort: 1, len: 10 };
  await answer(app, params);
  const newer = docJson({ icontents_title: 'harbour 24', score_regdate: 1_700_000_024 });
  expect((await client(app, c).add('d24', newer)).status).toBe(200);

  const again = (await answer(app, params)) as { docs: Array<Record<string, unknown>> };
  expect(again.docs.map((d) => d.dockey).slice(0, 2)).toEqual(['d24', 'd23']);
  expect(again).toEqual(await answer(freshApp(), params));
});

test('A remembered page is its query’s own: another start asks for no documents with its snapshot', async () => {
  await answer(app, { q: 'harbour', len: 10 });
  await answer(app, { q: 'harbour', len: 10, start: 10 });
  expect(lastSnapshot().values[2]).toEqual([]);
});
