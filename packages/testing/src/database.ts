import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, runMigrations } from '@hub/service-kit';

export interface TestDatabase {
  /** connection string of this file's own database */
  url: string;
  pool: pg.Pool;
  /** closes the pool and drops the database */
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url)
    throw new Error('no test database: run tests through jest (global setup) or set DATABASE_URL');
  return url;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * An isolated, migrated database for one test file, so files can run in parallel:
 * `const db = await createTestDatabase({ migrationsDir, migrationsTable })` in beforeAll,
 * `await db.drop()` in afterAll.
 */
export async function createTestDatabase(opts: {
  migrationsDir: string;
  migrationsTable: string;
  poolSize?: number;
}): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = withDatabase(admin, name);
  await runMigrations({ databaseUrl: url, dir: opts.migrationsDir, table: opts.migrationsTable });
  const pool = createPool(url, opts.poolSize ?? 10);
  return {
    url,
    pool,
    async drop() {
      await pool.end();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
