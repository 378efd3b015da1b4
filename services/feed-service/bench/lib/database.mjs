// The bench's database: a scratch database on DATABASE_URL's server (dropped at the end), or
// an embedded PostgreSQL in a temporary folder.
import crypto from 'node:crypto';
import path from 'node:path';
import { rootDir } from './settings.mjs';

const scripts = (file) => import(path.join(rootDir, 'scripts', file));

/** Returns { url, cleanup() }. */
export async function openDatabase() {
  if (process.env.DATABASE_URL) {
    const { createScratchDatabase } = await scripts('lib/scratch-database.mjs');
    const name = `feed_bench_${crypto.randomBytes(4).toString('hex')}`;
    const db = await createScratchDatabase(process.env.DATABASE_URL, name);
    return { url: db.url, cleanup: db.drop };
  }
  const { startTemporaryPostgres } = await scripts('embedded-postgres.mjs');
  const server = await startTemporaryPostgres('feed-bench-pg-');
  process.stdout.write(
    `embedded PostgreSQL on port ${server.port} (set DATABASE_URL to use another server)\n`,
  );
  return {
    url: server.url('postgres'),
    cleanup: () => server.remove().catch(() => {}),
  };
}
