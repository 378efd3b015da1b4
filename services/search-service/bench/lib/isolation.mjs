// Tenant isolation, with collection A loaded and measured alone (`before`): collection B with
// the same corpus is loaded; A is measured while B is loaded and written to at WRITE_RATE;
// adds to B alone, then while 16 clients search A; B is deleted (admin API) while A is
// searched; A is measured alone again. Both ratios (B loaded / A before, B loaded / A after)
// tell B's effect from the machine's drift over the run.
import { performance } from 'node:perf_hooks';
import { makeDoc } from '../data.mjs';
import { fmt, mb, percentile } from './measure.mjs';
import { createModel } from './oracle.mjs';
import { CONCURRENCY, DOCS, EXTRA_ADDS, WRITE_RATE } from './settings.mjs';
import { ask, report } from './worker-link.mjs';
import { startWriter } from './writer.mjs';

export async function runIsolation({ A, client, writes, searches, oracle, tally, before, kinds }) {
  const { addRange, foldCaughtUp, indexSizes } = writes;
  const { checkCounts, checkOracle, measure, keepSearching } = searches;
  const B = await client.newCollection();
  const modelB = createModel(oracle);
  report(`\nISOLATION. adding the same ${DOCS} documents to collection B ...`);
  await addRange(B, { n: DOCS, docAt: (i) => makeDoc(i), label: 'adds to B', model: modelB });
  await foldCaughtUp('after B');
  await ask('vacuum');
  await checkCounts(B, 'B');
  const writerB = startWriter({ client, c: B, model: modelB, rate: WRITE_RATE });
  const shared = await measure(A, `query kinds of A with B loaded (B written at ${WRITE_RATE}/s)`);
  report(`  B's ${(await writerB.stop()).text}`);

  report(`\nadds to B alone, then while ${CONCURRENCY} clients search A ...`);
  const extra = (from, label) =>
    addRange(B, { n: EXTRA_ADDS, docAt: (i) => makeDoc(from + i), label, model: modelB });
  const extraAlone = await extra(DOCS, 'adds to B alone');
  const searchingA = keepSearching(A, CONCURRENCY);
  const extraBusy = await extra(DOCS + EXTRA_ADDS, 'adds to B while A is searched');
  const aSearches = (await searchingA.stop()).sort((a, b) => a - b);
  const writeRatio = extraBusy.rate / extraAlone.rate;
  report(
    `A's searches meanwhile: ${aSearches.length} (p99 ${percentile(aSearches, 99).toFixed(1)} ms); adds ratio ${writeRatio.toFixed(2)}`,
  );
  tally(await checkOracle(B, modelB, oracle, 'B after its writes'));
  await foldCaughtUp('after the extra adds');

  await ask('vacuum');
  const sizes = await indexSizes();
  report(
    `\nstorage, A and B (${modelB.size()} documents): index tables ${mb(sizes.index_bytes)} MB, documents ${mb(sizes.doc_bytes)} MB`,
  );
  const searching = keepSearching(A, 4);
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const dropped = await client.deleteCollection(B);
  const dropSeconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  const duringDrop = await searching.stop();
  if (dropped.status !== 204) throw new Error(`delete B: ${dropped.status} ${dropped.body}`);
  const longestPause = Math.max(...duringDrop);
  await ask('vacuum');
  report(
    `deleting B took ${dropSeconds.toFixed(1)} s; A's ${duringDrop.length} searches meanwhile (4 clients): longest ${longestPause.toFixed(1)} ms`,
  );
  const after = await measure(A, 'query kinds of A alone again (B deleted)');

  report(
    `\n${'query kind'.padEnd(20)} ${'numfound'.padStart(8)} | A before p50     p99 | B loaded p50     p99 | A after p50     p99 | ratios /before /after`,
  );
  for (const k of kinds) {
    const [a, s, z] = [before, shared, after].map((m) => m.per.get(k.kind));
    const p = (l, q) => fmt(percentile(l, q));
    report(
      `${k.kind.padEnd(20)} ${String(k.expected).padStart(8)} | ${p(a, 50)} ${p(a, 99)} | ${p(s, 50)} ${p(s, 99)} | ${p(z, 50)} ${p(z, 99)} | ` +
        `${(percentile(s, 99) / percentile(a, 99)).toFixed(2).padStart(6)} ${(percentile(s, 99) / percentile(z, 99)).toFixed(2).padStart(6)}`,
    );
  }
  const ratioBefore = shared.worst / before.worst;
  const ratioAfter = shared.worst / after.worst;
  report(
    `worst p99: A before ${before.worst.toFixed(1)} ms, with B loaded ${shared.worst.toFixed(1)} ms, A after ${after.worst.toFixed(1)} ms ` +
      `(ratios ${ratioBefore.toFixed(2)} and ${ratioAfter.toFixed(2)})`,
  );
  return { shared, after, ratioBefore, ratioAfter, writeRatio, longestPause };
}
