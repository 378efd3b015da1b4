#!/usr/bin/env node
// `pnpm bench:search` (root: build, then this file). Measures the search-service on Postgres:
//  1. a database: embedded PostgreSQL in a temporary folder, or DATABASE_URL when set (a
//     fresh database `search_bench_<time>` is created on that server and dropped afterwards);
//  2. the built service (../dist) in this process on a free port, Postgres engine;
//  3. BENCH_DOCS generated documents (default 100,000; 70 % Korean, 30 % English, bodies of
//     1–2 KB, 1–3 categories of 20, dates over two years) added through the HTTP API at
//     BENCH_CONCURRENCY (16);
//  4. a query mix (common word, rare word, two words, ca, ex_ca, one month, sort=1, start=990)
//     through the HTTP API at the same concurrency, and the same searches as bare SQL (the
//     engine's search_doc_ids call) in the same run.
// Prints adds/s, search p50/p99 per query kind and overall, and service time / bare SQL time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, URLSearchParams } from 'node:url';
import pg from 'pg';
import { df, makeDoc, NOW } from '../data.mjs';

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(here, '..', '..', '..');
const dist = path.join(here, '..', 'dist');

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 4_000);
const say = (msg) => process.stdout.write(`${msg}\n`);

// ------------------------------------------------------------------ HTTP
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
function httpRequest(port, method, pathAndQuery, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathAndQuery,
        agent,
        headers: body
          ? {
              'Content-Type': 'application/x-www-form-urlencoded',
              'Content-Length': Buffer.byteLength(body),
              ...headers,
            }
          : headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function pool(n, concurrency, work) {
  let next = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (true) {
      const i = next++;
      if (i >= n) return;
      await work(i);
    }
  });
  await Promise.all(workers);
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const fmt = (ms) => ms.toFixed(1).padStart(7);

// ------------------------------------------------------------------ main
async function main() {
  const { createApp } = await import(path.join(dist, 'app.js'));
  const { loadConfig } = await import(path.join(dist, 'config.js'));
  const { createPostgresIndex, tsquery } = await import(
    path.join(dist, 'index/postgres/postgres-index.js')
  );
  const { queryTerms } = await import(path.join(dist, 'index/analyser.js'));
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

  const sql = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY + 4 });
  const version = (await sql.query('SHOW server_version')).rows[0].server_version;
  say(
    `PostgreSQL ${version}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GB; Node ${process.version}`,
  );
  await kit.runMigrations({
    databaseUrl,
    dir: path.join(here, '..', 'migrations'),
    table: 'search_migrations',
  });
  const servicePool = kit.createPool(databaseUrl, 20);
  const token = crypto.randomBytes(16).toString('hex');
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEARCH_ADMIN_TOKEN: token,
    LOG_LEVEL: 'silent',
  });
  const app = createApp({ config, pool: servicePool, index: createPostgresIndex(servicePool) });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;

  const created = await httpRequest(
    port,
    'POST',
    '/admin/collections',
    JSON.stringify({ max_documents: DOCS * 2, max_api_calls: 1e12 }),
    { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  );
  if (created.status !== 201)
    throw new Error(`create collection: ${created.status} ${created.text}`);
  const { collection_id: cid, apikey } = JSON.parse(created.text);

  // ---- adds
  say(`\nadding ${DOCS} documents through POST /v2/{cid}/docs at concurrency ${CONCURRENCY} ...`);
  const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.doc), 0);
  const addStarted = performance.now();
  const addLatencies = [];
  let failures = 0;
  await pool(DOCS, CONCURRENCY, async (i) => {
    const d = docs[i];
    const body = `apikey=${apikey}&dockey=${encodeURIComponent(d.dockey)}&doc=${encodeURIComponent(d.doc)}`;
    const t = performance.now();
    const res = await httpRequest(port, 'POST', `/v2/${cid}/docs`, body);
    addLatencies.push(performance.now() - t);
    if (res.status !== 200 && failures++ < 5) say(`  add ${d.dockey}: ${res.status} ${res.text}`);
    if (i > 0 && i % 20_000 === 0)
      say(`  ${i} added (${Math.round(i / ((performance.now() - addStarted) / 1000))}/s)`);
  });
  const addSeconds = (performance.now() - addStarted) / 1000;
  addLatencies.sort((a, b) => a - b);
  const addsPerSecond = DOCS / addSeconds;
  say(
    `adds: ${DOCS} in ${addSeconds.toFixed(1)} s = ${Math.round(addsPerSecond)} adds/s (average doc ${Math.round(bytes / DOCS)} bytes; p50 ${addLatencies[Math.floor(DOCS / 2)].toFixed(1)} ms, p99 ${percentile(addLatencies, 99).toFixed(1)} ms; ${failures} failed)`,
  );

  const t0 = performance.now();
  await sql.query('VACUUM (ANALYZE) doc_search');
  await sql.query('VACUUM (ANALYZE) documents');
  say(`VACUUM ANALYZE after the load: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const sizes = (
    await sql.query(
      `SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) AS total, pg_size_pretty(pg_relation_size(oid)) AS heap FROM pg_class WHERE relname IN ('documents', 'doc_search', 'doc_search_terms') ORDER BY relname`,
    )
  ).rows;
  say(`sizes: ${sizes.map((r) => `${r.relname} ${r.total} (heap/index ${r.heap})`).join('; ')}`);

  // ---- queries
  const byDf = (stats) => [...stats.entries()].sort((a, b) => b[1] - a[1]);
  const ko = byDf(df.ko);
  const en = byDf(df.en);
  const closest = (list, share) =>
    list.reduce((best, e) =>
      Math.abs(e[1] - share * DOCS) < Math.abs(best[1] - share * DOCS) ? e : best,
    )[0];
  const common = ko[0][0];
  const mid = closest(ko, 0.38);
  const rare = closest(ko, 0.0005);
  const enCommon = closest(en, 0.2);
  const two = [closest(ko, 0.03), closest(ko, 0.02)];
  const month = { startdate: NOW - 60 * 86_400, enddate: NOW - 30 * 86_400 };
  const kinds = [
    { kind: 'common word (ko)', params: { q: common } },
    { kind: 'mid word (ko)', params: { q: mid } },
    { kind: 'rare word (ko)', params: { q: rare } },
    { kind: 'common word (en)', params: { q: enCommon } },
    { kind: 'two words', params: { q: two.join(' ') } },
    { kind: 'common + ca', params: { q: common, ca: '3,7' } },
    { kind: 'common + ex_ca', params: { q: common, ex_ca: '1,2,3,4,5' } },
    { kind: 'common, one month', params: { q: common, ...month } },
    { kind: 'common, sort=1', params: { q: common, sort: 1 } },
    { kind: 'common, start=990', params: { q: common, start: 990 } },
    { kind: 'mid, len=100', params: { q: mid, len: 100 } },
  ];
  for (const k of kinds) {
    const res = await httpRequest(
      port,
      'GET',
      `/v2/${cid}/search/json?${new URLSearchParams({ apikey, ...Object.fromEntries(Object.entries(k.params).map(([a, b]) => [a, String(b)])) })}`,
    );
    if (res.status !== 200) throw new Error(`${k.kind}: ${res.status} ${res.text}`);
    k.numfound = JSON.parse(res.text).numfound;
  }

  const bare = (k) => {
    const p = k.params;
    const terms = queryTerms(p.q);
    const start = p.start ?? 0;
    const len = start === 990 ? 10 : (p.len ?? 10);
    const list = (s) => (s ? s.split(',').map(Number) : null);
    return sql.query(
      'SELECT numfound, doc_ids FROM search_doc_ids($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [
        cid,
        tsquery(terms),
        list(p.ca),
        list(p.ex_ca),
        p.startdate ?? null,
        p.enddate ?? null,
        p.sort ?? 0,
        start,
        len,
      ],
    );
  };

  async function measure(label, run) {
    const per = new Map(kinds.map((k) => [k.kind, []]));
    const all = [];
    // warm-up: every kind a few times
    await pool(kinds.length * 3, CONCURRENCY, (i) => run(kinds[i % kinds.length]));
    const started = performance.now();
    await pool(SEARCHES, CONCURRENCY, async (i) => {
      const k = kinds[i % kinds.length];
      const t = performance.now();
      await run(k);
      const ms = performance.now() - t;
      per.get(k.kind).push(ms);
      all.push(ms);
    });
    const seconds = (performance.now() - started) / 1000;
    for (const list of [...per.values(), all]) list.sort((a, b) => a - b);
    return { label, per, all, qps: SEARCHES / seconds };
  }

  say(
    `\nsearching: ${SEARCHES} searches at concurrency ${CONCURRENCY}, ${kinds.length} kinds in turn`,
  );
  const viaSql = await measure('bare SQL', bare);
  const inspector = await import('node:inspector');
  const session = new inspector.Session(); session.connect();
  const post = (m, p) => new Promise((res, rej) => session.post(m, p, (e, r) => (e ? rej(e) : res(r))));
  await post('Profiler.enable'); await post('Profiler.start');
  const viaHttp = await measure('service', async (k) => {
    const qs = new URLSearchParams({
      apikey,
      ...Object.fromEntries(Object.entries(k.params).map(([a, b]) => [a, String(b)])),
    });
    const res = await httpRequest(port, 'GET', `/v2/${cid}/search/json?${qs}`);
    if (res.status !== 200) throw new Error(`${k.kind}: ${res.status} ${res.text}`);
  });
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync('/tmp/search.cpuprofile', JSON.stringify(profile));

  say(
    `\n${'query kind'.padEnd(20)} ${'numfound'.padStart(8)} | service p50     p99 | bare SQL p50    p99 | ratio p50  p99`,
  );
  for (const k of kinds) {
    const s = viaHttp.per.get(k.kind);
    const b = viaSql.per.get(k.kind);
    say(
      `${k.kind.padEnd(20)} ${String(k.numfound).padStart(8)} | ${fmt(percentile(s, 50))} ${fmt(percentile(s, 99))} | ${fmt(percentile(b, 50))} ${fmt(percentile(b, 99))} | ${(percentile(s, 50) / percentile(b, 50)).toFixed(2).padStart(5)} ${(percentile(s, 99) / percentile(b, 99)).toFixed(2).padStart(5)}`,
    );
  }
  const mean = (l) => l.reduce((a, b) => a + b, 0) / l.length;
  say(
    `${'all'.padEnd(20)} ${''.padStart(8)} | ${fmt(percentile(viaHttp.all, 50))} ${fmt(percentile(viaHttp.all, 99))} | ${fmt(percentile(viaSql.all, 50))} ${fmt(percentile(viaSql.all, 99))} | ${(percentile(viaHttp.all, 50) / percentile(viaSql.all, 50)).toFixed(2).padStart(5)} ${(percentile(viaHttp.all, 99) / percentile(viaSql.all, 99)).toFixed(2).padStart(5)}`,
  );
  say(
    `\nthroughput: service ${Math.round(viaHttp.qps)} searches/s, bare SQL ${Math.round(viaSql.qps)} searches/s; mean latency service ${mean(viaHttp.all).toFixed(1)} ms vs bare SQL ${mean(viaSql.all).toFixed(1)} ms (ratio ${(mean(viaHttp.all) / mean(viaSql.all)).toFixed(2)})`,
  );
  say(
    `\nSUMMARY docs=${DOCS} adds/s=${Math.round(addsPerSecond)} search_p50_ms=${percentile(viaHttp.all, 50).toFixed(1)} search_p99_ms=${percentile(viaHttp.all, 99).toFixed(1)} ratio_mean=${(mean(viaHttp.all) / mean(viaSql.all)).toFixed(2)}`,
  );

  await new Promise((resolve) => server.close(resolve));
  agent.destroy();
  await app.services.close();
  await servicePool.end();
  await sql.end();
  await stopDatabase();
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
