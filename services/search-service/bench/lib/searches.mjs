// Searches: numfound checked (query kinds against the brute-force counts, oracle queries
// against the bench's model), and measurements: p50/p99 per kind, the wide mix with a writer
// running, throughput, CPU, the service thread's stalls and the load generator's own load.
import { performance } from 'node:perf_hooks';
import { cpuPer, cpuTimes, inParallel, percentile, WINDOW_MS, windows } from './measure.mjs';
import { CONCURRENCY, searchesPerMeasurement } from './settings.mjs';
import { createOwnLoad } from './stalls.mjs';
import { ask, report } from './worker-link.mjs';

/** the answer's numfound; null when the search failed (client.failed has it) */
export const numfoundOf = (res) =>
  res.status === 200 ? JSON.parse(res.body.toString()).numfound : null;

/**
 * client: client.mjs; kinds: query-kinds.mjs (with expected counts); activity (optional):
 * folder-activity.mjs watchAll of database-activity.mjs and the folder's, so that each
 * measurement says what PostgreSQL and the folder did meanwhile; statements (optional):
 * statement-stats.mjs, so that each measurement of the query kinds prints its statements' time
 * per search (BENCH_PG_STATEMENTS; A before, with B loaded and after tell where B's cost is)
 */
export function createSearches({ client, kinds, activity, statements }) {
  /** the load generator's own load during each measurement */
  const own = createOwnLoad();
  async function checkCounts(c, label) {
    const wrong = [];
    for (const k of kinds) {
      const numfound = numfoundOf(await client.search(c, k));
      if (numfound !== k.expected)
        wrong.push(`${k.kind}: numfound ${numfound}, expected ${k.expected}`);
    }
    if (wrong.length) throw new Error(`numfound mismatch (${label}):\n  ${wrong.join('\n  ')}`);
    report(`numfound of every kind equals the brute-force count (${label})`);
  }

  /**
   * one search of an oracle query: { ok, text } (numfound within the model's range over the
   * search's time); model: oracle.mjs createModel
   */
  async function oracleSearch(c, model, params, id) {
    const watch = model.watch(id);
    const numfound = numfoundOf(await client.search(c, { kind: 'oracle', params }));
    const { low, high } = watch.end();
    const ok = numfound === null || (numfound >= low && numfound <= high);
    return { ok, text: `q=${JSON.stringify(params)}: numfound ${numfound}, oracle ${low}–${high}` };
  }

  /** every oracle query once, nothing else running: { checked, wrong: [text] } */
  async function checkOracle(c, model, queries, label) {
    const wrong = [];
    for (const [id, q] of queries.entries()) {
      const r = await oracleSearch(c, model, q.params, id);
      if (!r.ok) wrong.push(r.text);
    }
    report(
      `numfound of ${queries.length} oracle queries (${label}): ${wrong.length ? `${wrong.length} WRONG:\n  ${wrong.slice(0, 10).join('\n  ')}` : 'every one within the oracle'}`,
    );
    return { checked: queries.length, wrong };
  }

  /** runs sends (n searches) at CONCURRENCY and reports the stalls; { qps, elu, generatorGcMax } */
  async function timed(n, label, send) {
    const refused0 = client.refused;
    const failed0 = client.failed.length;
    const cpu0 = cpuTimes();
    await ask('stalls-start');
    await activity?.start();
    await own.start();
    await ask({ profile: 'start', label }); // BENCH_CPU_PROFILE
    const t0 = performance.now();
    await inParallel(n, CONCURRENCY, send);
    const qps = n / ((performance.now() - t0) / 1000);
    await ask({ profile: 'stop' });
    const cpu = cpuPer(cpu0, cpuTimes(), { n, label: 'search' });
    const st = await ask('stalls-stop');
    const generator = await own.stop();
    const database = (await activity?.stop()) ?? '';
    report(
      `${label}: ${Math.round(qps)} searches/s${cpu}; ${client.refused - refused0} answered 429 (sent again after 1 s), ${client.failed.length - failed0} failed${client.failed.length > failed0 ? ` (${client.failed[failed0]})` : ''}; ${generator.text}\n` +
        `  service thread meanwhile: event-loop delay p50 ${st.delayP50.toFixed(1)} ms, p99 ${st.delayP99.toFixed(1)} ms, max ${st.delayMax.toFixed(1)} ms; ` +
        `GC ${st.gcCount} pauses, ${st.gcTotal.toFixed(0)} ms in all, longest ${st.gcMax.toFixed(1)} ms (${st.gcMajor} major); heap used ${st.heapMb} MB` +
        (database && `\n  ${database}`),
    );
    return { qps, elu: generator.busy, generatorGcMax: generator.gcMax };
  }

  /** { per: kind → sorted latencies, qps, elu }; warmUp: a tenth first (not right after a load) */
  async function measure(c, label, { warmUp = true } = {}) {
    const searches = searchesPerMeasurement(kinds);
    const per = new Map(kinds.map((k) => [k.kind, []]));
    if (warmUp)
      await inParallel(Math.max(kinds.length * 4, searches / 10), CONCURRENCY, (i) =>
        client.search(c, kinds[i % kinds.length], { body: false }),
      );
    await statements?.reset();
    /** [when it ended (ms from the first send), latency] of every search, for the windows */
    const timeline = [];
    const start = performance.now();
    const t = await timed(searches, label, async (i) => {
      const k = kinds[i % kinds.length];
      const t0 = performance.now();
      await client.search(c, k, { body: false });
      const t1 = performance.now();
      per.get(k.kind).push(t1 - t0);
      timeline.push([t1 - start, t1 - t0]);
    });
    report(`  p99 of all kinds by ${WINDOW_MS / 1000} s window: ${windows(timeline)}`);
    await statements?.print(label, searches);
    for (const l of per.values()) l.sort((a, b) => a - b);
    const worst = Math.max(...[...per.values()].map((l) => percentile(l, 99)));
    const row = ([kind, l]) =>
      `${kind} ${percentile(l, 50).toFixed(1)}/${percentile(l, 99).toFixed(1)}`;
    report(`  per kind, p50/p99 ms: ${[...per.entries()].map(row).join('; ')}`);
    return { per, worst, ...t };
  }

  /** the wide mix (mix.mjs) on c, oracle queries checked against model: latencies, wrong */
  async function measureMix(c, label, { sends, distinct }, model) {
    const latencies = [];
    const wrong = [];
    let checked = 0;
    /** [when it ended (ms from the first send), latency] of every search, for the windows */
    const timeline = [];
    const start = performance.now();
    const t = await timed(sends.length, label, async (i) => {
      const s = sends[i];
      const t0 = performance.now();
      if (s.oracle === undefined)
        await client.search(c, { kind: 'mix', params: s.params }, { body: false });
      else {
        const r = await oracleSearch(c, model, s.params, s.oracle);
        checked++;
        if (!r.ok) wrong.push(r.text);
      }
      const t1 = performance.now();
      latencies.push(t1 - t0);
      timeline.push([t1 - start, t1 - t0]);
    });
    report(`  p99 of the mix by ${WINDOW_MS / 1000} s window: ${windows(timeline)}`);
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    report(
      `  ${distinct} distinct queries, ${sends.length} sent: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
        `${checked} oracle queries checked, ${wrong.length ? `${wrong.length} WRONG:\n    ${wrong.slice(0, 10).join('\n    ')}` : 'every numfound within the oracle'}`,
    );
    return { p50, p99, checked, wrong, ...t };
  }

  /** searches c with `clients` clients, kinds in turn, until stop(); returns { stop() → latencies } */
  function keepSearching(c, clients) {
    let searching = true;
    const latencies = [];
    const load = Promise.all(
      Array.from({ length: clients }, async (_, w) => {
        for (let i = w; searching; i += clients) {
          const t = performance.now();
          await client.search(c, kinds[i % kinds.length], { body: false });
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

  return { checkCounts, checkOracle, measure, measureMix, keepSearching };
}
