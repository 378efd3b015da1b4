import path from 'node:path';
import type pg from 'pg';
import { createTestDatabase, useTestDatabase, type TestDatabase } from '@hub/testing';
import { createApp, type SearchApp } from '../../src/app';
import { loadConfig, type SearchConfig } from '../../src/config';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../../src/index/postgres/postgres-index';
import type { SearchIndex } from '../../src/index/search-index';
import type { ThumbnailService } from '../../src/thumbnails/thumbnail-service';
import { ADMIN_TOKEN, adminApi } from './admin';
import { client, type TestCollection } from './requests';

export type { TestDatabase };
export { ADMIN_TOKEN };
export * from './requests';

export const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');

/** This test file's own migrated database. */
export function createSearchTestDatabase(poolSize = 20): Promise<TestDatabase> {
  return createTestDatabase({
    migrationsDir: MIGRATIONS_DIR,
    migrationsTable: 'search_migrations',
    poolSize,
  });
}

export function testConfig(db: TestDatabase, env: Record<string, string> = {}): SearchConfig {
  return loadConfig({
    DATABASE_URL: db.url,
    SEARCH_ADMIN_TOKEN: ADMIN_TOKEN,
    SEARCH_COLLECTION_CACHE_MS: '0',
    ...env,
  });
}

export interface AppOptions {
  env?: Record<string, string>;
  pool?: pg.Pool;
  index?: SearchIndex;
  thumbnails?: ThumbnailService;
}

/** Apps made here are closed by closeApps() (useSearchDatabase and useSearchApp: afterAll). */
const apps: SearchApp[] = [];
export function makeApp(db: TestDatabase, opts: AppOptions = {}): SearchApp {
  const pool = opts.pool ?? db.pool;
  const app = createApp({
    config: testConfig(db, opts.env),
    pool,
    index: opts.index ?? createPostgresIndex(pool),
    thumbnails: opts.thumbnails,
  });
  apps.push(app);
  return app;
}
export async function closeApps(): Promise<void> {
  await Promise.all(apps.splice(0).map((a) => a.services.close()));
}

/** What closeAfterAll was given, closed in useSearchDatabase's afterAll. */
const closers: Array<() => unknown> = [];
/**
 * `close` runs after the file's tests, before its apps close and its database is dropped; the
 * last one given first.
 */
export function closeAfterAll(close: () => unknown): void {
  closers.push(close);
}

/**
 * The database of the calling test file (or describe block), migrated before its tests (and
 * handed to `opened`, when given) and dropped after them, once what closeAfterAll was given
 * and the apps made with makeApp are closed.
 */
export function useSearchDatabase(
  opened?: (db: TestDatabase) => void,
  poolSize = 20,
): TestDatabase {
  const db = useTestDatabase({
    migrationsDir: MIGRATIONS_DIR,
    migrationsTable: 'search_migrations',
    poolSize,
    beforeDrop: async () => {
      for (const close of closers.splice(0).reverse()) await close();
      await closeApps();
    },
  });
  if (opened) beforeAll(() => opened(db));
  return db;
}

export type CollectionLimits = {
  max_documents?: number;
  max_api_calls?: number;
  thumbnail_size?: string;
};

export interface SearchTest {
  app: SearchApp;
  /** the collection made when `collection` is asked for */
  c: TestCollection;
}

/**
 * A test file's database and app (made with `opts`), and with `collection` a collection of
 * that app: made before its tests (the app and collection handed to `opened`), closed and
 * dropped after them. Returns the database (useSearchDatabase).
 */
export function useSearchApp(
  opened: (t: SearchTest) => void,
  opts: AppOptions & { poolSize?: number; collection?: true | CollectionLimits } = {},
): TestDatabase {
  const db = useSearchDatabase(undefined, opts.poolSize);
  beforeAll(async () => {
    const app = makeApp(db, opts);
    const limits = opts.collection === true ? {} : opts.collection;
    const c = limits ? await newCollection(app, limits) : (undefined as unknown as TestCollection);
    opened({ app, c });
  });
  return db;
}

/** A new app (made with `opts`) with a new collection, and the client of that collection. */
export async function appWithCollection(
  db: TestDatabase,
  limits: CollectionLimits = {},
  opts: AppOptions = {},
): Promise<{ app: SearchApp; c: TestCollection; api: ReturnType<typeof client> }> {
  const app = makeApp(db, opts);
  const c = await newCollection(app, limits);
  return { app, c, api: client(app, c) };
}

/**
 * appWithCollection on a Postgres engine of small segments and no folder thread (folds of 9
 * documents, packed up to 30, merges past that: many segments of both kinds), and that engine.
 */
export async function smallSegmentsApp(
  db: TestDatabase,
  limits: CollectionLimits = {},
): Promise<Awaited<ReturnType<typeof appWithCollection>> & { index: PostgresSearchIndex }> {
  const index = createPostgresIndex(db.pool, {
    foldBatchSize: 9,
    packedMaxDocs: 30,
    autoFold: false,
  });
  return { index, ...(await appWithCollection(db, limits, { index })) };
}

/**
 * The API calls of a collection in its counter rows (every window): `calls`, counted; `reserved`,
 * held by instances and neither used nor given back.
 */
export async function apiCalls(
  pool: pg.Pool,
  c: TestCollection,
  column: 'calls' | 'reserved' = 'calls',
): Promise<number> {
  const { rows } = await pool.query(
    `SELECT coalesce(sum(${column}), 0)::int AS n FROM api_calls WHERE collection_id = $1`,
    [c.cid],
  );
  return rows[0].n;
}

/** Folds (and merges) with `index` until nothing is left to fold, apply or merge. */
export async function foldAll(index: PostgresSearchIndex): Promise<void> {
  for (;;) {
    const r = await index.folder.round();
    if (!r.folded && !r.tombstones && !r.merged) return;
  }
}

/** The doc (JSON text) stored under a dockey of a collection, or null. */
export async function storedDoc(
  pool: pg.Pool,
  c: TestCollection,
  dockey: string,
): Promise<string | null> {
  const { rows } = await pool.query(
    'SELECT doc FROM documents WHERE collection_id = $1 AND dockey = $2',
    [c.cid, dockey],
  );
  return rows[0]?.doc ?? null;
}

/** A new collection through the admin API. */
export async function newCollection(
  app: SearchApp,
  limits: CollectionLimits = {},
): Promise<TestCollection> {
  const res = await adminApi(app).post('/collections').send(limits);
  if (res.status !== 201) throw new Error(`create collection: ${res.status} ${res.text}`);
  return { cid: res.body.collection_id, apikey: res.body.apikey };
}

/**
 * A pool whose every query (on the pool, or on a client it lends: a transaction's) goes
 * through `around`, which runs it by calling `run` (or does not).
 */
export function interceptedPool(
  pool: pg.Pool,
  around: (q: unknown, run: () => Promise<unknown>) => Promise<unknown>,
): pg.Pool {
  const intercept = <T extends object>(target: T, lend: boolean): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const query = (t as { query: (...a: unknown[]) => Promise<unknown> }).query;
        if (prop === 'query') {
          return (q: unknown, ...rest: unknown[]) => around(q, () => query.call(t, q, ...rest));
        }
        if (lend && prop === 'connect') {
          return async () => intercept(await (t as unknown as pg.Pool).connect(), false);
        }
        const v = Reflect.get(t, prop, receiver);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  return intercept(pool, true);
}

/**
 * A pool that records its named statements (prepared ones: `name`) with their parameters in
 * `seen`, those of the clients it lends too.
 */
export function recordingPool(pool: pg.Pool): {
  pool: pg.Pool;
  seen: Array<{ name: string; values: unknown[] }>;
} {
  const seen: Array<{ name: string; values: unknown[] }> = [];
  const recorded = interceptedPool(pool, (q, run) => {
    const config = q as { name?: string; values?: unknown[] } | null;
    if (typeof q === 'object' && config?.name)
      seen.push({ name: config.name, values: config.values ?? [] });
    return run();
  });
  return { pool: recorded, seen };
}

/**
 * A pool whose queries matching the pattern fail. `fields` are set on the error as Postgres
 * sets them on its own (table, where), for code that tells failures apart by them.
 */
export function failingPool(
  pool: pg.Pool,
  pattern: RegExp,
  fields: { table?: string; where?: string } = {},
): pg.Pool {
  return interceptedPool(pool, (q, run) => {
    const text = typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? '');
    if (!pattern.test(text)) return run();
    return Promise.reject(Object.assign(new Error(`injected failure: ${String(pattern)}`), fields));
  });
}

/**
 * A collection's documents as the tables hold them: rows of documents, pending index rows (the
 * engine's, before a fold) and the count of its document slots.
 */
export async function storedCounts(
  pool: pg.Pool,
  c: TestCollection,
): Promise<{ documents: number; pending: number; counted: number }> {
  const { rows } = await pool.query<{ documents: number; pending: number; counted: number }>(
    `SELECT (SELECT count(*)::int FROM documents WHERE collection_id = $1) AS documents,
            (SELECT count(*)::int FROM search_pending WHERE collection_id = $1) AS pending,
            collection_document_count($1) AS counted`,
    [c.cid],
  );
  return rows[0]!;
}
