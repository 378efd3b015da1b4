import path from 'node:path';
import { createLogger, createMetrics, createPool, runMigrations, serve } from '@hub/service-kit';
import { createApp } from './app';
import { loadConfig } from './config';
import { selectSearchIndex } from './index/select';
import { createThumbnailService, thumbnailRouter } from './thumbnails';
import { mountPath } from './config';

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
  const metrics = createMetrics('search-service');
  const index = selectSearchIndex({ config, pool, logger, metrics });
  const thumbnails = createThumbnailService({
    pool,
    thumbnailUrl: config.thumbnailUrl,
    logger,
    allowPrivateNetworks: config.thumbnailAllowPrivateNetworks,
    fetchTimeoutMs: config.thumbnailFetchTimeoutMs,
    maxBytes: config.thumbnailMaxBytes,
    metrics,
  });
  const app = createApp({
    config,
    pool,
    index,
    thumbnails,
    logger,
    metrics,
    mounts: [{ path: mountPath(config.thumbnailUrl) || '/', handler: thumbnailRouter({ pool }) }],
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
