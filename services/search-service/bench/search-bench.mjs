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
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
} from 'node:perf_hooks';
import { fileURLToPath, URLSearchParams } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pg from 'pg';
import { df, makeDoc, NOW } from './data.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const dist = path.join(here, '..', 'dist');

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
// per measurement; 1,000 per query kind, so that each kind's p99 is not one outlier
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 17_000);
const EXTRA_ADDS = Number(process.env.BENCH_EXTRA_ADDS ?? Math.min(10_000, DOCS / 5));
const say = (msg) => process.stdout.write(`${msg}\n`);

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const fmt = (ms) => ms.toFixed(1).padStart(7);

/**
 * CPU time so far, in ms (Linux /proc; null elsewhere): the service's main thread (this
 * process's first thread), the PostgreSQL processes (ended backends are not counted), and the
 * whole machine (every core, every process).
 */
function cpuTimes() {
  try {
    const tick = 10; // USER_HZ = 100 on Linux
    const stat = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const main = (Number(f[11]) + Number(f[12])) * tick;
    const cpu = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const machine = (cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6]) * tick;
    let postgres = 0;
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!st.includes('(postgres)')) continue;
        const g = st.slice(st.lastIndexOf(')') + 2).split(' ');
        postgres += (Number(g[11]) + Number(g[12])) * tick;
      } catch {
        // gone
      }
    }
    return { main, machine, postgres };
  } catch {
    return null;
  }
}
/** "CPU per op: service x ms, machine y ms" between two cpuTimes() readings */
function cpuPer(before, after, ops) {
  if (!before || !after) return '';
  const per = (k) => ((after[k] - before[k]) / ops.n).toFixed(2);
  return `; CPU per ${ops.label}: service thread ${per('main')} ms, PostgreSQL ${per('postgres')} ms, machine ${per('machine')} ms`;
}

async function inParallel(n, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

// ================================================================== load generator (worker)
async function loadGenerator({ port, token, databaseUrl }) {
  const { distinctTerms, queryTerms } = await import(path.join(dist, 'index/analyser.js'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 4 });
  const send = (method, pathAndQuery, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const h = body
        ? {
            'Content-Type': headers['Content-Type'] ?? 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
            ...headers,
          }
        : headers;
      const req = http.request(
        { host: '127.0.0.1', port, method, path: pathAndQuery, agent, headers: h },
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
  const ask = (what) =>
    new Promise((resolve) => {
      parentPort.once('message', resolve);
      parentPort.postMessage({ ask: what });
    });
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {}); // a connection the bench's database drop cut
  const adminHeaders = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  async function newCollection() {
    const res = await send(
      'POST',
      '/admin/collections',
      JSON.stringify({ max_documents: DOCS * 3, max_api_calls: 1e12 }),
      adminHeaders,
    );
    if (res.status !== 201) throw new Error(`create collection: ${res.status} ${res.body}`);
    const { collection_id: cid, apikey } = JSON.parse(res.body);
    return { cid, apikey };
  }

  const docs = Array.from({ length: DOCS + 2 * EXTRA_ADDS }, (_, i) => makeDoc(i));
  const corpus = docs.slice(0, DOCS);

  /** adds docs[from..to) to collection c; returns adds/s and latencies */
  async function addRange(c, list, label, concurrency = CONCURRENCY) {
    const latencies = [];
    let failures = 0;
    const cpu0 = cpuTimes();
    const started = performance.now();
    await inParallel(list.length, concurrency, async (i) => {
      const d = list[i];
      const body = `apikey=${c.apikey}&dockey=${encodeURIComponent(d.dockey)}&doc=${encodeURIComponent(d.doc)}`;
      const t = performance.now();
      const res = await send('POST', `/v2/${c.cid}/docs`, body);
      latencies.push(performance.now() - t);
      if (res.status !== 200 && failures++ < 5)
        report(`  add ${d.dockey}: ${res.status} ${res.body}`);
    });
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const rate = list.length / seconds;
    report(
      `${label}: ${list.length} in ${seconds.toFixed(1)} s = ${Math.round(rate)} adds/s ` +
        `(p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${failures} failed)` +
        cpuPer(cpu0, cpuTimes(), { n: list.length, label: 'add' }),
    );
    if (failures) throw new Error(`${failures} adds failed`);
    return { rate, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  }

  /** waits until nothing is pending and the segments stopped changing (merges done) */
  async function foldCaughtUp(label) {
    const t0 = performance.now();
    let lagZero = null;
    let last = '';
    let stableSince = performance.now();
    for (;;) {
      const { rows } = await sql.query(
        `SELECT (SELECT count(*) FROM search_pending)::int AS n,
                (SELECT string_agg(id::text, ',' ORDER BY id) FROM search_segments WHERE retired_at IS NULL) AS live`,
      );
      if (rows[0].n === 0 && lagZero === null) lagZero = performance.now();
      if (rows[0].live !== last) {
        last = rows[0].live;
        stableSince = performance.now();
      }
      if (lagZero !== null && performance.now() - stableSince > 1500) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    report(
      `${label}: fold lag back to 0 after ${((lagZero - t0) / 1000).toFixed(1)} s, merges settled after ${((stableSince - t0) / 1000).toFixed(1)} s`,
    );
  }

  const indexSizes = async () =>
    (
      await sql.query(
        `SELECT sum(pg_total_relation_size(c.oid))::float8 AS index_bytes,
                (SELECT pg_total_relation_size('documents'))::float8 AS doc_bytes
         FROM pg_class c WHERE c.relname IN ('search_pending', 'search_docnos', 'search_tombstones',
           'search_deleted', 'search_segments', 'search_postings', 'search_index_state')`,
      )
    ).rows[0];
  const mb = (b) => (b / 2 ** 20).toFixed(0);

  // ---- the query kinds, words chosen by document frequency, counts by brute force
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
  const longQuery = (word) => {
    let q = word;
    while (Buffer.byteLength(`${q} 가나`) <= 1024) q += ' 가나';
    return q;
  };
  const particle = ko.find(([w]) => w.length >= 3)[0];
  const kinds = [
    { kind: 'common word (ko)', params: { q: common } },
    { kind: 'mid word (ko)', params: { q: mid } },
    { kind: 'rare word (ko)', params: { q: closest(ko, 0.0005) } },
    { kind: 'common word (en)', params: { q: closest(en, 0.2) } },
    { kind: 'two words', params: { q: `${closest(ko, 0.03)} ${closest(ko, 0.02)}` } },
    { kind: 'word + particle', params: { q: `${particle}에서` } },
    { kind: 'common + ca', params: { q: common, ca: '3,7' } },
    { kind: 'common + ex_ca 5', params: { q: closest(en, 0.2), ex_ca: '1,2,3,4,5' } },
    { kind: 'common + ex_ca 10', params: { q: common, ex_ca: '1,2,3,4,5,6,7,8,9,10' } },
    { kind: 'common, one month', params: { q: common, ...month } },
    { kind: 'common, since', params: { q: common, startdate: NOW - 400 * 86_400 } },
    { kind: 'common, sort=1', params: { q: common, sort: 1 } },
    { kind: 'common, start=990', params: { q: common, start: 990 } },
    { kind: 'sort=1, start=990', params: { q: mid, sort: 1, start: 990 } },
    { kind: 'mid, len=100', params: { q: mid, len: 100 } },
    { kind: 'punctuation only', params: { q: '!!! ... ???' } },
    { kind: '1,024-byte q', params: { q: longQuery(common) } },
  ];
  report(`counting the expected numfound of ${kinds.length} kinds by brute force ...`);
  const plans = kinds.map((k) => ({
    terms: queryTerms(k.params.q),
    ca: k.params.ca?.split(',').map(Number),
    exCa: k.params.ex_ca?.split(',').map(Number),
    from: k.params.startdate,
    to: k.params.enddate,
  }));
  for (const k of kinds) k.expected = 0;
  for (const d of corpus) {
    const doc = JSON.parse(d.doc);
    const terms = new Set(distinctTerms([doc.icontents_title, doc.icontents_body]));
    plans.forEach((p, i) => {
      if (
        p.terms.length > 0 &&
        p.terms.every((t) => terms.has(t)) &&
        (!p.ca || doc.categories.some((c) => p.ca.includes(c))) &&
        (!p.exCa || !doc.categories.some((c) => p.exCa.includes(c))) &&
        (p.from === undefined || doc.score_regdate >= p.from) &&
        (p.to === undefined || doc.score_regdate <= p.to)
      )
        kinds[i].expected++;
    });
  }

  // the load generator's own garbage from counting is collected before anything is measured
  await new Promise((r) => setTimeout(r, 2000));

  // ---- collection A
  const A = await newCollection();
  report(`\nadding ${DOCS} documents to collection A at concurrency ${CONCURRENCY} ...`);
  const bytes = corpus.reduce((n, d) => n + Buffer.byteLength(d.doc), 0);
  report(`average document ${Math.round(bytes / DOCS)} bytes`);
  const addsA = await addRange(A, corpus, 'adds to A');
  await foldCaughtUp('after A');
  await ask('vacuum'); // VACUUM ANALYZE + CHECKPOINT: measure the steady state, not the load's wake
  const sizeA = await indexSizes();
  report(
    `storage after A (${DOCS} documents, VACUUM ANALYZE): index tables ${mb(sizeA.index_bytes)} MB, documents ${mb(sizeA.doc_bytes)} MB`,
  );

  const searchPath = (c, k) =>
    `/v2/${c.cid}/search/json?${new URLSearchParams({ apikey: c.apikey, ...Object.fromEntries(Object.entries(k.params).map(([a, b]) => [a, String(b)])) })}`;
  const search = async (c, k) => {
    const res = await send('GET', searchPath(c, k));
    if (res.status !== 200) throw new Error(`${k.kind}: ${res.status} ${res.body}`);
    return res;
  };
  async function checkCounts(c, label) {
    const wrong = [];
    for (const k of kinds) {
      const numfound = JSON.parse((await search(c, k)).body.toString()).numfound;
      if (numfound !== k.expected)
        wrong.push(`${k.kind}: numfound ${numfound}, expected ${k.expected}`);
    }
    if (wrong.length) throw new Error(`numfound mismatch (${label}):\n  ${wrong.join('\n  ')}`);
    report(`numfound of every kind equals the brute-force count (${label})`);
  }
  async function measure(c) {
    const per = new Map(kinds.map((k) => [k.kind, []]));
    // warm-up: JIT and caches (views, posting lists), a tenth of the measured searches
    await inParallel(Math.max(kinds.length * 4, SEARCHES / 10), CONCURRENCY, (i) =>
      search(c, kinds[i % kinds.length]),
    );
    const cpu0 = cpuTimes();
    await ask('stalls-start');
    const t0 = performance.now();
    await inParallel(SEARCHES, CONCURRENCY, async (i) => {
      const k = kinds[i % kinds.length];
      const t = performance.now();
      await search(c, k);
      per.get(k.kind).push(performance.now() - t);
    });
    const qps = SEARCHES / ((performance.now() - t0) / 1000);
    const cpu = cpuPer(cpu0, cpuTimes(), { n: SEARCHES, label: 'search' });
    const st = await ask('stalls-stop');
    report(
      `service thread meanwhile: event-loop delay p50 ${st.delayP50.toFixed(1)} ms, p99 ${st.delayP99.toFixed(1)} ms, max ${st.delayMax.toFixed(1)} ms; ` +
        `GC ${st.gcCount} pauses, ${st.gcTotal.toFixed(0)} ms in all, longest ${st.gcMax.toFixed(1)} ms (${st.gcMajor} major); heap used ${st.heapMb} MB`,
    );
    for (const l of per.values()) l.sort((a, b) => a - b);
    return { per, qps, cpu };
  }

  await checkCounts(A, 'A alone');
  report(
    `\nsearching A: ${SEARCHES} searches at concurrency ${CONCURRENCY}, ${kinds.length} kinds in turn`,
  );
  const alone = await measure(A);
  report(`throughput ${Math.round(alone.qps)} searches/s${alone.cpu}`);

  // ---- tenant isolation: B of the same size and corpus
  const B = await newCollection();
  report(`\nadding the same ${DOCS} documents to collection B ...`);
  await addRange(B, corpus, 'adds to B');
  await foldCaughtUp('after B');
  await ask('vacuum');
  await checkCounts(A, 'A with B loaded');
  await checkCounts(B, 'B');
  report(`searching A again with B loaded ...`);
  const shared = await measure(A);
  report(`throughput ${Math.round(shared.qps)} searches/s${shared.cpu}`);

  report(
    `\n${'query kind'.padEnd(20)} ${'numfound'.padStart(8)} | A alone p50     p99 | B loaded p50     p99 | p99 ratio`,
  );
  let worstAlone = 0;
  let worstShared = 0;
  for (const k of kinds) {
    const a = alone.per.get(k.kind);
    const s = shared.per.get(k.kind);
    worstAlone = Math.max(worstAlone, percentile(a, 99));
    worstShared = Math.max(worstShared, percentile(s, 99));
    report(
      `${k.kind.padEnd(20)} ${String(k.expected).padStart(8)} | ${fmt(percentile(a, 50))} ${fmt(percentile(a, 99))} | ` +
        `${fmt(percentile(s, 50))} ${fmt(percentile(s, 99))} | ${(percentile(s, 99) / percentile(a, 99)).toFixed(2).padStart(6)}`,
    );
  }
  const isolation = worstShared / worstAlone;
  report(
    `worst p99: A alone ${worstAlone.toFixed(1)} ms, with B loaded ${worstShared.toFixed(1)} ms (ratio ${isolation.toFixed(2)})`,
  );

  // ---- writes to A, alone and while B is searched
  report(`\nadds to A alone, then while 16 clients search B ...`);
  const extraAlone = await addRange(A, docs.slice(DOCS, DOCS + EXTRA_ADDS), 'adds to A alone');
  let searching = true;
  const bSearches = [];
  const searchLoad = Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let i = w; searching; i += CONCURRENCY) {
        const t = performance.now();
        await search(B, kinds[i % kinds.length]);
        bSearches.push(performance.now() - t);
      }
    }),
  );
  const extraBusy = await addRange(
    A,
    docs.slice(DOCS + EXTRA_ADDS, DOCS + 2 * EXTRA_ADDS),
    'adds to A while B is searched',
  );
  searching = false;
  await searchLoad;
  bSearches.sort((a, b) => a - b);
  const writeRatio = extraBusy.rate / extraAlone.rate;
  report(
    `B's searches meanwhile: ${bSearches.length} (p99 ${percentile(bSearches, 99).toFixed(1)} ms); adds ratio ${writeRatio.toFixed(2)}`,
  );
  await foldCaughtUp('after the extra adds');

  // ---- storage, then deleting B while A is searched
  await ask('vacuum');
  const before = await indexSizes();
  report(
    `\nstorage, two collections of ${DOCS} (+ ${2 * EXTRA_ADDS} in A): index tables ${mb(before.index_bytes)} MB, documents ${mb(before.doc_bytes)} MB`,
  );
  let dropping = true;
  const duringDrop = [];
  const dropLoad = Promise.all(
    Array.from({ length: 4 }, async (_, w) => {
      for (let i = w; dropping; i += 4) {
        const t = performance.now();
        await search(A, kinds[i % kinds.length]);
        duringDrop.push(performance.now() - t);
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const dropped = await send('DELETE', `/admin/collections/${B.cid}`, undefined, adminHeaders);
  const dropSeconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  dropping = false;
  await dropLoad;
  if (dropped.status !== 204) throw new Error(`delete B: ${dropped.status} ${dropped.body}`);
  const longestPause = Math.max(...duringDrop);
  await ask('vacuum');
  const after = await indexSizes();
  report(
    `deleting B took ${dropSeconds.toFixed(1)} s; A's ${duringDrop.length} searches meanwhile (4 clients): longest ${longestPause.toFixed(1)} ms; ` +
      `index tables after VACUUM: ${mb(after.index_bytes)} MB (B's rows are gone; the files keep their size, VACUUM made the space reusable)`,
  );

  // ---- start-up of another instance with A indexed
  const startup = await ask({
    startInstance: true,
    cid: A.cid,
    apikey: A.apikey,
    path: searchPath(A, kinds[0]),
  });
  report(
    `\nstart-up of a second instance (A: ${DOCS + 2 * EXTRA_ADDS} documents): listening after ${startup.listenMs.toFixed(0)} ms, ` +
      `first search answered after ${startup.firstSearchMs.toFixed(0)} ms (cold cache)`,
  );

  const addsOk = addsA.rate >= 1000 && addsA.p99 <= 50;
  report(
    `\nSUMMARY docs=${DOCS} adds/s=${Math.round(addsA.rate)} add_p99_ms=${addsA.p99.toFixed(1)} worst_search_p99_ms=${worstAlone.toFixed(1)} ` +
      `isolation_ratio=${isolation.toFixed(2)} write_ratio=${writeRatio.toFixed(2)} drop_pause_ms=${longestPause.toFixed(0)} ` +
      `startup_ms=${startup.firstSearchMs.toFixed(0)}`,
  );
  const target = (ok, text) => report(`TARGET ${ok ? 'met   ' : 'MISSED'} ${text}`);
  target(
    worstAlone <= 50,
    `every kind p99 <= 50 ms (worst ${worstAlone.toFixed(1)} ms; stretch 20 ms)`,
  );
  target(
    addsOk,
    `adds >= 1,000/s with p99 <= 50 ms (${Math.round(addsA.rate)}/s, p99 ${addsA.p99.toFixed(1)} ms)`,
  );
  target(isolation <= 1.2, `worst p99 with B loaded <= 1.2x A alone (${isolation.toFixed(2)})`);
  target(
    writeRatio >= 0.8,
    `adds to A while B is searched >= 0.8x alone (${writeRatio.toFixed(2)})`,
  );
  target(
    longestPause <= 1000,
    `deleting B pauses A's searches <= 1 s (${longestPause.toFixed(0)} ms)`,
  );
  target(
    startup.firstSearchMs <= 5000,
    `start-up with ${DOCS} documents <= 5 s (${startup.firstSearchMs.toFixed(0)} ms)`,
  );
  await sql.end();
  agent.destroy();
}

// ================================================================== service and database (main)
async function main() {
  const { composeService } = await import(path.join(dist, 'compose.js'));
  const { loadConfig } = await import(path.join(dist, 'config.js'));
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
    dir: path.join(here, '..', 'migrations'),
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

  /** one service instance as main.ts composes it: pool, engine (with its folder), thumbnails, app */
  async function startInstance() {
    const pool = kit.createPool(databaseUrl, config.databasePoolSize);
    const metrics = kit.createMetrics('search-service');
    const service = composeService({ config, pool, logger, metrics });
    service.start();
    const server = http.createServer(service.app);
    server.keepAliveTimeout = 65_000;
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: server.address().port,
      async stop() {
        await new Promise((resolve) => server.close(resolve));
        server.closeAllConnections?.();
        await service.stop();
        await pool.end();
      },
    };
  }
  const service = await startInstance();

  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: { port: service.port, token, databaseUrl },
  });
  const done = new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`load generator exit ${code}`)),
    );
  });
  // BENCH_CPU_PROFILE=<dir>: a CPU profile of the service thread during the first measurement
  const profileDir = process.env.BENCH_CPU_PROFILE;
  let profiled = null;
  const profiler = inspectorProfiler();
  // stalls of the service thread during a measurement: event-loop delay and GC pauses
  let delay = null;
  let gc = null;
  const gcObserver = new PerformanceObserver((list) => {
    if (!gc) return;
    for (const e of list.getEntries()) {
      gc.count++;
      gc.total += e.duration;
      gc.max = Math.max(gc.max, e.duration);
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  worker.on('message', async (m) => {
    if (m.say) say(m.say);
    if (m.ask === 'stalls-start') {
      if (profileDir && !profiled) await profiler.start();
      delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      gc = { count: 0, total: 0, max: 0, major: 0 };
      worker.postMessage('started');
    } else if (m.ask === 'stalls-stop') {
      delay.disable();
      if (profileDir && !profiled) {
        profiled = await profiler.stop(profileDir);
        say(`CPU profile of the service thread (A alone): ${profiled}`);
      }
      const ms = (ns) => ns / 1e6;
      worker.postMessage({
        delayP50: ms(delay.percentile(50)),
        delayP99: ms(delay.percentile(99)),
        delayMax: ms(delay.max),
        gcCount: gc.count,
        gcTotal: gc.total,
        gcMax: gc.max,
        gcMajor: gc.major,
        heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      });
      gc = null;
    }
    if (m.ask === 'vacuum') {
      await sql.query('VACUUM (ANALYZE)');
      await sql.query('CHECKPOINT');
      worker.postMessage('done');
    } else if (m.ask?.startInstance) {
      const t0 = performance.now();
      const second = await startInstance();
      const listenMs = performance.now() - t0;
      const res = await fetch(`http://127.0.0.1:${second.port}${m.ask.path}`);
      await res.text();
      const firstSearchMs = performance.now() - t0;
      await second.stop();
      worker.postMessage({ listenMs, firstSearchMs });
    }
  });
  await done;
  gcObserver.disconnect();

  await service.stop();
  await sql.end();
  await stopDatabase();
}

/** Starts and stops the V8 CPU profiler of this thread (node:inspector); writes a .cpuprofile. */
function inspectorProfiler() {
  let session;
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  return {
    async start() {
      session = new inspector.Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    },
    async stop(dir) {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `search-bench-${Date.now()}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
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
