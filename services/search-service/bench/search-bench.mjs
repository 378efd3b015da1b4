#!/usr/bin/env node
// `pnpm bench:search` (root: build, then this file). Measures the search-service on Postgres:
//  1. a database: embedded PostgreSQL in a temporary folder, or DATABASE_URL when set (a
//     fresh database `search_bench_<time>` is created on that server and dropped afterwards,
//     unless BENCH_KEEP_DATABASE is set);
//  2. the built service (../dist) in this process, on the main thread, on a free port,
//     Postgres engine;
//  3. a load generator in a worker thread (so that making requests and reading answers does
//     not run on the service's event loop): BENCH_DOCS generated documents (default 100,000;
//     70 % Korean, 30 % English, bodies of 1–2 KB, 1–3 of 20 categories, dates over two
//     years) added through the HTTP API at BENCH_CONCURRENCY (16);
//  4. VACUUM ANALYZE, then a query mix (common word, rare word, two words, ca, ex_ca, one
//     month, sort=1, start=990, len=100) at the same concurrency: first as bare SQL (the
//     engine's search_doc_ids call, from the worker), then through the HTTP API.
// Prints adds/s, search p50/p99 per query kind and overall, and service time / bare SQL time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, URLSearchParams } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pg from 'pg';
import { df, makeDoc, NOW } from './data.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const dist = path.join(here, '..', 'dist');

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 4_000);
const say = (msg) => process.stdout.write(`${msg}\n`);

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const fmt = (ms) => ms.toFixed(1).padStart(7);
const mean = (l) => l.reduce((a, b) => a + b, 0) / l.length;

async function pool(n, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

// ================================================================== load generator (worker)
async function loadGenerator({ port, cid, apikey, databaseUrl }) {
  const { tsquery } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
  const { queryTerms } = await import(path.join(dist, 'index/analyser.js'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const send = (method, pathAndQuery, body) =>
    new Promise((resolve, reject) => {
      const headers = body
        ? {
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
          }
        : {};
      const req = http.request(
        { host: '127.0.0.1', port, method, path: pathAndQuery, agent, headers },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  const report = (msg) => parentPort.postMessage({ say: msg });

  // ---- adds
  report(
    `\nadding ${DOCS} documents through POST /v2/{cid}/docs at concurrency ${CONCURRENCY} ...`,
  );
  const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.doc), 0);
  const latencies = [];
  let failures = 0;
  const started = performance.now();
  await pool(DOCS, CONCURRENCY, async (i) => {
    const d = docs[i];
    const body = `apikey=${apikey}&dockey=${encodeURIComponent(d.dockey)}&doc=${encodeURIComponent(d.doc)}`;
    const t = performance.now();
    const res = await send('POST', `/v2/${cid}/docs`, body);
    latencies.push(performance.now() - t);
    if (res.status !== 200 && failures++ < 5)
      report(`  add ${d.dockey}: ${res.status} ${res.body}`);
    if (i > 0 && i % 20_000 === 0) {
      report(`  ${i} added (${Math.round(i / ((performance.now() - started) / 1000))}/s)`);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const addsPerSecond = DOCS / seconds;
  report(
    `adds: ${DOCS} in ${seconds.toFixed(1)} s = ${Math.round(addsPerSecond)} adds/s (average doc ${Math.round(bytes / DOCS)} bytes; ` +
      `p50 ${fmt(percentile(latencies, 50)).trim()} ms, p99 ${fmt(percentile(latencies, 99)).trim()} ms; ${failures} failed)`,
  );
  parentPort.postMessage({ loaded: true });
  await new Promise((resolve) => parentPort.once('message', resolve)); // VACUUM ANALYZE done

  // ---- the query mix, words chosen by document frequency
  const byDf = (stats) => [...stats.entries()].sort((a, b) => b[1] - a[1]);
  const ko = byDf(df.ko);
  const en = byDf(df.en);
  const closest = (list, share) =>
    list.reduce((best, e) =>
      Math.abs(e[1] - share * DOCS) < Math.abs(best[1] - share * DOCS) ? e : best,
    )[0];
  const common = ko[0][0];
  const mid = closest(ko, 0.38);
  const month = { startdate: NOW - 60 * 86_400, enddate: NOW - 30 * 86_400 };
  const kinds = [
    { kind: 'common word (ko)', params: { q: common } },
    { kind: 'mid word (ko)', params: { q: mid } },
    { kind: 'rare word (ko)', params: { q: closest(ko, 0.0005) } },
    { kind: 'common word (en)', params: { q: closest(en, 0.2) } },
    { kind: 'two words', params: { q: `${closest(ko, 0.03)} ${closest(ko, 0.02)}` } },
    { kind: 'common + ca', params: { q: common, ca: '3,7' } },
    { kind: 'common + ex_ca', params: { q: common, ex_ca: '1,2,3,4,5' } },
    { kind: 'common, one month', params: { q: common, ...month } },
    { kind: 'common, sort=1', params: { q: common, sort: 1 } },
    { kind: 'common, start=990', params: { q: common, start: 990 } },
    { kind: 'mid, len=100', params: { q: mid, len: 100 } },
  ];
  const searchPath = (k) =>
    `/v2/${cid}/search/json?${new URLSearchParams({ apikey, ...Object.fromEntries(Object.entries(k.params).map(([a, b]) => [a, String(b)])) })}`;
  for (const k of kinds) {
    const res = await send('GET', searchPath(k));
    if (res.status !== 200) throw new Error(`${k.kind}: ${res.status} ${res.body}`);
    k.numfound = JSON.parse(res.body.toString()).numfound;
  }

  const sql = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY });
  const list = (s) => (s ? s.split(',').map(Number) : null);
  const bare = (k) => {
    const p = k.params;
    const start = p.start ?? 0;
    return sql.query(
      'SELECT numfound, doc_ids FROM search_doc_ids($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [
        cid,
        tsquery(queryTerms(p.q)),
        list(p.ca),
        list(p.ex_ca),
        p.startdate ?? null,
        p.enddate ?? null,
        p.sort ?? 0,
        start,
        start === 990 ? 10 : (p.len ?? 10),
      ],
    );
  };
  const viaHttp = async (k) => {
    const res = await send('GET', searchPath(k));
    if (res.status !== 200) throw new Error(`${k.kind}: ${res.status} ${res.body}`);
  };

  async function measure(run) {
    const per = new Map(kinds.map((k) => [k.kind, []]));
    const all = [];
    await pool(kinds.length * 4, CONCURRENCY, (i) => run(kinds[i % kinds.length])); // warm-up
    const t0 = performance.now();
    await pool(SEARCHES, CONCURRENCY, async (i) => {
      const k = kinds[i % kinds.length];
      const t = performance.now();
      await run(k);
      const ms = performance.now() - t;
      per.get(k.kind).push(ms);
      all.push(ms);
    });
    const qps = SEARCHES / ((performance.now() - t0) / 1000);
    for (const l of [...per.values(), all]) l.sort((a, b) => a - b);
    return { per, all, qps };
  }

  report(
    `\nsearching: ${SEARCHES} searches at concurrency ${CONCURRENCY}, ${kinds.length} kinds in turn`,
  );
  const s = await measure(bare);
  const h = await measure(viaHttp);
  report(
    `\n${'query kind'.padEnd(20)} ${'numfound'.padStart(8)} | service p50     p99 | bare SQL p50     p99 | ratio p50   p99`,
  );
  const row = (label, numfound, a, b) =>
    report(
      `${label.padEnd(20)} ${String(numfound).padStart(8)} | ${fmt(percentile(a, 50))} ${fmt(percentile(a, 99))} | ` +
        `${fmt(percentile(b, 50))} ${fmt(percentile(b, 99))} | ${(percentile(a, 50) / percentile(b, 50)).toFixed(2).padStart(5)} ` +
        `${(percentile(a, 99) / percentile(b, 99)).toFixed(2).padStart(5)}`,
    );
  for (const k of kinds) row(k.kind, k.numfound, h.per.get(k.kind), s.per.get(k.kind));
  row('all', '', h.all, s.all);
  report(
    `\nthroughput: service ${Math.round(h.qps)} searches/s, bare SQL ${Math.round(s.qps)} searches/s; ` +
      `mean latency: service ${mean(h.all).toFixed(1)} ms, bare SQL ${mean(s.all).toFixed(1)} ms (ratio ${(mean(h.all) / mean(s.all)).toFixed(2)})`,
  );
  report(
    `\nSUMMARY docs=${DOCS} adds/s=${Math.round(addsPerSecond)} search_p50_ms=${percentile(h.all, 50).toFixed(1)} ` +
      `search_p99_ms=${percentile(h.all, 99).toFixed(1)} ratio_p50=${(percentile(h.all, 50) / percentile(s.all, 50)).toFixed(2)} ` +
      `ratio_mean=${(mean(h.all) / mean(s.all)).toFixed(2)}`,
  );
  await sql.end();
  agent.destroy();
}

// ================================================================== service and database (main)
async function main() {
  const { createApp } = await import(path.join(dist, 'app.js'));
  const { loadConfig } = await import(path.join(dist, 'config.js'));
  const { createPostgresIndex } = await import(path.join(dist, 'index/postgres/postgres-index.js'));
  const kit = await import('@hub/service-kit');

  let databaseUrl;
  let stopDatabase;
  if (process.env.DATABASE_URL) {
    const name = `search_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    stopDatabase = async () => {
      if (process.env.BENCH_KEEP_DATABASE) return say(`kept database ${name}`);
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
    say(
      `database: ${process.env.DATABASE_URL.replace(/:[^:@/]*@/, ':***@')} (fresh database ${name})`,
    );
  } else {
    const { startEmbeddedPostgres } = await import(
      path.join(root, 'scripts', 'embedded-postgres.mjs')
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-bench-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'data'),
      persistent: false,
    });
    await server.ensureDatabase('bench');
    databaseUrl = server.url('bench');
    stopDatabase = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    say(`database: embedded PostgreSQL (temporary, port ${server.port})`);
  }

  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const settings = (
    await sql.query(
      `SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb,
              current_setting('synchronous_commit') AS sc`,
    )
  ).rows[0];
  say(
    `PostgreSQL ${settings.v} (shared_buffers ${settings.sb}, synchronous_commit ${settings.sc}); ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GB RAM; Node ${process.version}`,
  );
  await kit.runMigrations({
    databaseUrl,
    dir: path.join(here, '..', 'migrations'),
    table: 'search_migrations',
  });
  const token = crypto.randomBytes(16).toString('hex');
  // the service's own settings (SEARCH_DB_POOL_SIZE, ...) may be given in the environment
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    SEARCH_ADMIN_TOKEN: token,
    LOG_LEVEL: 'silent',
  });
  const servicePool = kit.createPool(databaseUrl, config.databasePoolSize);
  const app = createApp({ config, pool: servicePool, index: createPostgresIndex(servicePool) });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;

  const created = await fetch(`http://127.0.0.1:${port}/admin/collections`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ max_documents: DOCS * 2, max_api_calls: 1e12 }),
  });
  if (created.status !== 201)
    throw new Error(`create collection: ${created.status} ${await created.text()}`);
  const { collection_id: cid, apikey } = await created.json();

  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: { port, cid, apikey, databaseUrl },
  });
  const done = new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`load generator exit ${code}`)),
    );
  });
  worker.on('message', async (m) => {
    if (m.say) say(m.say);
    if (m.loaded) {
      const t0 = performance.now();
      await sql.query('VACUUM (ANALYZE) doc_search');
      await sql.query('VACUUM (ANALYZE) documents');
      say(`VACUUM ANALYZE after the load: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const sizes = (
        await sql.query(
          `SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS main,
                  pg_size_pretty(pg_total_relation_size(oid)) AS total
           FROM pg_class WHERE relname IN ('documents', 'doc_search', 'doc_search_terms') ORDER BY relname`,
        )
      ).rows;
      say(
        `sizes: ${sizes.map((r) => `${r.relname} ${r.main} (with TOAST and indexes ${r.total})`).join('; ')}`,
      );
      worker.postMessage('go');
    }
  });
  await done;

  await new Promise((resolve) => server.close(resolve));
  await app.services.close();
  await servicePool.end();
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
