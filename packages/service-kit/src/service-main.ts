import type http from 'node:http';
import type pg from 'pg';
import { ConfigReader } from './config';
import { errorText } from './error-text';
import { createPool, DEFAULT_DATABASE_CONNECT_TIMEOUT_MS, runMigrations } from './db';
import { createLogger, runMain, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { listenHost, serve, type HttpTimeouts } from './serve';

export interface ServiceMigrations {
  dir: string;
  table: string;
}

/** What a service's start gives back: its request handler, and how to stop its own parts. */
export interface RunningService {
  handler: http.RequestListener;
  /** stops workers, listeners and timers; the pool is ended after it */
  close(): Promise<void>;
}

/**
 * A service's process entry: config → migrations → pool (a query waits for a connection at
 * most `databaseConnectTimeoutMs`) → the service → listen (HOST, default every interface;
 * connections bounded by `httpTimeouts`) → graceful shutdown on SIGTERM. A start-up failure
 * is one JSON log line at error level, then exit 1.
 */
export function runService<
  C extends {
    databaseUrl: string;
    port: number;
    /** readHttpTimeouts; default DEFAULT_HTTP_TIMEOUTS */
    httpTimeouts?: HttpTimeouts;
    /** readDatabaseConnectTimeout; default DEFAULT_DATABASE_CONNECT_TIMEOUT_MS */
    databaseConnectTimeoutMs?: number;
  },
>(opts: {
  name: string;
  loadConfig(): C;
  migrations: ServiceMigrations;
  poolSize(config: C): number;
  start(deps: { config: C; pool: pg.Pool; logger: Logger; metrics: Metrics }): RunningService;
}): Promise<void> {
  return runMain(opts.name, async (logger) => {
    const config = opts.loadConfig();
    await runMigrations({ databaseUrl: config.databaseUrl, ...opts.migrations, logger });
    const pool = createPool(config.databaseUrl, opts.poolSize(config), logger, {
      connectTimeoutMs: config.databaseConnectTimeoutMs ?? DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    });
    const service = opts.start({ config, pool, logger, metrics: createMetrics(opts.name) });
    await serve({
      handler: service.handler,
      port: config.port,
      host: listenHost(),
      logger,
      timeouts: config.httpTimeouts,
      close: async () => {
        await service.close();
        await pool.end();
      },
    });
  });
}

/** A service's `pnpm migrate`: applies pending migrations to DATABASE_URL and exits. */
export function runMigrateCommand(service: string, migrations: ServiceMigrations): void {
  const migrate = async () => {
    const reader = new ConfigReader();
    const databaseUrl = reader.postgresUrl('DATABASE_URL');
    reader.done(`${service} migrate`);
    const logger = createLogger(service);
    await runMigrations({ databaseUrl, ...migrations, logger });
    logger.info('migrations applied');
  };
  migrate().catch((err) => {
    process.stderr.write(`${errorText(err)}\n`);
    process.exit(1);
  });
}
