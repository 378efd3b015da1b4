// Tenant isolation, with collection A loaded and measured alone (`before`): collection B with
// the same corpus is loaded; A is measured while B is loaded and written to at WRITE_RATE;
// adds to B alone and while 16 clients search A, in four interleaved parts (addsUnderSearch);
// B is deleted (admin API) while A is searched; A is measured alone again. Both ratios (B
// loaded / A before, B loaded / A after) tell B's effect from the machine's drift over the run.
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

  const { ratio: writeRatio, searchesMeanwhile } = await addsUnderSearch({
    A,
    B,
    modelB,
    addRange,
    keepSearching,
  });
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
  return { shared, after, ratioBefore, ratioAfter, writeRatio, searchesMeanwhile, longestPause };
}

/**
 * Adds to B alone and while CONCURRENCY clients search A: EXTRA_ADDS of each, in four parts of
 * half of them each, alone / searched / searched / alone, so that neither condition always
 * comes first, after a lead part (alone, not counted). Why: a part leaves the folds and merges
 * of its documents to the part after it, and a merge of tens of thousands of documents falls
 * where the segments' sizes put it; measured as one half alone, then one half searched, the
 * searched half always inherited the alone half's work, and the same code measured 0.63–0.89×
 * in one day (2026-11-27). Without the lead part, the first alone part inherited only the
 * trickle of B's writer while the other three inherited a part's adds: in one run the folder
 * thread took half a core more in the second part than in the first. With it, every counted
 * part inherits one part's adds, as continuous adds do. The ratio is of the two conditions'
 * rates over all their parts (adds ÷ seconds); with it, the p50 and p99 of A's searches
 * meanwhile (what A's users see while B loads).
 */
async function addsUnderSearch({ A, B, modelB, addRange, keepSearching }) {
  report(
    `\nadds to B alone and while ${CONCURRENCY} clients search A, in four parts after a lead part ...`,
  );
  const part = Math.max(1, Math.floor(EXTRA_ADDS / 2));
  const seconds = { alone: 0, searched: 0 };
  const aSearches = [];
  let from = DOCS;
  for (const [i, searched] of [null, false, true, true, false].entries()) {
    const label =
      searched === null
        ? 'adds to B alone (lead part, not counted: its folds and merges fall in part 1)'
        : `adds to B ${searched ? 'while A is searched' : 'alone'} (part ${i} of 4)`;
    const searching = searched ? keepSearching(A, CONCURRENCY) : null;
    const r = await addRange(B, { n: part, docAt: (k) => makeDoc(from + k), label, model: modelB });
    if (searching) aSearches.push(...(await searching.stop()));
    from += part;
    if (searched !== null) seconds[searched ? 'searched' : 'alone'] += part / r.rate;
  }
  // each condition had two parts: its rate is 2 × part adds over its seconds
  const ratio = seconds.alone / seconds.searched;
  aSearches.sort((a, b) => a - b);
  const searchesMeanwhile = { p50: percentile(aSearches, 50), p99: percentile(aSearches, 99) };
  const rate = (s) => Math.round((2 * part) / s);
  report(
    `adds to B: alone ${rate(seconds.alone)}/s, while A is searched ${rate(seconds.searched)}/s (ratio ${ratio.toFixed(2)}); ` +
      `A's searches meanwhile: ${aSearches.length} (p50 ${searchesMeanwhile.p50.toFixed(1)} ms, p99 ${searchesMeanwhile.p99.toFixed(1)} ms)`,
  );
  return { ratio, searchesMeanwhile };
}
