import path from 'node:path';
import type pg from 'pg';
import {
  createTestDatabase,
  listen,
  useTestDatabase,
  type Listening,
  type TestDatabase,
} from '@hub/testing';
import { createApp, type FeedApp, type FeedDeps } from '../../src/app';
import { loadConfig, type FeedConfig } from '../../src/config';
import { SECRET } from './tokens';

export type { TestDatabase };
export * from './requests';
export * from './tokens';

export const BASE_URL = 'https://feed.example.com';

const MIGRATIONS = {
  migrationsDir: path.join(__dirname, '..', '..', 'migrations'),
  migrationsTable: 'feed_migrations',
};

export function openDatabase(): Promise<TestDatabase> {
  return createTestDatabase(MIGRATIONS);
}

export function configFor(db: TestDatabase, env: NodeJS.ProcessEnv = {}): FeedConfig {
  return loadConfig({
    DATABASE_URL: db.url,
    FEED_JWT_SECRET: SECRET,
    FEED_BASE_URL: BASE_URL,
    ...env,
  });
}

/** Apps made here are closed by closeApps() (afterAll). */
const apps: FeedApp[] = [];
export async function makeApp(
  db: TestDatabase,
  env: NodeJS.ProcessEnv = {},
  deps: Partial<FeedDeps> = {},
): Promise<FeedApp> {
  const app = createApp({ config: configFor(db, env), pool: db.pool, ...deps });
  apps.push(app);
  await app.ready;
  return app;
}
export async function closeApps(): Promise<void> {
  await Promise.all(apps.splice(0).map((a) => a.close()));
}

/**
 * The database of the calling test file (or describe block): migrated before its tests,
 * dropped after them once the apps made with makeApp are closed. `emptyEachTest`: every test
 * starts without items.
 */
export function useDatabase({ emptyEachTest = false } = {}): TestDatabase {
  const db = useTestDatabase({ ...MIGRATIONS, beforeDrop: closeApps });
  if (emptyEachTest)
    beforeEach(async () => {
      await db.pool.query('TRUNCATE feed_items, feed_state');
    });
  return db;
}

/** The feed-service on a real port of this machine, with FEED_BASE_URL = its address. */
export async function serveApp(
  db: TestDatabase,
  env: NodeJS.ProcessEnv = {},
): Promise<Listening & { app: FeedApp }> {
  const listening = await listen();
  const app = await makeApp(db, { FEED_BASE_URL: listening.url, ...env });
  listening.server.on('request', app);
  return { ...listening, app };
}

/** Rows straight into the table (bypassing the API), pub_date = base + i minutes; links unique per category and prefix. */
export async function insertRows(
  pool: pg.Pool,
  n: number,
  opts: { category?: string; base?: string; prefix?: string } = {},
): Promise<void> {
  await pool.query(
    `INSERT INTO feed_items (title, link, description, category, creator, pub_date)
     SELECT $3 || ' ' || i, 'https://hub.example.com/' || $1 || '/' || $3 || '/' || i, 'row ' || i, $1, 'creator ' || i, $2::timestamptz + i * interval '1 minute'
     FROM generate_series(1, $4::int) AS i`,
    [opts.category ?? 'it', opts.base ?? '2026-01-01T00:00:00Z', opts.prefix ?? 'row', n],
  );
}

export async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

/**
 * Runs a write and waits until every given app has heard its NOTIFY, so a cache fill that
 * follows is not discarded by a notification still in flight.
 */
export async function settled<T>(apps: FeedApp[], write: () => Promise<T>): Promise<T> {
  const before = apps.map((a) => a.listener?.notifications ?? 0);
  const result = await write();
  await until(async () =>
    apps.every((a, i) => !a.listener || a.listener.notifications > before[i]!),
  );
  return result;
}
