import path from 'node:path';
import { createLogger, createMetrics, createPool, runMigrations, serve } from '@hub/service-kit';
import { createApp } from './app';
import { loadConfig } from './config';
import { selectSearchIndex } from './index/select';
import { noThumbnails } from './thumbnails/thumbnail-service';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
export const MIGRATIONS_TABLE = 'search_migrations';

/** Process entry: config → migrations → pool → engine → app → listen → graceful shutdown. */
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
  const index = selectSearchIndex({ config, pool, logger });
  const thumbnails = noThumbnails;
  const app = createApp({
    config,
    pool,
    index,
    thumbnails,
    logger,
    metrics: createMetrics('search-service'),
  });
  index.start?.();
  thumbnails.start?.();
  await serve({
    handler: app,
    port: config.port,
    logger,
    close: async () => {
      await app.services.close();
      await thumbnails.stop?.();
      await index.stop?.();
      await pool.end();
    },
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
