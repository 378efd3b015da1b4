// The bench's database: a fresh database `search_bench_<time>` on DATABASE_URL's server
// (dropped afterwards unless BENCH_KEEP_DATABASE is set), or an embedded PostgreSQL in a
// temporary folder (with BENCH_PG_STATEMENTS, one that counts its statements'
// time in pg_stat_statements: statement-stats.mjs).
import path from 'node:path';
import { root, say, STATEMENT_STATS } from './settings.mjs';

const scripts = (file) => import(path.join(root, 'scripts', file));

/** Returns { databaseUrl, stopDatabase() }. */
export async function openDatabase() {
  if (process.env.DATABASE_URL) {
    const { createScratchDatabase } = await scripts('lib/scratch-database.mjs');
    const name = `search_bench_${Date.now()}`;
    const db = await createScratchDatabase(process.env.DATABASE_URL, name);
    say(
      `database: ${process.env.DATABASE_URL.replace(/:[^:@/]*@/, ':***@')} (fresh database ${name})`,
    );
    return {
      databaseUrl: db.url,
      stopDatabase: async () => {
        if (process.env.BENCH_KEEP_DATABASE) return say(`kept database ${name}`);
        await db.drop();
      },
    };
  }
  const { startTemporaryPostgres } = await scripts('embedded-postgres.mjs');
  const settings = STATEMENT_STATS
    ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }
    : {};
  const server = await startTemporaryPostgres('search-bench-', { settings });
  await server.ensureDatabase('bench');
  say(`database: embedded PostgreSQL (temporary, port ${server.port})`);
  return { databaseUrl: server.url('bench'), stopDatabase: server.remove };
}
