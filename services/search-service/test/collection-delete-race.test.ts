import type pg from 'pg';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../src/index/postgres/postgres-index';
import { adminApi } from './helpers/admin';
import {
  closeAfterAll,
  foldAll,
  makeApp,
  newCollection,
  useSearchDatabase,
} from './helpers/harness';
import { thumbnailTestService } from './helpers/thumbnails';
import { startImageServer, type ImageServer } from './thumbnails-image-server';
import { client, docJson, type TestCollection } from './helpers/requests';

/**
 * Deleting a collection while it is written, folded, merged and re-analysed, on two instances
 * of one database: once the delete has answered, no row of the collection is left in any table
 * and none comes back.
 */

const db = useSearchDatabase(undefined, 40);

/** Every table with a collection_id column (so a table added later is checked too). */
async function tablesWithCollectionId(): Promise<string[]> {
  const { rows } = await db.pool.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = current_schema() AND c.column_name = 'collection_id'
        AND t.table_type = 'BASE TABLE'
      ORDER BY 1`,
  );
  return rows.map((r) => r.table_name);
}

/** The rows of the collection in every such table (tables with none left out), and orphan posting lists. */
async function rowsLeft(cid: string): Promise<Record<string, number>> {
  const left: Record<string, number> = {};
  for (const table of await tablesWithCollectionId()) {
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM ${table} WHERE collection_id = $1`,
      [cid],
    );
    if (rows[0].n) left[table] = rows[0].n;
  }
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS n FROM search_postings p
      WHERE NOT EXISTS (SELECT 1 FROM search_segments s WHERE s.id = p.segment_id)`,
  );
  if (rows[0].n) left['search_postings (no segment)'] = rows[0].n;
  return left;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pool of the deleting instance: each statement of a transaction starts 20 ms late, so
 * that writers, folds and merges of the other instances reach every gap between them.
 */
function unhurriedPool(): pg.Pool {
  return new Proxy(db.pool, {
    get(target, prop, receiver) {
      if (prop === 'connect')
        return async () => {
          const conn = await target.connect();
          return new Proxy(conn, {
            get(t, p) {
              if (p === 'query')
                return async (...args: unknown[]) => {
                  await pause(20);
                  return (t.query as (...a: unknown[]) => unknown).apply(t, args);
                };
              const v = Reflect.get(t, p, t);
              return typeof v === 'function' ? v.bind(t) : v;
            },
          });
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** Repeats `work` until `running()` is false; what it throws is kept in `errors`. */
async function loop(running: () => boolean, errors: unknown[], work: () => Promise<unknown>) {
  while (running()) {
    try {
      await work();
    } catch (err) {
      errors.push(err);
      return;
    }
  }
}

let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
  closeAfterAll(() => images.close());
});

/** Every other document has an image (thumbnail jobs, thumbnails). */
const doc = (i: number) =>
  docJson({
    icontents_title: `title ${i} 공통`,
    icontents_body: `body ${i % 7}`,
    ...(i % 2 ? { contents_image: `${images.url}/${i % 4 === 1 ? 'a' : 'b'}.jpg` } : {}),
  });

/**
 * 16 writers (half on each instance) adding, updating, field-updating and deleting documents,
 * both instances' folders folding and merging, and a re-analysis, all on the collection while
 * instance `deleter` deletes it. Answers other than 200 are collected as "status text".
 */
async function deleteWhileBusy(
  apps: SearchApp[],
  indexes: PostgresSearchIndex[],
  deleter: SearchApp,
) {
  const c: TestCollection = await newCollection(apps[0]!);
  const apis = apps.map((app) => client(app, c));
  for (let i = 0; i < 60; i += 20)
    await Promise.all(Array.from({ length: 20 }, (_, j) => apis[0]!.add(`k${i + j}`, doc(i + j))));
  await foldAll(indexes[0]!); // folded documents: updates and deletes now leave tombstones
  let running = true;
  const errors: unknown[] = [];
  const answers = new Set<string>();
  let next = 60;
  const writer = (w: number) =>
    loop(
      () => running,
      errors,
      async () => {
        const api = apis[w % 2]!;
        const i = next++;
        const k = `k${i % 90}`;
        const res = await [
          () => api.add(`n${i}`, doc(i)),
          () => api.update(k, doc(i)),
          () => api.updateField(k, 'score_x', String(i)),
          () => api.delete(k),
          () => api.add(k, doc(i)),
        ][i % 5]!();
        if (res.status !== 200) answers.add(`${res.status} ${res.text}`);
      },
    );
  const folders = indexes.map((index) =>
    loop(
      () => running,
      errors,
      () => index.folder.round(),
    ),
  );
  const reanalysis = loop(
    () => running,
    errors,
    async () => {
      // the index was made by another analyser: every stored document is re-analysed
      await db.pool.query('UPDATE search_analyser SET version = version - 1, target = NULL');
      await indexes[1]!.reanalysis.run();
    },
  );
  const writers = Array.from({ length: 16 }, (_, w) => writer(w));
  await pause(150);
  const deleted = await adminApi(deleter).delete(`/collections/${c.cid}`);
  await pause(100);
  running = false;
  await Promise.all([...writers, ...folders, reanalysis]);
  return { c, deleted: deleted.status, errors, answers };
}

test('When a collection is deleted while two instances write, fold, merge, re-analyse and make thumbnails of it, no row of it is left or comes back', async () => {
  const indexes = [0, 1].map(() =>
    createPostgresIndex(db.pool, { autoFold: false, foldBatchSize: 6, packedMaxDocs: 12 }),
  );
  const apps = indexes.map((index) => {
    const thumbnails = thumbnailTestService(db);
    thumbnails.start();
    closeAfterAll(() => thumbnails.stop());
    return makeApp(db, { index, thumbnails });
  });
  const pool = unhurriedPool();
  const deleters = [
    ...apps,
    makeApp(db, {
      pool,
      index: createPostgresIndex(pool, { autoFold: false }),
      thumbnails: thumbnailTestService(db),
    }),
  ];
  for (let round = 0; round < 3; round++) {
    const { c, deleted, errors, answers } = await deleteWhileBusy(
      apps,
      indexes,
      deleters[round % 3]!,
    );
    expect(deleted).toBe(204);
    expect(errors).toEqual([]);
    // a writer whose collection went answers as the spec says, never 500
    expect([...answers].filter((a) => a.startsWith('500'))).toEqual([]);
    for (const index of indexes) await foldAll(index);
    expect(await rowsLeft(c.cid)).toEqual({});
    // and nothing of it comes back: folders, merges, counters settled by either instance
    await pause(300);
    for (const index of indexes) await foldAll(index);
    expect(await rowsLeft(c.cid)).toEqual({});
  }
  expect(await tablesWithCollectionId()).toEqual(
    expect.arrayContaining(['search_pending', 'search_docnos', 'search_segments']),
  );
}, 30_000);

test('When the folder meets pending documents of a collection that is gone, it drops them and folds the other collections in the same round', async () => {
  const index = createPostgresIndex(db.pool, { autoFold: false });
  const app = makeApp(db, { index });
  const c = await newCollection(app);
  expect((await client(app, c).add('a', docJson())).status).toBe(200);
  // what a collection deleted before its index was (migration 1732900000220 removes such rows)
  await db.pool.query(
    `INSERT INTO search_pending (collection_id, doc_id, regdate, categories, title_terms, terms)
     VALUES ('Gone0000', -1, 0, '{}', '{}', '{x}'), ('Gone0000', -2, 0, '{}', '{}', '{x}')`,
  );
  await index.folder.round();
  expect(await rowsLeft('Gone0000')).toEqual({});
  const { rows } = await db.pool.query(
    'SELECT count(*)::int AS n FROM search_docnos WHERE collection_id = $1',
    [c.cid],
  );
  expect(rows[0].n).toBe(1);
});

test('When a collection is deleted while an add waits for its row, the add answers 503 database exception (not index max reached)', async () => {
  const app = makeApp(db);
  const c = await newCollection(app);
  const api = client(app, c);
  expect((await api.add('first', docJson())).status).toBe(200); // a block of calls is reserved
  const deleting = await db.pool.connect();
  try {
    await deleting.query('BEGIN');
    await deleting.query('DELETE FROM collections WHERE id = $1', [c.cid]);
    const adding = api.add('second', docJson()).then((r) => r);
    await pause(300);
    await deleting.query('COMMIT');
    const res = await adding;
    expect({ status: res.status, text: res.text }).toEqual({
      status: 503,
      text: SEARCH_ERRORS.add.databaseException.text,
    });
  } finally {
    deleting.release();
  }
});
