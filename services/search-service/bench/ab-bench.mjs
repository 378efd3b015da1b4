#!/usr/bin/env node
// `pnpm bench:search:ab`: two builds of the search-service (or one build under two
// environments) measured against each other in one run, on one database, in turns:
// A, B, A, B, … On this shared machine the speed of a minute moves a single run's p99 by a
// fifth; turns a minute apart put both variants in the same minutes, so their ratio is what
// a change did.
//  1. a database (as search-bench.mjs: embedded in a temporary folder, or DATABASE_URL);
//  2. --docs N documents (default 100,000) added over HTTP to one collection through variant A,
//     then the folds and merges settled and VACUUM ANALYZE;
//  3. BENCH_AB_ROUNDS (default 4) rounds, after one more that warms up and is not counted; in
//     each, variant A then variant B (B first in the even rounds): the variant's instance is started on this thread (the other one stopped), a
//     warm-up, then BENCH_AB_SEARCHES (default 8,500) of the query kinds at concurrency 16 from a
//     load generator in a child process: searches/s, CPU per search, p50 and the worst kind's
//     p99; every kind's numfound is compared between the variants;
//  4. per variant the median of its rounds, and B / A.
// BENCH_AB_AFTER_LOAD=1: right after a load instead. Each round loads its own collection of
// --docs documents through the variant and measures at once, with no warm-up (issue 23's
// "no tail after a bulk load"), then deletes it; every round counts.
// BENCH_AB_MIX=1: the wide mix (lib/mix.mjs: BENCH_MIX_QUERIES distinct queries, each sent
// twice) instead of the query kinds: every round sends all of it, in the same order, to an
// instance started for the round, so what one variant keeps in its cache is what the mix made it
// keep (the 1,000,000-document mix was where term bitsets cost more than they saved).
// Variants: BENCH_AB_A and BENCH_AB_B, each a search-service folder with a built dist/
// (default: this one); BENCH_AB_A_ENV and BENCH_AB_B_ENV, settings for that variant only
// ("SEARCH_MAX_CONCURRENT_SEARCHES=4 SEARCH_INDEX_CACHE_MB=128"). The variants must share the
// database's schema (their migrations are A's).
import crypto from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { makeDoc, newDf, NOW } from './data.mjs';
import { createClient } from './lib/client.mjs';
import { openDatabase } from './lib/database.mjs';
import {
  instanceStarter,
  isLoadGenerator,
  loadGeneratorData,
  startLoadGenerator,
} from './lib/host.mjs';
import { cpuPer, cpuTimes, inParallel, percentile, windows } from './lib/measure.mjs';
import { numfoundOf } from './lib/searches.mjs';
import { buildMix } from './lib/mix.mjs';
import { oracleQueries } from './lib/oracle.mjs';
import { chooseQueryKinds } from './lib/query-kinds.mjs';
import { answerStalls, createStallMonitor } from './lib/stalls.mjs';
import { CONCURRENCY, DOCS, MIX_QUERIES, say, serviceDir } from './lib/settings.mjs';
import { ask, report, runAsLoadGenerator } from './lib/worker-link.mjs';
import { createWrites } from './lib/writes.mjs';

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 4);
const COUNT = Number(process.env.BENCH_AB_SEARCHES ?? 8500);
const AFTER_LOAD = process.env.BENCH_AB_AFTER_LOAD === '1';
const MIX = process.env.BENCH_AB_MIX === '1';

/** "A=1 B=two" → { A: '1', B: 'two' } */
function settings(text) {
  return Object.fromEntries(
    (text ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new Error(`not NAME=value: ${pair}`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

function variants() {
  return ['A', 'B'].map((name) => ({
    name,
    dir: path.resolve(process.env[`BENCH_AB_${name}`] ?? serviceDir),
    env: settings(process.env[`BENCH_AB_${name}_ENV`]),
  }));
}

async function main() {
  const kit = await import('@hub/service-kit');
  const { databaseUrl, stopDatabase } = await openDatabase();
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {});
  const all = variants();
  await kit.runMigrations({
    databaseUrl,
    dir: path.join(all[0].dir, 'migrations'),
    table: 'search_migrations',
  });
  const token = crypto.randomBytes(16).toString('hex');
  const logger = kit.createLogger('search-service', 'silent');
  const starters = new Map();
  for (const v of all) {
    const { composeService } = await import(path.join(v.dir, 'dist', 'compose.js'));
    const { loadConfig } = await import(path.join(v.dir, 'dist', 'config.js'));
    const config = loadConfig({
      ...process.env,
      ...v.env,
      DATABASE_URL: databaseUrl,
      SEARCH_ADMIN_TOKEN: token,
      LOG_LEVEL: 'silent',
    });
    starters.set(v.name, instanceStarter({ composeService, kit, databaseUrl, config, logger }));
    say(
      `variant ${v.name}: ${v.dir}${Object.keys(v.env).length ? ` with ${process.env[`BENCH_AB_${v.name}_ENV`]}` : ''}`,
    );
  }
  let running = { name: 'A', instance: await starters.get('A')() };
  const stalls = createStallMonitor();
  const worker = startLoadGenerator(fileURLToPath(import.meta.url), {
    port: running.instance.port,
    token,
    databaseUrl,
  });
  const done = new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
  worker.on('message', async (m) => {
    if (m.say) say(m.say);
    if (await answerStalls(stalls, m.ask, worker)) return;
    if (m.ask?.profile) {
      worker.postMessage(null);
    } else if (m.ask === 'vacuum') {
      await sql.query('VACUUM (ANALYZE)');
      await sql.query('CHECKPOINT');
      worker.postMessage('done');
    } else if (m.ask?.variant) {
      if (running.name !== m.ask.variant || m.ask.fresh) {
        await running.instance.stop();
        running = { name: m.ask.variant, instance: await starters.get(m.ask.variant)() };
      }
      worker.postMessage({ port: running.instance.port });
    }
  });
  await done;
  stalls.close();
  await running.instance.stop();
  await sql.end();
  await stopDatabase();
}

/**
 * The searches of a round in c at CONCURRENCY (COUNT of the kinds in turn, or each send of
 * the mix): throughput, latencies, CPU, stalls
 */
async function measureRound(client, c, kinds, mix) {
  const per = new Map(kinds.map((k) => [k.kind, []]));
  const n = mix ? mix.length : COUNT;
  const all = [];
  /** [when it ended (ms from the first send), latency], for the p99 per window */
  const timeline = [];
  await ask('stalls-start');
  const cpu0 = cpuTimes();
  const t0 = performance.now();
  await inParallel(n, CONCURRENCY, async (i) => {
    const k = mix ? mix[i] : kinds[i % kinds.length];
    const t = performance.now();
    await client.search(c, k, { body: false });
    const end = performance.now();
    if (!mix) per.get(k.kind).push(end - t);
    all.push(end - t);
    timeline.push([end - t0, end - t]);
  });
  const qps = n / ((performance.now() - t0) / 1000);
  const cpu1 = cpuTimes();
  const perSearch = (k) => (cpu0 && cpu1 ? (cpu1[k] - cpu0[k]) / n : NaN);
  const st = await ask('stalls-stop');
  for (const l of per.values()) l.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  let worst = { kind: '', p99: 0 };
  for (const [kind, l] of per) {
    const p99 = percentile(l, 99);
    if (p99 > worst.p99) worst = { kind, p99 };
  }
  return {
    ...{ qps, p50: percentile(all, 50), p99: percentile(all, 99), worst, st },
    windows: windows(timeline),
    ...{ main: perSearch('main'), postgres: perSearch('postgres'), machine: perSearch('machine') },
    cpu: cpuPer(cpu0, cpu1, { n, label: 'search' }),
  };
}

async function loadGenerator({ port, token, databaseUrl }) {
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {});
  const loader = createClient({ port, token });
  const writes = createWrites({ client: loader, sql });
  const df = newDf();
  for (let i = 0; i < DOCS; i++) makeDoc(i, df);
  const kinds = chooseQueryKinds(df);
  const mix = MIX
    ? buildMix({ df, oracle: oracleQueries(NOW), count: MIX_QUERIES }).sends.map((s) => ({
        kind: 'mix',
        params: s.params,
      }))
    : null;
  const A = AFTER_LOAD ? null : await loader.newCollection();
  if (A) {
    report(`adding ${DOCS} documents through variant A ...`);
    await writes.addRange(A, { n: DOCS, docAt: (i) => makeDoc(i), label: 'adds' });
    await writes.foldCaughtUp('the load');
    await ask('vacuum');
  }

  const results = { A: [], B: [] };
  /** numfound per kind, from the first variant measured */
  const numfound = new Map();
  const checkNumfound = async (client, c, name) => {
    for (const k of kinds) {
      const res = await client.search(c, k);
      const n = numfoundOf(res) ?? res.status;
      if (!numfound.has(k.kind)) numfound.set(k.kind, n);
      else if (numfound.get(k.kind) !== n)
        throw new Error(
          `${k.kind}: variant ${name} numfound ${n}, the other ${numfound.get(k.kind)}`,
        );
    }
  };
  // settled: round 0 warms both variants and the load generator up and is not counted (the
  // first minute after a load, autovacuum and the generator's own JIT, was a fifth slower in
  // trials); right after a load, every round loads its own collection and counts
  const first = AFTER_LOAD ? 1 : 0;
  for (let round = first; round <= ROUNDS; round++) {
    const order = round % 2 ? ['A', 'B'] : ['B', 'A'];
    for (const name of order) {
      const { port: p } = await ask({ variant: name, fresh: MIX });
      const client = createClient({ port: p, token });
      let c = A;
      if (AFTER_LOAD) {
        c = await client.newCollection();
        await writes.addRange(c, {
          n: DOCS,
          docAt: (i) => makeDoc(i),
          label: `round ${round}, ${name}: adds`,
          via: client,
        });
      } else {
        await checkNumfound(client, c, name);
        if (!mix)
          await inParallel(COUNT / 10, CONCURRENCY, (i) =>
            client.search(c, kinds[i % kinds.length], { body: false }),
          );
      }
      const r = await measureRound(client, c, kinds, mix);
      if (round > 0) results[name].push(r);
      report(
        `round ${round}${round ? '' : ' (not counted)'}, ${name}: ${Math.round(r.qps)} searches/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms` +
          `${mix ? '' : `, worst kind p99 ${r.worst.p99.toFixed(1)} ms (${r.worst.kind})`}${r.cpu}; GC ${r.st.gcCount} pauses (${r.st.gcMajor} major), event-loop max ${r.st.delayMax.toFixed(0)} ms\n` +
          `  p99 by 5 s window: ${r.windows}`,
      );
      if (AFTER_LOAD) {
        await writes.foldCaughtUp(`round ${round}, ${name}`);
        await checkNumfound(client, c, name);
        const dropped = await client.deleteCollection(c);
        if (dropped.status !== 204) throw new Error(`delete: ${dropped.status} ${dropped.body}`);
        await ask('vacuum');
      }
      client.close();
    }
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const row = (label, f, digits = 1) => {
    const a = median(results.A.map(f));
    const b = median(results.B.map(f));
    report(
      `  ${label.padEnd(26)} A ${a.toFixed(digits).padStart(8)}  B ${b.toFixed(digits).padStart(8)}  B/A ${(b / a).toFixed(3)}`,
    );
  };
  report(
    `\nmedians of ${ROUNDS} rounds (${mix ? `the wide mix, ${mix.length}` : `${COUNT}`} searches each, ${mix ? '' : `${kinds.length} kinds, `}${DOCS} documents):`,
  );
  row('searches/s', (r) => r.qps, 0);
  row('p50 ms', (r) => r.p50);
  row(mix ? 'p99 ms' : 'p99 ms (all kinds)', (r) => r.p99);
  if (!mix) row('worst kind p99 ms', (r) => r.worst.p99);
  row('service thread ms/search', (r) => r.main, 3);
  row('PostgreSQL ms/search', (r) => r.postgres, 3);
  row('machine ms/search', (r) => r.machine, 3);
  loader.close();
  await sql.end();
}

if (isLoadGenerator()) runAsLoadGenerator(() => loadGenerator(loadGeneratorData()));
else
  main().catch((err) => {
    process.stderr.write(`ab bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
