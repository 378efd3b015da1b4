import path from 'node:path';
import pg from 'pg';
import { runner } from 'node-pg-migrate';
import type { ConfigReader } from './config';
import { createLogger, type Logger } from './logger';
import { reportUnavailable } from './pg/unavailable';

// int8 (bigint) columns come back as strings so int64 values stay exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);

/**
 * A pg pool. An idle client losing its connection (database restarted, network cut) must not
 * crash the process, and must not go unnoticed either: it is logged at error level (with the
 * given logger, else a `pg-pool` one); the pool replaces the client on its next checkout.
 * Once the pool is ending (shutdown), such an error is the expected end of a connection and is
 * not logged: `end()` resolves when it has asked its clients to close, not when their sockets
 * have, so a database stopped right after sees them still open and terminates them.
 * `connectTimeoutMs` bounds how long a query waits for a client (a free one, or a new
 * connection): pg's own queue of waiting queries is unbounded, so under a flood requests
 * would wait on it for ever; with the bound, a query that waited that long fails (and its
 * request answers its 503 row). 0 (the default, for background pools and tools): no bound.
 * A failure that is not the server's (that wait timing out, the connection lost) is rethrown
 * as a DatabaseUnavailableError (pg/unavailable).
 */
export function createPool(
  connectionString: string,
  max = 10,
  logger: Pick<Logger, 'error'> = createLogger('pg-pool'),
  opts: { connectTimeoutMs?: number } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
  });
  // A checked-out client whose backend dies while no query runs emits 'error'; with nobody
  // listening (between checkout and its user's own listener, or between two queries) that
  // would crash the process. Every client keeps this listener: the user's next query fails
  // instead, and the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', (err: Error & { code?: string }) => {
    if (pool.ending) return;
    // a copy without the client pg attaches to the error (its connection parameters)
    const { message, code, stack } = err;
    const safe = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, {
      message,
      code,
      stack,
    });
    logger.error({ err: safe }, 'database pool: an idle client failed');
  });
  reportUnavailable(pool);
  return pool;
}

/** The default of DATABASE_CONNECT_TIMEOUT_MS (readDatabaseConnectTimeout). */
export const DEFAULT_DATABASE_CONNECT_TIMEOUT_MS = 10_000;

/**
 * DATABASE_CONNECT_TIMEOUT_MS, for a service's loadConfig: how long a request's query waits for
 * a database connection of the service's pool (createPool's `connectTimeoutMs`).
 */
export function readDatabaseConnectTimeout(r: ConfigReader): number {
  return r.int('DATABASE_CONNECT_TIMEOUT_MS', {
    default: DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    min: 100,
    max: 600_000,
  });
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
