import path from 'node:path';
import { createLogger, createMetrics, createPool, runMigrations, serve } from '@hub/service-kit';
import { composeService } from './compose';
import { loadConfig } from './config';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
export const MIGRATIONS_TABLE = 'search_migrations';

/** Process entry: config → migrations → pool → service (engine, thumbnails, app) → listen → graceful shutdown. */
async function main() {
  const config = loadConfig();
  const logger = createLogger('search-service', config.logLevel);
  await runMigrations({
    databaseUrl: config.databaseUrl,
    dir: MIGRATIONS_DIR,
    table: MIGRATIONS_TABLE,
    logger,
  });
  const pool = createPool(config.databaseUrl, config.databasePoolSize);
  const metrics = createMetrics('search-service');
  const service = composeService({ config, pool, logger, metrics });
  service.start();
  await serve({
    handler: service.app,
    port: config.port,
    logger,
    close: async () => {
      await service.stop();
      await pool.end();
    },
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
