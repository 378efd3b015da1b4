#!/usr/bin/env node
// `pnpm bench:feed` (root: build, then this). One run:
//  1. a database: DATABASE_URL's server (a scratch database, dropped at the end) or an
//     embedded PostgreSQL in a temporary folder;
//  2. 100 items with realistic Korean text;
//  3. the service (built dist/, fast path on) and a bare node:http server answering the
//     same bytes, each in a child process; autocannon (programmatic) at 64 connections:
//     cached 200 JSON and RSS against the bare server in FEED_BENCH_ROUNDS interleaved
//     rounds (median ratio and spread), then once each: 304s, the Express route alone
//     (fast path off), and readers that each bring a new token (every request verifies one);
//  4. the in-process rate of verifying new tokens (Authenticator.verify);
//  5. 1,000,000 items (one INSERT … generate_series), then the uncached render (query +
//     render, no cache) timed 50 times per feed and format.
// Settings: FEED_BENCH_DURATION (s per server, format and round, 3), FEED_BENCH_WARMUP (s, 0.25),
// FEED_BENCH_CONNECTIONS (64), FEED_BENCH_ROUNDS (9), FEED_BENCH_SLICES (6: each round's
// time per server and format, cut into slices that alternate A-B-B-A-A-B…), FEED_BENCH_ROWS (1000000; 0 skips
// step 5), FEED_BENCH_RENDERS (50), FEED_BENCH_NODE_ARGS (e.g. --cpu-prof for the servers),
// FEED_BENCH_ONLY=cached (stop after the cached 200 comparison).
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const serviceDir = path.resolve(here, '..');
const rootDir = path.resolve(serviceDir, '../..');
const dist = (p) => path.join(serviceDir, 'dist', p);

const DURATION = Number(process.env.FEED_BENCH_DURATION ?? 3);
const WARMUP = Number(process.env.FEED_BENCH_WARMUP ?? 0.25);
const CONNECTIONS = Number(process.env.FEED_BENCH_CONNECTIONS ?? 64);
const ROWS = Number(process.env.FEED_BENCH_ROWS ?? 1_000_000);
const RENDERS = Number(process.env.FEED_BENCH_RENDERS ?? 50);
const ROUNDS = Math.max(1, Number(process.env.FEED_BENCH_ROUNDS ?? 9));
const SLICES = Math.max(1, Number(process.env.FEED_BENCH_SLICES ?? 6));
const NEW_TOKENS_IN_PROCESS = 20_000;
const SECRET = crypto.randomBytes(32).toString('hex');
const ACCEPT = {
  json: 'application/vnd.vendor.resource-1.0+json;charset=utf-8',
  xml: 'application/vnd.vendor.resource-1.0+xml;charset=utf-8',
};

/** An HS256 JWT, signed here (no library): readers' tokens, each one distinct. */
function hs256(payload) {
  const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}`;
  return `${body}.${crypto.createHmac('sha256', SECRET).update(body).digest('base64url')}`;
}
let tokenSerial = 0;
function newReaderToken() {
  const now = Math.floor(Date.now() / 1000);
  return hs256({ scope: 'hub:read', sub: `reader-${++tokenSerial}`, iat: now, exp: now + 3600 });
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (list, digits) =>
  `${Math.min(...list).toFixed(digits)}–${Math.max(...list).toFixed(digits)}`;

// ---------------------------------------------------------------- the run
async function main() {
  const started = Date.now();
  const autocannon = require('autocannon');
  // autocannon appends every response body to a JS string (lib/pipelinedRequestsQueue.js
  // addBody: \`req.body += data\`). For ~70 KB of Korean UTF-8 per response that decoding
  // caps the client near 2,500 req/s whatever the server does, hiding the servers'
  // differences. We check no bodies (no expectBody/verifyBody), so that accumulation is
  // switched off here; bytes are still counted. FEED_BENCH_KEEP_BODIES=1 keeps it.
  if (process.env.FEED_BENCH_KEEP_BODIES !== '1') {
    require('autocannon/lib/pipelinedRequestsQueue.js').prototype.addBody = function addBody() {};
  }
  const pg = require('pg');
  const { runMigrations, createPool } = require('@hub/service-kit');
  if (!fs.existsSync(dist('app.js')))
    throw new Error('dist/ is missing: run `pnpm build` first (pnpm bench:feed does)');

  const log = (s) => process.stdout.write(`${s}\n`);
  const { url: dbUrl, cleanup } = await openDatabase(pg);
  const children = [];
  try {
    await runMigrations({
      databaseUrl: dbUrl,
      dir: path.join(serviceDir, 'migrations'),
      table: 'feed_migrations',
    });
    const pool = createPool(dbUrl, 4);
    await insertRealisticItems(pool, 100);
    log(
      `database ready; 100 items (${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );

    const env = { ...process.env, BENCH_DB: dbUrl, BENCH_SECRET: SECRET };
    const app = await child('serve-app', env, children);
    const express = await child('serve-app', { ...env, BENCH_FAST_PATH: '0' }, children);
    const token = newReaderToken();
    const appUrl = `http://127.0.0.1:${app.port}/hub/contents`;
    const expressUrl = `http://127.0.0.1:${express.port}/hub/contents`;
    const auth = { Authorization: `Bearer ${token}` };
    const json = { ...auth, Accept: ACCEPT.json };
    const xml = { ...auth, Accept: ACCEPT.xml };

    // the bytes the bare server will send: what the service sends (minus the per-request headers)
    const bodies = {};
    for (const [format, headers] of [
      ['json', json],
      ['xml', xml],
    ]) {
      const r = await get(appUrl, headers);
      await get(expressUrl, headers);
      if (r.status !== 200) throw new Error(`warm-up GET answered ${r.status}`);
      // the header lines as the service wrote them (names in their case, in their order):
      // Node lower-cases every name of 4-17 characters it writes (matchHeader), which
      // allocates for 'Content-Type' but not for 'content-type', so the baseline must send
      // the same names, not the client's lower-cased view of them
      const sent = {};
      for (let i = 0; i < r.rawHeaders.length; i += 2) {
        const name = r.rawHeaders[i];
        if (!['date', 'connection', 'keep-alive'].includes(name.toLowerCase()))
          sent[name] = r.rawHeaders[i + 1];
      }
      bodies[format] = {
        body: r.body.toString('base64'),
        headers: sent,
        etag: r.headers.etag,
        size: r.body.length,
      };
    }
    const bare = await child('serve-bare', env, children, { bodies });
    // the baseline must send what the service sends: same header lines, same body
    const lines = (r) =>
      r.rawHeaders
        .map((v, i, all) =>
          i % 2 ? `${all[i - 1]}: ${/^x-request-id$/i.test(all[i - 1]) ? '*' : v}` : '',
        )
        .filter((l) => l && !/^date:/i.test(l));
    for (const [format, headers] of [
      ['json', json],
      ['xml', xml],
    ]) {
      const [fromApp, fromBare] = [
        await get(appUrl, headers),
        await get(`http://127.0.0.1:${bare.port}/${format}`, headers),
      ];
      if (
        JSON.stringify(lines(fromApp)) !== JSON.stringify(lines(fromBare)) ||
        !fromApp.body.equals(fromBare.body)
      )
        throw new Error(
          `the bare server does not send the service's bytes (${format}):\n${lines(fromApp).join('\n')}\n---\n${lines(fromBare).join('\n')}`,
        );
    }
    log(`bodies: JSON ${bodies.json.size} bytes, RSS ${bodies.xml.size} bytes`);

    const load = async (
      name,
      server,
      url,
      headers,
      expectStatus,
      requests,
      { duration = DURATION, print = true, warmup = true } = {},
    ) => {
      // sampleInt: autocannon stops at a sample boundary (1 s by default), so a run of 1.5 s
      // would really last 2; the rate is taken over the run's real duration either way
      const opts = {
        url,
        connections: CONNECTIONS,
        headers,
        sampleInt: 100,
        ...(requests && { requests }),
      };
      if (warmup && WARMUP > 0) {
        const warm = await autocannon({ ...opts, duration: WARMUP });
        if (warm.errors) throw new Error(`${name}: ${warm.errors} errors in warm-up`);
      }
      const cpu0 = await cpuOf(server.process);
      const result = await autocannon({ ...opts, duration });
      const cpu = (await cpuOf(server.process)) - cpu0;
      const ok = expectStatus === 304 ? result['3xx'] : result['2xx'];
      const bad = result.requests.total - ok + result.errors + result.timeouts;
      const row = {
        name,
        rps: result.requests.total / result.duration,
        seconds: result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        total: result.requests.total,
        cpu,
        cpuPerReq: cpu / Math.max(1, result.requests.total),
        bad,
      };
      if (print) printRow(row);
      return row;
    };
    const printRow = (row) =>
      log(
        `  ${row.name.padEnd(44)} ${String(Math.round(row.rps)).padStart(7)} req/s   p50 ${String(row.p50).padStart(3)} ms   p99 ${String(row.p99).padStart(3)} ms   server CPU ${row.cpuPerReq.toFixed(1).padStart(6)} µs/req${row.bad ? `   (${row.bad} unexpected!)` : ''}`,
      );

    // The bare server gets the same request (Authorization and Accept included, ignored):
    // the two differ only in what the service does with it.
    const bareUrl = (f) => `http://127.0.0.1:${bare.port}/${f}`;
    const pairs = {
      json: [
        ['bare node:http, JSON bytes', bare, bareUrl('json'), json, 200],
        ['service cached 200, JSON (fast path)', app, appUrl, json, 200],
      ],
      xml: [
        ['bare node:http, RSS bytes', bare, bareUrl('xml'), xml, 200],
        ['service cached 200, RSS (fast path)', app, appUrl, xml, 200],
      ],
    };
    log(
      `\ncached 200 vs bare: autocannon, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds; a round gives each server ${DURATION} s per format, as ${SLICES} slices of ${(DURATION / SLICES).toFixed(2)} s each in A-B-B-A-A-B… order (+${WARMUP} s warm-up before its first)`,
    );
    const ratios = { json: [], xml: [] };
    const cpuRatios = { json: [], xml: [] };
    const rates = { json: { bare: [], app: [] }, xml: { bare: [], app: [] } };
    const appCpus = { json: [], xml: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const format of ['json', 'xml']) {
        // SLICES short slices in A-B-B-A-A-B-B-A … order (B-A-A-B … the next round): a change
        // in the machine's speed within the round weighs on both servers alike
        const [bareCase, appCase] = pairs[format];
        const pair = round % 2 ? [bareCase, appCase] : [appCase, bareCase];
        const order = Array.from({ length: SLICES }, (_, i) =>
          i % 2 === 0 ? pair : [pair[1], pair[0]],
        ).flat();
        const sum = new Map([
          [bareCase, { total: 0, seconds: 0, cpu: 0, bad: 0, warm: false }],
          [appCase, { total: 0, seconds: 0, cpu: 0, bad: 0, warm: false }],
        ]);
        for (const args of order) {
          const s = sum.get(args);
          const row = await load(...args, undefined, {
            duration: DURATION / SLICES,
            print: false,
            warmup: !s.warm,
          });
          s.warm = true;
          s.total += row.total;
          s.seconds += row.seconds;
          s.cpu += row.cpu;
          s.bad += row.bad;
        }
        const b = sum.get(bareCase);
        const a = sum.get(appCase);
        const [bareRps, appRps] = [b.total / b.seconds, a.total / a.seconds];
        const [bareCpu, appCpu] = [b.cpu / b.total, a.cpu / a.total];
        ratios[format].push(appRps / bareRps);
        cpuRatios[format].push(bareCpu / appCpu);
        rates[format].bare.push(bareRps);
        rates[format].app.push(appRps);
        appCpus[format].push(appCpu);
        log(
          `  round ${round}/${ROUNDS} ${format === 'json' ? 'JSON' : 'RSS '}: bare ${String(Math.round(bareRps)).padStart(6)} req/s (${bareCpu.toFixed(1)} µs CPU/req), service ${String(Math.round(appRps)).padStart(6)} req/s (${appCpu.toFixed(1)} µs CPU/req): ratio ${(appRps / bareRps).toFixed(2)}, CPU ratio ${(bareCpu / appCpu).toFixed(2)}${a.bad + b.bad ? `   (${a.bad + b.bad} unexpected!)` : ''}`,
        );
      }
    }
    const summary = {};
    log(`\nresults (median of ${ROUNDS} rounds, spread min–max)`);
    for (const [format, label] of [
      ['json', 'JSON'],
      ['xml', 'RSS '],
    ]) {
      summary[format] = {
        ratio: median(ratios[format]),
        cpuRatio: median(cpuRatios[format]),
        bare: median(rates[format].bare),
        app: median(rates[format].app),
      };
      log(
        `  cached 200 ${label} / bare: req/s ratio ${summary[format].ratio.toFixed(2)} (${spread(ratios[format], 2)})   server-CPU ratio ${summary[format].cpuRatio.toFixed(2)} (${spread(cpuRatios[format], 2)})   service ${Math.round(summary[format].app)} req/s (${spread(rates[format].app, 0)}), bare ${Math.round(summary[format].bare)} req/s (${spread(rates[format].bare, 0)})   (target >= 0.9, stretch 0.95)`,
      );
    }

    if (process.env.FEED_BENCH_ONLY === 'cached') return; // e.g. to profile just that

    log(`\nreference cases (one run each)`);
    const app304 = await load(
      'service 304, JSON (If-None-Match)',
      app,
      appUrl,
      { ...json, 'If-None-Match': bodies.json.etag },
      304,
    );
    const app304Xml = await load(
      'service 304, RSS (If-None-Match)',
      app,
      appUrl,
      { ...xml, 'If-None-Match': bodies.xml.etag },
      304,
    );
    const expressJson = await load(
      'Express route alone, cached 200, JSON',
      express,
      expressUrl,
      json,
      200,
    );
    // every request brings a token the service has never seen: it verifies the signature
    // (a key built once at start), remembers the token, then answers from the cache
    const newTokens = await load(
      'new token per request, cached 200, JSON',
      app,
      appUrl,
      { Accept: ACCEPT.json },
      200,
      [
        {
          method: 'GET',
          path: '/hub/contents',
          setupRequest: (req) => ({
            ...req,
            headers: { ...req.headers, Authorization: `Bearer ${newReaderToken()}` },
          }),
        },
      ],
    );
    // one run each, so compare the server's CPU per request (steadier than req/s here)
    const cpuMedian = (format) => median(appCpus[format]);
    log(
      `  server CPU per request: 304 ${app304.cpuPerReq.toFixed(1)} µs vs cached 200 ${cpuMedian('json').toFixed(1)} µs (JSON), ${app304Xml.cpuPerReq.toFixed(1)} vs ${cpuMedian('xml').toFixed(1)} µs (RSS); Express alone ${expressJson.cpuPerReq.toFixed(1)} µs vs the fast path's ${cpuMedian('json').toFixed(1)} µs (JSON)`,
    );

    await stopChildren(children);

    log(`\nnew tokens (many readers, each with its own token)`);
    log(
      `  over HTTP: ${Math.round(newTokens.rps)} req/s, each verifying a new token (server CPU ${newTokens.cpuPerReq.toFixed(1)} µs/req)`,
    );
    verifyRate(log);

    log(`\nuncached render (one snapshot query + render, no cache), in a fresh process`);
    if (ROWS > 0) {
      const t0 = Date.now();
      await insertBulk(pool, ROWS);
      log(
        `  ${ROWS.toLocaleString('en')} stored items: bulk insert + ANALYZE took ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    } else {
      log('  FEED_BENCH_ROWS=0: with the 100 items only');
    }
    await new Promise((resolve, reject) => {
      const c = fork(fileURLToPath(import.meta.url), ['render-timings'], { env, stdio: 'inherit' });
      c.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`render timings exited with ${code}`)),
      );
    });
    await pool.end();
    log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}

/** Authenticator.verify on tokens it has never seen, in this process (one core). */
function verifyRate(log) {
  const { createAuthenticator } = require(dist('http/auth.js'));
  const { loadConfig } = require(dist('config.js'));
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused/unused',
    FEED_JWT_SECRET: SECRET,
  });
  const auth = createAuthenticator(config.jwt);
  const tokens = Array.from({ length: NEW_TOKENS_IN_PROCESS }, newReaderToken);
  for (const t of tokens.slice(0, 1000)) auth.verify(t); // warm-up (then remembered)
  const todo = tokens.slice(1000);
  const t0 = process.hrtime.bigint();
  for (const t of todo) auth.verify(t);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  // what it would cost with the secret given as a string (jsonwebtoken builds a key per call)
  const jwt = require('jsonwebtoken');
  const few = Array.from({ length: 300 }, newReaderToken);
  const t1 = process.hrtime.bigint();
  for (const t of few) jwt.verify(t, SECRET, { algorithms: ['HS256'] });
  const perString = Number(process.hrtime.bigint() - t1) / 1e3 / few.length;
  log(
    `  in process: ${Math.round(todo.length / seconds)} verifications/s (${((seconds / todo.length) * 1e6).toFixed(1)} µs each, HS256, key built once; ${todo.length} tokens; with the secret as a string it would be ${perString.toFixed(0)} µs each)`,
  );
}

/** p50/p99 of the uncached path (one snapshot query + render), called directly. */
async function renderTimings() {
  const log = (line) => process.stdout.write(`${line}\n`);
  const dbUrl = process.env.BENCH_DB;
  const pool = require('@hub/service-kit').createPool(dbUrl, 2);
  const { loadConfig } = require(dist('config.js'));
  const { createItemsRepository } = require(dist('store/items.js'));
  const { createFeedCache } = require(dist('cache/feed-cache.js'));
  const { renderFromStore } = require(dist('domain/read-feed.js'));
  const config = loadConfig({
    DATABASE_URL: dbUrl,
    FEED_JWT_SECRET: process.env.BENCH_SECRET,
    FEED_BASE_URL: 'https://feed.example.com',
  });
  const ctx = {
    config,
    items: createItemsRepository(pool),
    cache: createFeedCache(),
    clock: Date.now,
  };
  const pct = (list, p) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2);
  };
  // the feed cache is not used: every render runs the query and renders all items
  for (const feed of ['all', 'it']) {
    for (const format of ['json', 'xml']) {
      for (let i = 0; i < 5; i++) await renderFromStore(ctx, feed, format); // warm up
      const wall = [];
      const cpu = [];
      for (let i = 0; i < RENDERS; i++) {
        const c = process.cpuUsage();
        const t = process.hrtime.bigint();
        const rep = await renderFromStore(ctx, feed, format);
        wall.push(Number(process.hrtime.bigint() - t) / 1e6);
        const used = process.cpuUsage(c);
        cpu.push((used.user + used.system) / 1000);
        if (rep.head.length === 0) throw new Error('empty render');
      }
      const path = feed === 'all' ? '/hub/contents' : `/hub/categories/${feed}/contents`;
      const name = format;
      log(
        `  ${path.padEnd(28)} ${name.padEnd(8)}  wall p50 ${pct(wall, 50).padStart(6)} ms  p99 ${pct(wall, 99).padStart(6)} ms   (CPU p50 ${pct(cpu, 50)} ms, p99 ${pct(cpu, 99)} ms)`,
      );
    }
  }
  log(`  (${RENDERS} renders each; target < 20 ms)`);
  await pool.end();
}

// ---------------------------------------------------------------- helpers
function child(role, env, children, message) {
  return new Promise((resolve, reject) => {
    const c = fork(fileURLToPath(import.meta.url), [role], {
      // e.g. FEED_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the servers
      execArgv: (process.env.FEED_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(c);
    c.once('message', (m) => resolve({ ...m, process: c }));
    c.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    if (message) c.send(message);
  });
}

/** Disconnecting lets a child exit normally (so --cpu-prof profiles get written); then kill. */
async function stopChildren(children) {
  await Promise.all(
    children.splice(0).map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', resolve);
          if (c.connected) c.disconnect();
          setTimeout(() => c.kill('SIGKILL'), 3000).unref();
        }),
    ),
  );
}

function cpuOf(c) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a server process did not answer')), 5000);
    const on = (m) => {
      if (m && m.cpu) {
        clearTimeout(timer);
        c.off('message', on);
        resolve(m.cpu.user + m.cpu.system);
      }
    };
    c.on('message', on);
    c.send('cpu');
  });
}

function get(url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

async function openDatabase(pg) {
  if (process.env.DATABASE_URL) {
    const admin = process.env.DATABASE_URL;
    const name = `feed_bench_${crypto.randomBytes(4).toString('hex')}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE "${name}"`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      cleanup: async () => {
        const d = new pg.Client({ connectionString: admin });
        await d.connect();
        await d.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await d.end();
      },
    };
  }
  const { startEmbeddedPostgres } = await import(
    path.join(rootDir, 'scripts/embedded-postgres.mjs')
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-bench-pg-'));
  fs.chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'data'),
    persistent: false,
  });
  process.stdout.write(
    `embedded PostgreSQL on port ${server.port} (set DATABASE_URL to use another server)\n`,
  );
  return {
    url: server.url('postgres'),
    cleanup: async () => {
      await server.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const SUBJECTS = [
  '서울 한옥마을',
  '제주 올레길',
  '부산 해운대 야경',
  '전주 비빔밥 골목',
  '강릉 커피거리',
  '경주 역사유적지구',
  '인공지능 스타트업',
  '반도체 수출 동향',
  '가을 캠핑 준비물',
  '집에서 만드는 김치찌개',
  '재택근무 생산성',
  '주말 미술관 나들이',
];
const SENTENCES = [
  '현지 사람들이 추천하는 숨은 명소를 직접 다녀왔습니다.',
  '처음 방문하는 분들을 위해 교통편과 예상 비용을 정리했습니다.',
  '계절마다 달라지는 풍경과 즐길 거리를 사진과 함께 소개합니다.',
  '전문가 인터뷰를 통해 최근 흐름과 앞으로의 전망을 살펴봅니다.',
  '실패하지 않는 준비 방법과 알아두면 좋은 팁을 모았습니다.',
  '가족, 친구와 함께하기 좋은 일정표도 준비했어요 😀',
  '자세한 내용은 본문 링크에서 확인하세요 & 의견을 남겨 주세요.',
];
const CATEGORIES = ['life', 'culture', 'trip', 'it', 'food', 'biz'];

/** 100 items through SQL, with text like real Korean posts (titles ~25, descriptions ~150 characters). */
async function insertRealisticItems(pool, n) {
  for (let i = 0; i < n; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length];
    const description = [0, 1, 2, 3]
      .map((k) => SENTENCES[(i + k * 3) % SENTENCES.length])
      .join(' ');
    await pool.query(
      `INSERT INTO feed_items (title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type)
       VALUES ($1, $2, $3, $4, $5, NULL, now() - $6 * interval '7 minutes', $7, $8, 'image/jpeg')`,
      [
        `${subject} — 꼭 알아야 할 ${(i % 9) + 2}가지 이야기`,
        `https://hub.example.com/contents/${100000 + i}`,
        `<p>${description}</p>`,
        CATEGORIES[i % CATEGORIES.length],
        ['김하늘', '이서준', '박지민', '최유나', '정도윤'][i % 5],
        i,
        i % 3 === 0 ? null : `https://img.example.com/contents/${100000 + i}/cover.jpg`,
        i % 3 === 1 ? String(120000 + i * 37) : null,
      ],
    );
  }
}

/** Rows up to `total` in one INSERT … SELECT generate_series, pub_dates 315 s apart (ten years for 1M). */
async function insertBulk(pool, total) {
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM feed_items');
  const missing = total - rows[0].n;
  if (missing <= 0) return;
  await pool.query(
    `INSERT INTO feed_items (title, link, description, category, creator, pub_date, enclosure_url)
     SELECT '제목 ' || g || ' — 서울의 가을 산책길과 숨은 명소 이야기',
            'https://hub.example.com/archive/' || g,
            '현지 사람들이 추천하는 숨은 명소를 직접 다녀왔습니다. 처음 방문하는 분들을 위해 교통편과 예상 비용을 정리했습니다. #' || g,
            (ARRAY['life','culture','trip','it','food','biz'])[1 + g % 6],
            '작성자 ' || (g % 1000),
            now() - g * interval '315 seconds',
            CASE WHEN g % 2 = 0 THEN 'https://img.example.com/' || g || '.jpg' END
     FROM generate_series(1, $1::int) AS g`,
    [missing],
  );
  await pool.query('ANALYZE feed_items');
}

// ---------------------------------------------------------------- entry (last: the constants above are initialised)
if (process.argv[2] === 'serve-app') {
  await serveApp();
} else if (process.argv[2] === 'serve-bare') {
  serveBare();
} else if (process.argv[2] === 'render-timings') {
  await renderTimings();
} else {
  await main();
}

async function serveApp() {
  const { createApp } = require(dist('app.js'));
  const { loadConfig } = require(dist('config.js'));
  const { createPool } = require('@hub/service-kit');
  const config = loadConfig({
    DATABASE_URL: process.env.BENCH_DB,
    FEED_JWT_SECRET: process.env.BENCH_SECRET,
    FEED_BASE_URL: 'https://feed.example.com',
  });
  const pool = createPool(config.databaseUrl);
  const app = createApp({ config, pool, fastPath: process.env.BENCH_FAST_PATH !== '0' });
  await app.ready;
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  answerCpuQueries();
}

/** The parent asks for this process's CPU time around each load, to get server CPU per request. */
function answerCpuQueries() {
  process.on('message', (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => process.exit(0));
}

function serveBare() {
  // the baseline: the same bytes and headers from memory, writeHead + end
  process.on('message', (m) => {
    if (!m || !m.bodies) return;
    const { bodies } = m;
    const json = Buffer.from(bodies.json.body, 'base64');
    const xml = Buffer.from(bodies.xml.body, 'base64');
    const server = http.createServer((req, res) => {
      const isXml = req.url.endsWith('xml');
      res.writeHead(200, isXml ? bodies.xml.headers : bodies.json.headers);
      res.end(isXml ? xml : json);
    });
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  });
  answerCpuQueries();
}
