import path from 'node:path';
import { ConfigReader, createLogger, runMigrations } from '@hub/service-kit';

/** `pnpm migrate`: applies pending migrations to DATABASE_URL and exits. */
async function migrate() {
  const r = new ConfigReader();
  const databaseUrl = r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] });
  r.done('search-service migrate');
  const logger = createLogger('search-service');
  await runMigrations({
    databaseUrl,
    dir: path.join(__dirname, '..', 'migrations'),
    table: 'search_migrations',
    logger,
  });
  logger.info('migrations applied');
}

migrate().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
