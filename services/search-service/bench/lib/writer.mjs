// A writer at a fixed rate: adds of new documents, replacements (update, the whole doc) and
// deletes of live ones, in turn (2 : 2 : 1), each op started on its tick whatever the others
// are doing (at most 64 in flight), never two on the same dockey at once. Every op goes
// through the collection's model (oracle.mjs) so the oracle knows what is in flight.
import { performance } from 'node:perf_hooks';
import { makeDoc } from '../data.mjs';
import { percentile } from './measure.mjs';

let nextContent = 50_000_000; // documents of the writers: made by makeDoc, beyond any corpus
const OPS = ['add', 'update', 'add', 'update', 'delete'];

/** client: client.mjs; starts writing to collection c (model: its oracle model) at rate/s */
export function startWriter({ client, c, model, rate }) {
  const busy = new Set();
  const done = { add: 0, update: 0, delete: 0, failed: 0, skipped: 0 };
  const latencies = [];
  const inFlight = new Set();
  const t0 = performance.now();
  let tick = 0;
  let seed = 12345;
  const r = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 0x100000000;
  const form = (fields) =>
    Object.entries(fields)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');

  function op(kind) {
    let dockey;
    if (kind === 'add') dockey = `w-${nextContent}`;
    else {
      dockey = model.anyLive(r);
      if (dockey === undefined || busy.has(dockey)) return void done.skipped++;
    }
    busy.add(dockey);
    let send;
    let ack;
    if (kind === 'delete') {
      ack = model.remove(dockey);
      send = client.send('DELETE', `/v2/${c.cid}/docs?${form({ apikey: c.apikey, dockey })}`);
    } else {
      const { doc } = makeDoc(nextContent++);
      ack = model.put(dockey, doc);
      const method = kind === 'add' ? 'POST' : 'PUT';
      send = client.send(method, `/v2/${c.cid}/docs`, form({ apikey: c.apikey, dockey, doc }));
    }
    const t = performance.now();
    const p = send
      .then(
        (res) => res.status === 200,
        () => false,
      )
      .then((ok) => {
        latencies.push(performance.now() - t);
        ack(ok);
        busy.delete(dockey);
        done[ok ? kind : 'failed']++;
        inFlight.delete(p);
      });
    inFlight.add(p);
  }

  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    while (tick < due) {
      if (inFlight.size < 64) op(OPS[tick % OPS.length]);
      else done.skipped++;
      tick++;
    }
  }, 5);

  return {
    /** stops, waits for every op in flight; { rate (done/s), adds, updates, deletes, ... } */
    async stop() {
      clearInterval(timer);
      const seconds = (performance.now() - t0) / 1000;
      await Promise.all([...inFlight]);
      latencies.sort((a, b) => a - b);
      const ops = done.add + done.update + done.delete;
      return {
        ...done,
        rate: ops / seconds,
        p99: percentile(latencies, 99),
        text:
          `writer: ${(ops / seconds).toFixed(1)} writes/s (asked ${rate}/s): ${done.add} adds, ${done.update} replacements, ` +
          `${done.delete} deletes in ${seconds.toFixed(1)} s; p99 ${percentile(latencies, 99).toFixed(1)} ms; ${done.failed} failed, ${done.skipped} skipped`,
      };
    },
  };
}
