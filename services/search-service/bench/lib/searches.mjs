// Searches of every query kind: numfound checked against the brute-force counts, and a
// measurement (p50/p99 per kind, throughput, CPU, the service thread's stalls meanwhile).
import { performance } from 'node:perf_hooks';
import { cpuPer, cpuTimes, inParallel } from './measure.mjs';
import { CONCURRENCY, SEARCHES } from './settings.mjs';
import { ask, report } from './worker-link.mjs';

/** client: client.mjs; kinds: query-kinds.mjs (with expected counts) */
export function createSearches({ client, kinds }) {
  async function checkCounts(c, label) {
    const wrong = [];
    for (const k of kinds) {
      const numfound = JSON.parse((await client.search(c, k)).body.toString()).numfound;
      if (numfound !== k.expected)
        wrong.push(`${k.kind}: numfound ${numfound}, expected ${k.expected}`);
    }
    if (wrong.length) throw new Error(`numfound mismatch (${label}):\n  ${wrong.join('\n  ')}`);
    report(`numfound of every kind equals the brute-force count (${label})`);
  }

  /** { per: kind → sorted latencies, qps, cpu (text) } */
  async function measure(c) {
    const per = new Map(kinds.map((k) => [k.kind, []]));
    // warm-up: JIT and caches (views, posting lists), a tenth of the measured searches
    await inParallel(Math.max(kinds.length * 4, SEARCHES / 10), CONCURRENCY, (i) =>
      client.search(c, kinds[i % kinds.length]),
    );
    const cpu0 = cpuTimes();
    await ask('stalls-start');
    const t0 = performance.now();
    await inParallel(SEARCHES, CONCURRENCY, async (i) => {
      const k = kinds[i % kinds.length];
      const t = performance.now();
      await client.search(c, k);
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

  /** searches c with `clients` clients, kinds in turn, until stop(); returns { stop() → latencies } */
  function keepSearching(c, clients) {
    let searching = true;
    const latencies = [];
    const load = Promise.all(
      Array.from({ length: clients }, async (_, w) => {
        for (let i = w; searching; i += clients) {
          const t = performance.now();
          await client.search(c, kinds[i % kinds.length]);
          latencies.push(performance.now() - t);
        }
      }),
    );
    return {
      async stop() {
        searching = false;
        await load;
        return latencies;
      },
    };
  }

  return { checkCounts, measure, keepSearching };
}
