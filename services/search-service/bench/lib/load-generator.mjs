// The load generator, in a child process (its HTTP work stays off the service's process):
// the phases of search-bench.mjs, against the service the main thread runs (host.mjs).
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { makeDoc, newDf, NOW } from '../data.mjs';
import { createClient } from './client.mjs';
import { createDatabaseActivity } from './database-activity.mjs';
import { createFolderActivity, watchAll } from './folder-activity.mjs';
import { runIsolation } from './isolation.mjs';
import { buildMix } from './mix.mjs';
import { mb } from './measure.mjs';
import { createModel, oracleQueries } from './oracle.mjs';
import { chooseQueryKinds, countExpected, countSpacing } from './query-kinds.mjs';
import { createSearches } from './searches.mjs';
import { CONCURRENCY, DOCS, dist, ISOLATION, MIX_QUERIES, WRITE_RATE } from './settings.mjs';
import { reportSummary } from './summary.mjs';
import { ask, report } from './worker-link.mjs';
import { createStatementStats } from './statement-stats.mjs';
import { startWriter } from './writer.mjs';
import { createWrites } from './writes.mjs';

function* corpus(n) {
  for (let i = 0; i < n; i++) yield makeDoc(i);
}

export async function loadGenerator({ port, token, databaseUrl }) {
  const analyser = {
    ...(await import(path.join(dist, 'index/analyser.js'))),
    ...(await import(path.join(dist, 'index/prefix-expansion.js'))),
  };
  const client = createClient({ port, token });
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {}); // a connection the bench's database drop cut
  // what PostgreSQL and the service's folder did meanwhile, below each measurement
  const activity = watchAll(createDatabaseActivity(databaseUrl), createFolderActivity(client));
  const writes = createWrites({ client, sql, activity });
  const { addRange, foldCaughtUp, indexSizes } = writes;

  // ---- before anything is measured: the query kinds (words chosen by document frequency,
  // counts by brute force with the service's analyser), the oracle queries, the wide mix
  report(`making the ${DOCS} documents' word counts, then counting the query kinds' matches ...`);
  const df = newDf();
  let bytes = 0;
  for (let i = 0; i < DOCS; i++) bytes += Buffer.byteLength(makeDoc(i, df).doc);
  const kinds = chooseQueryKinds(df);
  const spacing = countSpacing(kinds, await import(path.join(dist, 'index/query-plan.js')));
  countExpected(kinds, corpus(DOCS), analyser, spacing.add);
  spacing.finish();
  const oracle = oracleQueries(NOW);
  const mix = buildMix({ df, oracle, count: MIX_QUERIES });
  report(
    `average document ${Math.round(bytes / DOCS)} bytes; ${kinds.length} query kinds; ` +
      `wide mix: ${mix.distinct} distinct queries (${oracle.length} oracle queries among them, each in two forms), ${mix.sends.length} sends`,
  );
  const statements = createStatementStats(sql); // BENCH_PG_STATEMENTS
  const searches = createSearches({ client, kinds, activity, statements });
  const { checkCounts, checkOracle, measure, measureMix } = searches;
  const checks = { oracle: 0, wrong: [] };
  const tally = (r) => {
    checks.oracle += r.checked;
    checks.wrong.push(...r.wrong);
    return r;
  };
  /** the wide mix on c while a writer writes to it at WRITE_RATE, then every oracle query */
  async function mixWithWrites(c, model, label) {
    await statements.reset();
    const writer = startWriter({ client, c, model, rate: WRITE_RATE });
    const m = tally(await measureMix(c, label, mix, model));
    const w = await writer.stop();
    await statements.print(label, mix.sends.length, 16);
    report(`  ${w.text}`);
    tally(await checkOracle(c, model, oracle, `${label}, its writes done`));
    return { ...m, writer: w };
  }
  await new Promise((r) => setTimeout(r, 2000)); // the counting's garbage, before measuring

  // ---- the floor: a bare node:http server that only INSERTs, in the same PostgreSQL
  const floor = await writes.measureFloor(token);

  // ---- collection A, then what users see right after the load
  const A = await client.newCollection();
  const modelA = createModel(oracle);
  report(`\nadding ${DOCS} documents to collection A at concurrency ${CONCURRENCY} ...`);
  await statements.reset(); // BENCH_PG_STATEMENTS: where PostgreSQL's time goes
  await ask({ profile: 'start', label: 'the adds to A' }); // BENCH_CPU_PROFILE: where the service thread's time goes
  const addsA = await addRange(A, {
    n: DOCS,
    docAt: (i) => makeDoc(i),
    label: 'adds to A',
    model: modelA,
  });
  await ask({ profile: 'stop' });
  await statements.print('the adds to A', DOCS);
  const loaded = performance.now();
  const since = () => `${((performance.now() - loaded) / 1000).toFixed(1)} s after the load`;
  const pendingNow = async () =>
    (await sql.query('SELECT count(*)::int AS n FROM search_pending')).rows[0].n;
  report(
    `\nRIGHT AFTER THE LOAD (no settling, no warm-up), at concurrency ${CONCURRENCY}; ${await pendingNow()} documents not folded yet`,
  );
  const rightAfter = await measure(A, `query kinds, right after the load (from ${since()})`, {
    warmUp: false,
  });
  await checkCounts(A, 'A right after the load');
  tally(await checkOracle(A, modelA, oracle, 'A right after the load'));
  const mixRight = await mixWithWrites(
    A,
    modelA,
    `wide mix with writes, right after the load (from ${since()})`,
  );

  // ---- settled: folds and merges done, VACUUM ANALYZE, CHECKPOINT
  await foldCaughtUp('after A');
  await ask('vacuum');
  const sizeA = await indexSizes();
  report(
    `\nSETTLED. storage of A (VACUUM ANALYZE): index tables ${mb(sizeA.index_bytes)} MB, documents ${mb(sizeA.doc_bytes)} MB`,
  );
  const settled = await measure(A, 'query kinds, settled: A alone, before B');
  const mixSettled = await mixWithWrites(A, modelA, 'wide mix with writes, settled');

  const iso = ISOLATION
    ? await runIsolation({ A, client, writes, searches, oracle, tally, before: settled, kinds })
    : null;
  if (!iso) report('\nISOLATION not run (--isolation 0)');
  tally(await checkOracle(A, modelA, oracle, 'A at the end'));

  const rss = await ask('rss');
  const sizes = await indexSizes();
  report(
    `\nmemory: the service's process ${mb(rss)} MB RSS (the load generator is a process of its own); ` +
      `index tables on disk ${mb(sizes.index_bytes)} MB beside documents ${mb(sizes.doc_bytes)} MB`,
  );
  const startup = await ask({ startInstance: true, path: client.searchPath(A, kinds[0]) });
  report(
    `\nstart-up of a second instance (A: ${modelA.size()} documents): listening after ${startup.listenMs.toFixed(0)} ms, ` +
      `first search answered after ${startup.firstSearchMs.toFixed(0)} ms (cold cache)`,
  );

  reportSummary({
    ...{
      floor,
      addsA,
      rightAfter,
      mixRight,
      settled,
      mixSettled,
      iso,
      checks,
      startup,
      mix,
      kinds,
    },
    refused: client.refused,
    failed: client.failed,
    memory: { serviceRss: rss, indexBytes: sizes.index_bytes },
  });
  await sql.end();
  await activity.close();
  client.close();
  // a wrong answer fails the run; a failed search (a 503 of an overloaded machine) is a row
  if (checks.wrong.length)
    throw new Error(`${checks.wrong.length} numfound answers outside the oracle's range`);
}
