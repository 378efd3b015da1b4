import path from 'node:path';
import { createLogger, createMetrics, createPool, runMigrations, serve } from '@hub/service-kit';
import { createApp } from './app';
import { loadConfig } from './config';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
export const MIGRATIONS_TABLE = 'feed_migrations';

/** Process entry: config → migrations → pool → app → listen → graceful shutdown. */
async function main() {
  const config = loadConfig();
  const logger = createLogger('feed-service', config.logLevel);
  await runMigrations({
    databaseUrl: config.databaseUrl,
    dir: MIGRATIONS_DIR,
    table: MIGRATIONS_TABLE,
    logger,
  });
  const pool = createPool(config.databaseUrl);
  const app = createApp({ config, pool, logger, metrics: createMetrics('feed-service') });
  await serve({
    handler: app,
    port: config.port,
    logger,
    close: async () => {
      await app.close();
      await pool.end();
    },
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
