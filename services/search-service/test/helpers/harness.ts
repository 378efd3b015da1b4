import path from 'node:path';
import type pg from 'pg';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { createApp, type SearchApp } from '../../src/app';
import { loadConfig, type SearchConfig } from '../../src/config';
import { createPostgresIndex } from '../../src/index/postgres/postgres-index';
import type { SearchIndex } from '../../src/index/search-index';
import type { ThumbnailService } from '../../src/thumbnails/thumbnail-service';

export type { TestDatabase };

export const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

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

export function makeApp(
  db: TestDatabase,
  opts: {
    env?: Record<string, string>;
    pool?: pg.Pool;
    index?: SearchIndex;
    thumbnails?: ThumbnailService;
  } = {},
): SearchApp {
  const pool = opts.pool ?? db.pool;
  return createApp({
    config: testConfig(db, opts.env),
    pool,
    index: opts.index ?? createPostgresIndex(pool),
    thumbnails: opts.thumbnails,
  });
}

export interface TestCollection {
  cid: string;
  apikey: string;
}

/** A new collection through the admin API. */
export async function newCollection(
  app: SearchApp,
  limits: { max_documents?: number; max_api_calls?: number; thumbnail_size?: string } = {},
): Promise<TestCollection> {
  const res = await request(app)
    .post('/admin/collections')
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send(limits);
  if (res.status !== 201) throw new Error(`create collection: ${res.status} ${res.text}`);
  return { cid: res.body.collection_id, apikey: res.body.apikey };
}

/** A valid doc (JSON text) with the required fields; `extra` adds or overrides fields. */
export function docJson(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    icontents_title: 'a title',
    icontents_body: 'a body',
    score_regdate: 1700000000,
    ...extra,
  });
}

/** application/x-www-form-urlencoded text of these parameters (UTF-8). */
export function form(params: Record<string, string | number | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

export type Placement = 'query' | 'body';

/** One request with its parameters in the query string or in a form body. */
export function call(
  app: SearchApp,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  params: Record<string, string | number | undefined>,
  placement: Placement = 'body',
): request.Test {
  const text = form(params);
  const agent = request(app);
  if (placement === 'query') return agent[method](text ? `${path}?${text}` : path);
  return agent[method](path).set('Content-Type', 'application/x-www-form-urlencoded').send(text);
}

/** The client of one collection: the six operations with their parameters. */
export function client(app: SearchApp, c: TestCollection, placement: Placement = 'body') {
  const base = `/v2/${c.cid}`;
  const withKey = (p: Record<string, string | number | undefined>) => ({ apikey: c.apikey, ...p });
  return {
    add: (dockey: string, doc: string, force?: number) =>
      call(app, 'post', `${base}/docs`, withKey({ dockey, doc, force }), placement),
    update: (dockey: string, doc: string) =>
      call(app, 'put', `${base}/docs`, withKey({ dockey, doc }), placement),
    updateField: (dockey: string, fieldname: string, fieldvalue: string) =>
      call(
        app,
        'put',
        `${base}/docs/fields`,
        withKey({ dockey, fieldname, fieldvalue }),
        placement,
      ),
    delete: (dockey: string) => call(app, 'delete', `${base}/docs`, withKey({ dockey }), placement),
    status: (format = 'json') =>
      call(app, 'get', `${base}/status/${format}`, withKey({}), placement),
    search: (params: Record<string, string | number | undefined>, format = 'json') =>
      call(
        app,
        'get',
        `${base}/search/${format}`,
        withKey(params),
        placement === 'body' ? 'query' : placement,
      ),
  };
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
  const injected = () =>
    Promise.reject(Object.assign(new Error(`injected failure: ${String(pattern)}`), fields));
  const fails = (q: unknown) => {
    const text = typeof q === 'string' ? q : ((q as { text?: string } | null)?.text ?? '');
    return pattern.test(text);
  };
  const wrapClient = (c: pg.PoolClient): pg.PoolClient =>
    new Proxy(c, {
      get(target, prop, receiver) {
        if (prop === 'query') {
          return (q: unknown, ...rest: unknown[]) =>
            fails(q) ? injected() : (target.query as (...a: unknown[]) => unknown)(q, ...rest);
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (q: unknown, ...rest: unknown[]) =>
          fails(q) ? injected() : (target.query as (...a: unknown[]) => unknown)(q, ...rest);
      }
      if (prop === 'connect') return async () => wrapClient(await target.connect());
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
