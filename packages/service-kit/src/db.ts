import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { createLogger, type Logger } from './logger';

// int8 (bigint) columns come back as strings so int64 values stay exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);

/**
 * A pg pool. An idle client losing its connection (database restarted, network cut) must not
 * crash the process, and must not go unnoticed either: it is logged at error level (with the
 * given logger, else a `pg-pool` one); the pool replaces the client on its next checkout.
 */
export function createPool(
  connectionString: string,
  max = 10,
  logger: Pick<Logger, 'error'> = createLogger('pg-pool'),
): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // A checked-out client whose backend dies while no query runs emits 'error'; with nobody
  // listening (between checkout and its user's own listener, or between two queries) that
  // would crash the process. Every client keeps this listener: the user's next query fails
  // instead, and the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', (err: Error & { code?: string }) => {
    // a copy without the client pg attaches to the error (its connection parameters)
    const { message, code, stack } = err;
    const safe = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, {
      message,
      code,
      stack,
    });
    logger.error({ err: safe }, 'database pool: an idle client failed');
  });
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
