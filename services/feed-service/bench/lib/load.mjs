// One load: autocannon (programmatic) against one server, with the server's CPU time around
// it (asked of its process), as a row of figures.
import { cpuOf } from './processes.mjs';
import { CONNECTIONS, DURATION, log, require, WARMUP } from './settings.mjs';

/**
 * load(name, server, url, headers, expectStatus, requests?, { duration, print, warmup }?):
 * loads `server` (a child of processes.mjs) at url, after a warm-up of FEED_BENCH_WARMUP s
 * unless told not to, for `duration` s. Returns { name, rps, seconds, p50, p99, total, cpu,
 * cpuPerReq, bad } and prints it unless print is false.
 */
export function createLoader() {
  const autocannon = require('autocannon');
  // autocannon appends every response body to a JS string (lib/pipelinedRequestsQueue.js
  // addBody: \`req.body += data\`). For ~70 KB of Korean UTF-8 per response that decoding
  // caps the client near 2,500 req/s whatever the server does, hiding the servers'
  // differences. We check no bodies (no expectBody/verifyBody), so that accumulation is
  // switched off here; bytes are still counted. FEED_BENCH_KEEP_BODIES=1 keeps it.
  if (process.env.FEED_BENCH_KEEP_BODIES !== '1') {
    require('autocannon/lib/pipelinedRequestsQueue.js').prototype.addBody = function addBody() {};
  }
  return (...args) => load(autocannon, ...args);
}

async function load(
  autocannon,
  name,
  server,
  url,
  headers,
  expectStatus,
  requests,
  { duration = DURATION, print = true, warmup = true } = {},
) {
  // sampleInt: autocannon stops at a sample boundary (1 s by default), so a run of 1.5 s
  // would really last 2; the rate is taken over the run's real duration either way
  const opts = {
    url,
    connections: CONNECTIONS,
    headers,
    sampleInt: 100,
    ...(requests && { requests }),
  };
  if (warmup && WARMUP > 0) {
    const warm = await autocannon({ ...opts, duration: WARMUP });
    if (warm.errors) throw new Error(`${name}: ${warm.errors} errors in warm-up`);
  }
  const cpu0 = await cpuOf(server.process);
  const result = await autocannon({ ...opts, duration });
  const cpu = (await cpuOf(server.process)) - cpu0;
  const ok = expectStatus === 304 ? result['3xx'] : result['2xx'];
  const bad = result.requests.total - ok + result.errors + result.timeouts;
  const row = {
    name,
    rps: result.requests.total / result.duration,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    cpu,
    cpuPerReq: cpu / Math.max(1, result.requests.total),
    bad,
  };
  if (print) printRow(row);
  return row;
}

const printRow = (row) =>
  log(
    `  ${row.name.padEnd(44)} ${String(Math.round(row.rps)).padStart(7)} req/s   p50 ${String(row.p50).padStart(3)} ms   p99 ${String(row.p99).padStart(3)} ms   server CPU ${row.cpuPerReq.toFixed(1).padStart(6)} µs/req${row.bad ? `   (${row.bad} unexpected!)` : ''}`,
  );
