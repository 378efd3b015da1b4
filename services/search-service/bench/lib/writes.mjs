// Writes and what they leave: adds over HTTP (adds/s, p50, p99), waiting for the fold and
// merges to settle, the size of the index tables.
import { performance } from 'node:perf_hooks';
import { cpuPer, cpuTimes, inParallel, percentile } from './measure.mjs';
import { CONCURRENCY } from './settings.mjs';
import { report } from './worker-link.mjs';

/** client: client.mjs; sql: a pg pool on the bench's database */
export function createWrites({ client, sql }) {
  /** adds the documents of list to collection c; returns adds/s and latencies */
  async function addRange(c, list, label, concurrency = CONCURRENCY) {
    const latencies = [];
    let failures = 0;
    const cpu0 = cpuTimes();
    const started = performance.now();
    await inParallel(list.length, concurrency, async (i) => {
      const d = list[i];
      const body = `apikey=${c.apikey}&dockey=${encodeURIComponent(d.dockey)}&doc=${encodeURIComponent(d.doc)}`;
      const t = performance.now();
      const res = await client.send('POST', `/v2/${c.cid}/docs`, body);
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

  /** { index_bytes, doc_bytes } */
  const indexSizes = async () =>
    (
      await sql.query(
        `SELECT sum(pg_total_relation_size(c.oid))::float8 AS index_bytes,
                (SELECT pg_total_relation_size('documents'))::float8 AS doc_bytes
         FROM pg_class c WHERE c.relname IN ('search_pending', 'search_docnos', 'search_tombstones',
           'search_deleted', 'search_segments', 'search_postings', 'search_index_state')`,
      )
    ).rows[0];

  return { addRange, foldCaughtUp, indexSizes };
}
