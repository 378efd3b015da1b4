import path from 'node:path';
import jwt from 'jsonwebtoken';
import type pg from 'pg';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { createApp, type FeedApp, type FeedDeps } from '../src/app';
import { loadConfig, type FeedConfig } from '../src/config';

export const SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const BASE_URL = 'https://feed.example.com';
export const ACCEPT_XML = 'application/vnd.vendor.resource-1.0+xml;charset=utf-8';
export const ACCEPT_JSON = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';
export const TYPE_XML = 'application/vnd.vendor.resource-1.0+xml;charset=utf-8';
export const TYPE_JSON = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';

export function openDatabase(): Promise<TestDatabase> {
  return createTestDatabase({
    migrationsDir: path.join(__dirname, '..', 'migrations'),
    migrationsTable: 'feed_migrations',
  });
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
 * A test file's database: migrated before its tests (handed to `opened`), dropped after
 * them, once the apps made with makeApp are closed.
 */
export function useDatabase(opened: (db: TestDatabase) => void): void {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await openDatabase();
    opened(db);
  });
  afterAll(async () => {
    await closeApps();
    await db?.drop();
  });
}

export interface TokenOpts {
  scope?: string;
  sub?: string;
  expiresIn?: number;
  notBefore?: number;
  issuer?: string;
  audience?: string;
  secret?: string;
  payload?: Record<string, unknown>;
  noExp?: boolean;
}
export function token(opts: TokenOpts = {}): string {
  const payload = { scope: opts.scope ?? 'hub:read', ...opts.payload };
  return jwt.sign(payload, opts.secret ?? SECRET, {
    algorithm: 'HS256',
    subject: opts.sub ?? 'tester',
    ...(opts.noExp ? {} : { expiresIn: opts.expiresIn ?? 3600 }),
    ...(opts.notBefore !== undefined ? { notBefore: opts.notBefore } : {}),
    ...(opts.issuer ? { issuer: opts.issuer } : {}),
    ...(opts.audience ? { audience: opts.audience } : {}),
  });
}
export const READ_TOKEN = token();
export const WRITE_TOKEN = token({ scope: 'hub:read hub:write' });

export function getFeed(
  app: FeedApp,
  path: string,
  accept: string | undefined = ACCEPT_JSON,
  bearer: string = READ_TOKEN,
) {
  const r = request(app).get(path).set('Authorization', `Bearer ${bearer}`);
  return accept === undefined ? r : r.set('Accept', accept);
}

export interface ItemInput {
  title?: unknown;
  link?: unknown;
  description?: unknown;
  category?: unknown;
  creator?: unknown;
  author?: unknown;
  pubDate?: unknown;
  enclosure?: unknown;
  [k: string]: unknown;
}
export function item(overrides: ItemInput = {}): ItemInput {
  return {
    title: '서울의 가을 산책길',
    link: 'https://hub.example.com/contents/1',
    description: '단풍이 아름다운 산책 코스를 소개합니다.',
    category: 'trip',
    creator: '김하늘',
    pubDate: 'Mon, 23 Nov 2026 05:26:57 +0000',
    ...overrides,
  };
}
export function publish(app: FeedApp, body: unknown, bearer: string = WRITE_TOKEN) {
  return request(app)
    .post('/hub/contents')
    .set('Authorization', `Bearer ${bearer}`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body));
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
