import { createMetrics } from '@hub/service-kit';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { adminApi } from './helpers/admin';
import {
  appWithCollection,
  foldAll,
  makeApp,
  newCollection,
  useSearchDatabase,
} from './helpers/harness';
import { client, type TestCollection } from './helpers/requests';

/**
 * The Postgres engine across instances and faults: folds at once, a fold killed midway, another
 * instance's changes, a deleted collection, /metrics.
 */

const db = useSearchDatabase();

async function addDocs(api: ReturnType<typeof client>, n: number, prefix: string) {
  for (let i = 0; i < n; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, j) =>
        api.add(
          `${prefix}${i + j}`,
          JSON.stringify({
            icontents_title: `item ${i + j}`,
            icontents_body: 'shared 공통',
            score_regdate: 1_700_000_000 + i + j,
          }),
        ),
      ),
    );
  }
}

async function indexCounts(cid: string) {
  const { rows } = await db.pool.query(
    `SELECT (SELECT count(*)::int FROM search_pending WHERE collection_id = $1) AS pending,
            (SELECT count(*)::int FROM search_docnos WHERE collection_id = $1) AS folded,
            (SELECT count(DISTINCT docno)::int FROM search_docnos WHERE collection_id = $1) AS numbers,
            (SELECT coalesce(sum(doc_count), 0)::int FROM search_segments
              WHERE collection_id = $1 AND retired_at IS NULL) AS in_segments`,
    [cid],
  );
  return rows[0] as { pending: number; folded: number; numbers: number; in_segments: number };
}

async function numfound(api: ReturnType<typeof client>, q: string): Promise<number> {
  return JSON.parse((await api.search({ q })).text).numfound;
}

/** indexCounts of a collection whose n documents are all folded. */
const foldedAll = (n: number) => ({ pending: 0, folded: n, numbers: n, in_segments: n });

test('When two instances fold one collection at the same time, every document is folded exactly once', async () => {
  const a = createPostgresIndex(db.pool, { foldBatchSize: 13, autoFold: false });
  const b = createPostgresIndex(db.pool, { foldBatchSize: 13, autoFold: false });
  const { app, c, api } = await appWithCollection(db, {}, { index: a });
  await addDocs(api, 300, 'd');
  await Promise.all([foldAll(a), foldAll(b), foldAll(a), foldAll(b)]);
  await foldAll(a);
  expect(await indexCounts(c.cid)).toEqual(foldedAll(300));
  expect(await numfound(api, 'shared')).toBe(300);
  await app.services.close();
});

test('When a fold is killed midway (its connection terminated), nothing is lost or doubled and the next fold resumes', async () => {
  const { app, c, api } = await appWithCollection(db);
  await addDocs(api, 100, 'k');
  // a pool whose fold connection is terminated by the server just before pending rows go
  const killing = new Proxy(db.pool, {
    get(target, prop, receiver) {
      if (prop === 'connect') {
        return async () => {
          const conn = await target.connect();
          return new Proxy(conn, {
            get(t, p, r) {
              if (p === 'query') {
                return async (q: unknown, ...rest: unknown[]) => {
                  if (typeof q === 'string' && q.startsWith('DELETE FROM search_pending')) {
                    const pid = (t as unknown as { processID: number }).processID;
                    await target.query('SELECT pg_terminate_backend($1)', [pid]);
                  }
                  return (t.query as (...a: unknown[]) => unknown).call(t, q, ...rest);
                };
              }
              const v = Reflect.get(t, p, r);
              return typeof v === 'function' ? v.bind(t) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const doomed = createPostgresIndex(killing, { foldBatchSize: 40, autoFold: false });
  await expect(doomed.folder.round()).rejects.toThrow();
  expect(await indexCounts(c.cid)).toEqual({ pending: 100, folded: 0, numbers: 0, in_segments: 0 });
  expect(await numfound(api, 'shared')).toBe(100);

  const survivor = createPostgresIndex(db.pool, { foldBatchSize: 40, autoFold: false });
  await foldAll(survivor);
  expect(await indexCounts(c.cid)).toEqual(foldedAll(100));
  expect(await numfound(api, 'shared')).toBe(100);
  expect(await numfound(client(makeApp(db, { index: survivor }), c), '공통')).toBe(100);
  await app.services.close();
});

test('When another instance changes and folds, this instance sees it in its next search (cached lists are keyed by version)', async () => {
  const mine = createPostgresIndex(db.pool, { autoFold: false });
  const theirs = createPostgresIndex(db.pool, { autoFold: false });
  const appMine = makeApp(db, { index: mine });
  const appTheirs = makeApp(db, { index: theirs });
  const c: TestCollection = await newCollection(appMine);
  await addDocs(client(appTheirs, c), 50, 'x');
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(50); // cached here now
  for (let i = 0; i < 10; i++) await client(appTheirs, c).delete(`x${i}`);
  expect(await numfound(client(appMine, c), 'shared')).toBe(40); // tombstones
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(40); // deleted bitmap, new version
  await addDocs(client(appTheirs, c), 30, 'y');
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(70); // new segment
  await appMine.services.close();
  await appTheirs.services.close();
});

test('When a collection is deleted, its whole index goes (segments, posting lists, numbers, pending)', async () => {
  const index = createPostgresIndex(db.pool, {
    foldBatchSize: 10,
    packedMaxDocs: 20,
    autoFold: false,
  });
  const { app, c, api } = await appWithCollection(db, {}, { index });
  await addDocs(api, 100, 'z');
  await foldAll(index);
  await addDocs(api, 5, 'p');
  const rows = async () =>
    (
      await db.pool.query(
        `SELECT (SELECT count(*) FROM search_postings WHERE segment_id IN
                   (SELECT id FROM search_segments WHERE collection_id = $1))::int AS postings,
                (SELECT count(*) FROM search_segments WHERE collection_id = $1)::int AS segments,
                (SELECT count(*) FROM search_pending WHERE collection_id = $1)::int AS pending,
                (SELECT count(*) FROM search_index_state WHERE collection_id = $1)::int AS state`,
        [c.cid],
      )
    ).rows[0];
  expect((await rows()).postings).toBeGreaterThan(0);
  const res = await adminApi(app).delete(`/collections/${c.cid}`);
  expect(res.status).toBe(204);
  expect(await rows()).toEqual({ postings: 0, segments: 0, pending: 0, state: 0 });
  await app.services.close();
});

test('When the folder works, /metrics shows the fold lag, batch sizes and durations', async () => {
  const metrics = createMetrics('search-service');
  const index = createPostgresIndex(db.pool, { metrics, autoFold: false });
  const { app, api } = await appWithCollection(db, {}, { index });
  await addDocs(api, 10, 'm');
  await index.folder.round();
  const text = await metrics.registry.metrics();
  expect(text).toMatch(/search_fold_lag_documents\{service="search-service"\} \d+/);
  expect(text).toMatch(/search_fold_batch_documents_count\{service="search-service"\} [1-9]/);
  expect(text).toMatch(
    /search_fold_duration_seconds_count\{service="search-service",step="fold"\} [1-9]/,
  );
  expect(text).toMatch(/search_index_cache_bytes/);
  await app.services.close();
});
