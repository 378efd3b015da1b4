import path from 'node:path';
import {
  createMetrics,
  createPool,
  listenHost,
  runMain,
  runMigrations,
  serve,
} from '@hub/service-kit';
import { createApp } from './app';
import { loadConfig } from './config';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
export const MIGRATIONS_TABLE = 'feed_migrations';

/**
 * Process entry: config → migrations → pool → app → listen (HOST, default every interface)
 * → graceful shutdown. A start-up failure is one JSON log line at error level, then exit 1.
 */
void runMain('feed-service', async (logger) => {
  const config = loadConfig();
  await runMigrations({
    databaseUrl: config.databaseUrl,
    dir: MIGRATIONS_DIR,
    table: MIGRATIONS_TABLE,
    logger,
  });
  const pool = createPool(config.databaseUrl, 10, logger);
  const app = createApp({ config, pool, logger, metrics: createMetrics('feed-service') });
  await serve({
    handler: app,
    port: config.port,
    host: listenHost(),
    logger,
    close: async () => {
      await app.close();
      await pool.end();
    },
  });
});
