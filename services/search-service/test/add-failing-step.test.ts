import { SEARCH_ERRORS } from '@hub/contracts';
import {
  appWithCollection,
  interceptedPool,
  makeApp,
  storedCounts,
  useSearchDatabase,
} from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

/**
 * The add's one statement is all or nothing and Postgres does not say which of its parts
 * failed: the add is then done step by step, and the step that fails answers its 503 row.
 */

const db = useSearchDatabase();
const A = SEARCH_ERRORS.add;

/** While `work` runs, a trigger refuses the rows of collection `c` inserted into `table`. */
async function refusingRows(table: string, c: TestCollection, work: () => Promise<void>) {
  await db.pool.query(
    `CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'row refused for this test'; END $$`,
  );
  await db.pool.query(
    `CREATE TRIGGER refuse_row BEFORE INSERT ON ${table} FOR EACH ROW
     WHEN (NEW.collection_id = '${c.cid}') EXECUTE FUNCTION refuse_row()`,
  );
  try {
    await work();
  } finally {
    await db.pool.query(`DROP TRIGGER refuse_row ON ${table}`);
    await db.pool.query('DROP FUNCTION refuse_row()');
  }
}

const stored = (c: TestCollection) => storedCounts(db.pool, c);

test.each([
  ["a listener's table (search_pending)", 'search_pending', A.addProcessFail],
  ['the documents table', 'documents', A.duplicationCheckFail],
])(
  "When %s refuses a new document's row, the add answers that step's 503 row and stores nothing",
  async (_what, table, row) => {
    const { api, c } = await appWithCollection(db);
    await refusingRows(table, c, async () => {
      const res = await api.add('refused', docJson());
      expect([res.status, res.text]).toEqual([503, row.text]);
    });
    expect(await stored(c)).toEqual({ documents: 0, pending: 0, counted: 0 });
  },
);

test('When the one statement fails but no step does, the document is added step by step, once', async () => {
  const { c } = await appWithCollection(db);
  let failed = 0;
  const pool = interceptedPool(db.pool, (q, run) => {
    const text = typeof q === 'string' ? q : ((q as { text?: string }).text ?? '');
    if (!/^WITH added\d+ AS/.test(text) || failed++ > 0) return run();
    return Promise.reject(new Error('connection lost for this test'));
  });
  const res = await client(makeApp(db, { pool }), c).add('retried', docJson());
  expect([res.status, res.text]).toEqual([200, 'OK']);
  expect(failed).toBe(1);
  expect(await stored(c)).toEqual({ documents: 1, pending: 1, counted: 1 });
});
