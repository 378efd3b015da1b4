// The load generator, in a worker thread (its HTTP work stays off the service's event loop):
// steps 3 to 6 of search-bench.mjs, against the service the main thread runs (host.mjs).
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { makeDoc } from '../data.mjs';
import { createClient } from './client.mjs';
import { fmt, percentile } from './measure.mjs';
import { chooseQueryKinds, countExpected } from './query-kinds.mjs';
import { createSearches } from './searches.mjs';
import { CONCURRENCY, DOCS, dist, EXTRA_ADDS, SEARCHES } from './settings.mjs';
import { reportStartup, reportSummary } from './summary.mjs';
import { ask, report } from './worker-link.mjs';
import { createWrites } from './writes.mjs';

const mb = (b) => (b / 2 ** 20).toFixed(0);

export async function loadGenerator({ port, token, databaseUrl }) {
  const analyser = await import(path.join(dist, 'index/analyser.js'));
  const client = createClient({ port, token });
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  sql.on('error', () => {}); // a connection the bench's database drop cut
  const { addRange, foldCaughtUp, indexSizes } = createWrites({ client, sql });

  const docs = Array.from({ length: DOCS + 2 * EXTRA_ADDS }, (_, i) => makeDoc(i));
  const corpus = docs.slice(0, DOCS);

  // ---- the query kinds, words chosen by document frequency, counts by brute force
  const kinds = chooseQueryKinds();
  report(`counting the expected numfound of ${kinds.length} kinds by brute force ...`);
  countExpected(kinds, corpus, analyser);
  const { checkCounts, measure, keepSearching } = createSearches({ client, kinds });

  // the load generator's own garbage from counting is collected before anything is measured
  await new Promise((r) => setTimeout(r, 2000));

  // ---- collection A
  const A = await client.newCollection();
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

  await checkCounts(A, 'A alone');
  report(
    `\nsearching A: ${SEARCHES} searches at concurrency ${CONCURRENCY}, ${kinds.length} kinds in turn`,
  );
  const alone = await measure(A);
  report(`throughput ${Math.round(alone.qps)} searches/s${alone.cpu}`);

  // ---- tenant isolation: B of the same size and corpus
  const B = await client.newCollection();
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
  const searchingB = keepSearching(B, CONCURRENCY);
  const extraBusy = await addRange(
    A,
    docs.slice(DOCS + EXTRA_ADDS, DOCS + 2 * EXTRA_ADDS),
    'adds to A while B is searched',
  );
  const bSearches = await searchingB.stop();
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
  const searchingA = keepSearching(A, 4);
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const dropped = await client.deleteCollection(B);
  const dropSeconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  const duringDrop = await searchingA.stop();
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
    path: client.searchPath(A, kinds[0]),
  });
  reportStartup(startup);

  reportSummary({ addsA, worstAlone, isolation, writeRatio, longestPause, startup });
  await sql.end();
  client.close();
}
