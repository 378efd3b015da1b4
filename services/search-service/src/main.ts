import path from 'node:path';
import {
  createMetrics,
  createPool,
  listenHost,
  runMain,
  runMigrations,
  serve,
} from '@hub/service-kit';
import { composeService } from './compose';
import { loadConfig } from './config';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
export const MIGRATIONS_TABLE = 'search_migrations';

/**
 * Process entry: config → migrations → pool → service (engine, thumbnails, app) → listen
 * (HOST, default every interface) → graceful shutdown. A start-up failure is one JSON log line
 * at error level, then exit 1.
 */
void runMain('search-service', async (logger) => {
  const config = loadConfig();
  await runMigrations({
    databaseUrl: config.databaseUrl,
    dir: MIGRATIONS_DIR,
    table: MIGRATIONS_TABLE,
    logger,
  });
  const pool = createPool(config.databaseUrl, config.databasePoolSize, logger);
  const metrics = createMetrics('search-service');
  const service = composeService({ config, pool, logger, metrics });
  service.start();
  await serve({
    handler: service.app,
    port: config.port,
    host: listenHost(),
    logger,
    close: async () => {
      await service.stop();
      await pool.end();
    },
  });
});
