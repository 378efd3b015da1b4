#!/usr/bin/env node
// `pnpm bench:search` (root: build, then this file). Measures the search-service on its
// Postgres engine (the bitmap index), in one run:
//  1. a database: embedded PostgreSQL in a temporary folder, or DATABASE_URL when set (a fresh
//     database `search_bench_<time>` is created there and dropped afterwards, unless
//     BENCH_KEEP_DATABASE is set);
//  2. the built service (../dist) in this process, on the main thread, with its folder running,
//     on a free port; a load generator in a child process (its HTTP work and its garbage
//     collections stay off the service's process: lib/host.mjs startLoadGenerator);
//  3. the bare-INSERT floor: a node:http server that only INSERTs the same documents into the
//     same PostgreSQL (lib/floor.mjs), at the same concurrency: adds/s;
//  4. collection A: --docs N generated documents (default 100,000; 70 % Korean, bodies of
//     1–2 KB) added over HTTP at BENCH_CONCURRENCY (16): adds/s, p50, p99, first/last tenth;
//  5. right after the load, before any settling: every query kind (p50/p99 per kind, numfound
//     against the brute-force count of the service's analyser), every oracle query (numfound
//     against the bench's own model and tokenization, lib/oracle.mjs), then the wide mix
//     (lib/mix.mjs: ≥ 2,000 distinct queries, each sent twice) while a writer adds, replaces
//     and deletes at a fixed rate (lib/writer.mjs), oracle queries checked during the writes
//     and after; then the same once the folds and merges settled (VACUUM ANALYZE);
//  6. tenant isolation (lib/isolation.mjs): A alone, A with B loaded (B written to), A alone
//     again after B is deleted; adds to B alone vs while A is searched (four interleaved
//     parts); A's longest search while B is deleted (admin API);
//  7. memory (RSS) and storage of the index tables, the start-up of a second instance.
// Ends with a SUMMARY line and a row per target of issue 23, then the speed rows of issues 25
// and 26 (each option, the spacing kind: worst p99 right after and settled), each met / MISSED
// / printed; exits non-zero when a numfound was outside the oracle's range.
// Options (or variables): --docs (BENCH_DOCS), --searches (BENCH_SEARCHES, per
// measurement; 1,000 per query kind), --mix (BENCH_MIX_QUERIES, 4,000), --write-rate (BENCH_WRITE_RATE, 50/s),
// --concurrency, --extra-adds, --isolation 0 (BENCH_ISOLATION: leave phase 6 out, for 1,000,000-document
// runs); BENCH_CPU_PROFILE. A smoke check: `--docs 5000 --searches 3400`.
// This file is the service's process (service and database) and, in a child process, the load
// generator (lib/load-generator.mjs); data.mjs generates the documents. The parts are in lib/.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './lib/database.mjs';
import {
  instanceStarter,
  isLoadGenerator,
  loadGeneratorData,
  runLoadGenerator,
} from './lib/host.mjs';
import { loadGenerator } from './lib/load-generator.mjs';
import { dist, say, serviceDir } from './lib/settings.mjs';
import { runAsLoadGenerator } from './lib/worker-link.mjs';

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
    generatorData: { port: service.port, token, databaseUrl },
    sql,
    startInstance,
    floor: { databaseUrl, poolSize: config.databasePoolSize },
  });

  await service.stop();
  await sql.end();
  await stopDatabase();
}

if (isLoadGenerator()) runAsLoadGenerator(() => loadGenerator(loadGeneratorData()));
else
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
