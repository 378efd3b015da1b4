import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from './logger';

// int8 (bigint) columns come back as strings so int64 values stay exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Applies every pending migration of one service (an advisory lock makes it safe to race). */
export async function runMigrations(opts: {
  databaseUrl: string;
  dir: string;
  table: string;
  logger?: Pick<Logger, 'info'>;
}): Promise<void> {
  await runner({
    databaseUrl: opts.databaseUrl,
    dir: path.resolve(opts.dir),
    migrationsTable: opts.table,
    direction: 'up',
    count: Infinity,
    singleTransaction: true,
    log: (msg: string) => opts.logger?.info({ migration: msg.trim() }, 'migration'),
    noLock: false,
    verbose: false,
  });
}
