#!/usr/bin/env node
// `pnpm bench:search` (root: build, then this file). Measures the search-service on its
// Postgres engine (the bitmap index), in one run:
//  1. a database: embedded PostgreSQL in a temporary folder, or DATABASE_URL when set (a fresh
//     database `search_bench_<time>` is created there and dropped afterwards, unless
//     BENCH_KEEP_DATABASE is set);
//  2. the built service (../dist) in this process, on the main thread, with its folder running,
//     on a free port; a load generator in a worker thread (its HTTP work stays off the
//     service's event loop);
//  3. collection A: BENCH_DOCS generated documents (default 100,000; 70 % Korean, bodies of
//     1–2 KB) added over HTTP at BENCH_CONCURRENCY (16): adds/s, p50, p99;
//  4. every query kind at the same concurrency: p50/p99 per kind; each numfound is checked
//     against the count the data generator computes by brute force (the bench fails on a
//     mismatch);
//  5. tenant isolation: collection B (the same corpus) is loaded, A is measured again, the
//     p99 ratio per kind is printed; adds to A alone vs adds to A while B is searched at 16
//     clients; the longest pause of A's searches while B is deleted (admin API);
//  6. storage of the index tables, and the start-up of a second instance (its first search).
// Ends with a SUMMARY line and TARGET lines (met / MISSED).
// Other settings: BENCH_SEARCHES (17,000 per measurement), BENCH_EXTRA_ADDS, BENCH_CPU_PROFILE.
// This file is the main thread (service and database) and, in a worker thread, the load
// generator (lib/load-generator.mjs); data.mjs generates the documents. The parts are in lib/.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { openDatabase } from './lib/database.mjs';
import { instanceStarter, runLoadGenerator } from './lib/host.mjs';
import { loadGenerator } from './lib/load-generator.mjs';
import { dist, say, serviceDir } from './lib/settings.mjs';

async function main() {
  const { composeService } = await import(path.join(dist, 'compose.js'));
  const { loadConfig } = await import(path.join(dist, 'config.js'));
  const kit = await import('@hub/service-kit');

  const { databaseUrl, stopDatabase } = await openDatabase();
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {}); // a connection the bench's database drop cut
  const settings = (
    await sql.query(
      `SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb,
              current_setting('synchronous_commit') AS sc`,
    )
  ).rows[0];
  say(
    `${new Date().toISOString().slice(0, 10)}: PostgreSQL ${settings.v} (shared_buffers ${settings.sb}, synchronous_commit ${settings.sc}); ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GB RAM; Node ${process.version}`,
  );
  await kit.runMigrations({
    databaseUrl,
    dir: path.join(serviceDir, 'migrations'),
    table: 'search_migrations',
  });
  const token = crypto.randomBytes(16).toString('hex');
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    SEARCH_ADMIN_TOKEN: token,
    LOG_LEVEL: 'silent',
  });
  const logger = kit.createLogger('search-service', 'silent');
  const startInstance = instanceStarter({ composeService, kit, databaseUrl, config, logger });
  const service = await startInstance();

  await runLoadGenerator({
    workerData: { port: service.port, token, databaseUrl },
    sql,
    startInstance,
  });

  await service.stop();
  await sql.end();
  await stopDatabase();
}

if (isMainThread) {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
} else {
  loadGenerator(workerData).catch((err) => {
    parentPort.postMessage({ say: `load generator failed: ${err?.stack ?? err}` });
    process.exit(1);
  });
}
