// Writes and what they leave: adds over HTTP (adds/s, p50, p99, the first and last tenth),
// the same adds to the bare-INSERT floor, waiting for the fold and merges to settle, the size
// of the index tables.
import { performance } from 'node:perf_hooks';
import { makeDoc } from '../data.mjs';
import { createClient } from './client.mjs';
import { cpuPer, cpuTimes, inParallel, percentile } from './measure.mjs';
import { CONCURRENCY, FLOOR_DOCS, FLOOR_LEAD_DOCS } from './settings.mjs';
import { createOwnLoad } from './stalls.mjs';
import { ask, report } from './worker-link.mjs';

/**
 * client: client.mjs; sql: a pg pool on the bench's database; activity (optional):
 * folder-activity.mjs watchAll of database-activity.mjs and the folder's, so that each range of
 * adds says what PostgreSQL and the folder did meanwhile
 */
export function createWrites({ client, sql, activity }) {
  /** the load generator's own load during adds */
  const own = createOwnLoad();
  /**
   * adds documents 0 … n - 1 (docAt(i): { dockey, doc }) to collection c, each through model
   * (oracle.mjs) when given; returns adds/s, p50, p99 and the rate of the first and the last
   * tenth of the adds (does a growing collection keep its rate?). via: another client (the
   * bare-INSERT floor's server).
   */
  async function addRange(c, { n, docAt, label, model, via = client, concurrency = CONCURRENCY }) {
    const latencies = [];
    const finished = new Float64Array(n);
    let count = 0;
    let failures = 0;
    const cpu0 = cpuTimes();
    await activity?.start();
    await own.start();
    const started = performance.now();
    await inParallel(n, concurrency, async (i) => {
      const d = docAt(i);
      const body = `apikey=${c.apikey}&dockey=${encodeURIComponent(d.dockey)}&doc=${encodeURIComponent(d.doc)}`;
      const ack = model?.put(d.dockey, d.doc);
      const t = performance.now();
      const res = await via.send('POST', `/v2/${c.cid}/docs`, body);
      latencies.push(performance.now() - t);
      finished[count++] = performance.now();
      ack?.(res.status === 200);
      if (res.status !== 200 && failures++ < 5)
        report(`  add ${d.dockey}: ${res.status} ${res.body}`);
    });
    const seconds = (performance.now() - started) / 1000;
    const generator = await own.stop();
    const database = (await activity?.stop()) ?? '';
    latencies.sort((a, b) => a - b);
    const rate = n / seconds;
    const tenth = Math.max(1, Math.floor(n / 10));
    const first = tenth / ((finished[tenth - 1] - started) / 1000);
    const last = tenth / ((finished[n - 1] - finished[n - 1 - tenth]) / 1000);
    report(
      `${label}: ${n} in ${seconds.toFixed(1)} s = ${Math.round(rate)} adds/s ` +
        `(p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${failures} failed; ` +
        `first tenth ${Math.round(first)}/s, last tenth ${Math.round(last)}/s)` +
        cpuPer(cpu0, cpuTimes(), { n, label: 'add' }) +
        `; ${generator.text}` +
        (database && `\n  ${database}`),
    );
    if (failures) throw new Error(`${failures} adds failed`);
    return { rate, p50: percentile(latencies, 50), p99: percentile(latencies, 99), first, last };
  }

  /**
   * adds/s of the bare-INSERT floor (floor.mjs, on the main thread) with the same documents,
   * after a lead of FLOOR_LEAD_DOCS adds that is not counted (its own collection id, so the
   * measured adds insert the same keys as without it)
   */
  async function measureFloor(token) {
    const { port } = await ask('floor-start');
    const via = createClient({ port, token });
    report(
      `\nthe bare-INSERT floor: ${FLOOR_DOCS} documents at concurrency ${CONCURRENCY}, after a lead of ${FLOOR_LEAD_DOCS} not counted ...`,
    );
    await addRange(
      { cid: 'floor-lead', apikey: '-' },
      {
        n: FLOOR_LEAD_DOCS,
        docAt: (i) => makeDoc(i),
        label: 'bare INSERTs, the lead (not counted)',
        via,
      },
    );
    const floor = await addRange(
      { cid: 'floor', apikey: '-' },
      { n: FLOOR_DOCS, docAt: (i) => makeDoc(i), label: 'bare INSERTs', via },
    );
    via.close();
    await ask('floor-stop');
    return floor;
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

  return { addRange, measureFloor, foldCaughtUp, indexSizes };
}
