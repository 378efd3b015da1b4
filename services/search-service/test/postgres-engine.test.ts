import { parseDoc } from '@hub/contracts';
import {
  createPostgresIndex,
  MAX_TERM_BYTES,
  searchColumns,
  tsquery,
} from '../src/index/postgres/postgres-index';
import {
  createSearchTestDatabase,
  makeApp,
  newCollection,
  type TestDatabase,
} from './helpers/harness';

/** The Postgres engine below the HTTP API: literals, limits, planner settings. */

let db: TestDatabase;
beforeAll(async () => {
  db = await createSearchTestDatabase();
});
afterAll(() => db.drop());

test('When terms hold quotes, backslashes or Hangul, the tsquery matches the stored terms exactly', async () => {
  const terms = ["it's", 'a\\b', '서울', 'x:1', 'a b'];
  const { rows } = await db.pool.query(
    'SELECT array_to_tsvector($1::text[]) @@ $2::tsquery AS all, array_to_tsvector($1::text[]) @@ $3::tsquery AS one',
    [terms, tsquery(terms), tsquery(['it'])],
  );
  expect(rows[0]).toEqual({ all: true, one: false });
});

test('When a document has more terms than a tsvector can hold, the terms are cut to the budget', async () => {
  const words = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
  const parsed = parseDoc(
    JSON.stringify({ icontents_title: 't', icontents_body: words, score_regdate: 1 }),
  );
  if (!parsed.ok) throw new Error(parsed.error.text);
  const cols = searchColumns(parsed.value);
  const bytes = cols.terms.reduce((n, t) => n + Buffer.byteLength(t) + 4, 0);
  expect(bytes).toBeLessThanOrEqual(MAX_TERM_BYTES);
  expect(cols.terms.length).toBeLessThan(120_000);
  // and Postgres accepts it
  const { rows } = await db.pool.query('SELECT length(array_to_tsvector($1::text[])) AS n', [
    cols.terms,
  ]);
  expect(rows[0].n).toBe(cols.terms.length);
});

test('When documents are indexed, large term lists leave the doc_search heap for TOAST', async () => {
  const app = makeApp(db);
  const c = await newCollection(app);
  const index = createPostgresIndex(db.pool);
  const body = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' '); // ~4 KB of terms
  const parsed = parseDoc(
    JSON.stringify({ icontents_title: 'short title', icontents_body: body, score_regdate: 1 }),
  );
  if (!parsed.ok) throw new Error(parsed.error.text);
  const { rows: docs } = await db.pool.query(
    `INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, 'big', '{}') RETURNING id`,
    [c.cid],
  );
  const tx = await db.pool.connect();
  try {
    await index.recordChange(tx, {
      op: 'upsert',
      collectionId: c.cid,
      dockey: 'big',
      docId: docs[0].id,
      version: '1',
      doc: parsed.value,
    });
  } finally {
    tx.release();
  }
  const { rows: toast } = await db.pool.query(
    `SELECT reltoastrelid::regclass::text AS name FROM pg_class WHERE relname = 'doc_search'`,
  );
  const { rows } = await db.pool.query(
    `SELECT count(DISTINCT chunk_id)::int AS n FROM ${toast[0].name}`,
  );
  expect(rows[0].n).toBe(1); // the terms, out of the heap row
  const hits = await index.search({
    collectionId: c.cid,
    q: 'word399 title',
    start: 0,
    len: 10,
    ca: null,
    exCa: null,
    sort: 0,
    startdate: null,
    enddate: null,
  });
  expect(hits).toEqual({ numfound: 1, docIds: [docs[0].id] });
  await app.services.close();
});

test('When search runs, the function settings apply (no JIT, no parallel workers, no sequential scan)', async () => {
  const { rows } = await db.pool.query(
    `SELECT unnest(proconfig) AS setting FROM pg_proc WHERE proname = 'search_doc_ids' ORDER BY 1`,
  );
  expect(rows.map((r) => r.setting)).toEqual(
    expect.arrayContaining(['enable_seqscan=off', 'jit=off', 'max_parallel_workers_per_gather=0']),
  );
});
