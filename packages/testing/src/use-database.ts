/// <reference types="jest" />
import { createTestDatabase, type TestDatabase } from './database';

/**
 * The database of the calling test file (or describe block): created and migrated in
 * beforeAll, dropped in afterAll once `beforeDrop` (closing what uses it) is done. What is
 * returned stands for it from its beforeAll on: its pool and url are the database's once open,
 * and reading them before throws.
 */
export function useTestDatabase(opts: {
  migrationsDir: string;
  migrationsTable: string;
  poolSize?: number;
  beforeDrop?: () => unknown;
}): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(opts);
  });
  afterAll(async () => {
    await opts.beforeDrop?.();
    await db?.drop();
  });
  const open = (): TestDatabase => {
    if (!db) throw new Error('the test database is not open yet: use it in tests and hooks');
    return db;
  };
  return {
    get url() {
      return open().url;
    },
    get pool() {
      return open().pool;
    },
    drop: () => open().drop(),
  };
}
