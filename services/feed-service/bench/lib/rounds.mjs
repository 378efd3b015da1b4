// Step 3's main comparison: the service's cached 200 against the bare server, in
// FEED_BENCH_ROUNDS interleaved rounds; per format the median ratio and its spread.
import { CONNECTIONS, DURATION, log, ROUNDS, SLICES, WARMUP } from './settings.mjs';
import { median, spread } from './stats.mjs';

const LABEL = { json: 'JSON', xml: 'RSS ' };

/**
 * pairs: { json, xml } of [bare case, service case], each case the arguments of load()
 * (name, server, url, headers, expected status). Prints each round and the medians; returns
 * { appCpus: { json, xml } }, the service's CPU per request of each round.
 */
export async function cachedVsBare(load, pairs) {
  log(
    `\ncached 200 vs bare: autocannon, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds; a round gives each server ${DURATION} s per format, as ${SLICES} slices of ${(DURATION / SLICES).toFixed(2)} s each in A-B-B-A-A-B… order (+${WARMUP} s warm-up before its first)`,
  );
  const ratios = { json: [], xml: [] };
  const cpuRatios = { json: [], xml: [] };
  const rates = { json: { bare: [], app: [] }, xml: { bare: [], app: [] } };
  const appCpus = { json: [], xml: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const format of ['json', 'xml']) {
      const [bareCase, appCase] = pairs[format];
      const { b, a } = await oneRound(load, round, bareCase, appCase);
      const [bareRps, appRps] = [b.total / b.seconds, a.total / a.seconds];
      const [bareCpu, appCpu] = [b.cpu / b.total, a.cpu / a.total];
      ratios[format].push(appRps / bareRps);
      cpuRatios[format].push(bareCpu / appCpu);
      rates[format].bare.push(bareRps);
      rates[format].app.push(appRps);
      appCpus[format].push(appCpu);
      log(
        `  round ${round}/${ROUNDS} ${LABEL[format]}: bare ${String(Math.round(bareRps)).padStart(6)} req/s (${bareCpu.toFixed(1)} µs CPU/req), service ${String(Math.round(appRps)).padStart(6)} req/s (${appCpu.toFixed(1)} µs CPU/req): ratio ${(appRps / bareRps).toFixed(2)}, CPU ratio ${(bareCpu / appCpu).toFixed(2)}${a.bad + b.bad ? `   (${a.bad + b.bad} unexpected!)` : ''}`,
      );
    }
  }
  log(`\nresults (median of ${ROUNDS} rounds, spread min–max)`);
  for (const format of ['json', 'xml']) {
    const summary = {
      ratio: median(ratios[format]),
      cpuRatio: median(cpuRatios[format]),
      bare: median(rates[format].bare),
      app: median(rates[format].app),
    };
    log(
      `  cached 200 ${LABEL[format]} / bare: req/s ratio ${summary.ratio.toFixed(2)} (${spread(ratios[format], 2)})   server-CPU ratio ${summary.cpuRatio.toFixed(2)} (${spread(cpuRatios[format], 2)})   service ${Math.round(summary.app)} req/s (${spread(rates[format].app, 0)}), bare ${Math.round(summary.bare)} req/s (${spread(rates[format].bare, 0)})   (target >= 0.9, stretch 0.95)`,
    );
  }
  return { appCpus };
}

/**
 * One round of one format: FEED_BENCH_SLICES short slices in A-B-B-A-A-B-B-A … order (B-A-A-B
 * … the next round), so that a change in the machine's speed within the round weighs on both
 * servers alike. Returns each server's sums { total, seconds, cpu, bad } as b (bare), a (app).
 */
async function oneRound(load, round, bareCase, appCase) {
  const pair = round % 2 ? [bareCase, appCase] : [appCase, bareCase];
  const order = Array.from({ length: SLICES }, (_, i) =>
    i % 2 === 0 ? pair : [pair[1], pair[0]],
  ).flat();
  const sum = new Map([
    [bareCase, { total: 0, seconds: 0, cpu: 0, bad: 0, warm: false }],
    [appCase, { total: 0, seconds: 0, cpu: 0, bad: 0, warm: false }],
  ]);
  for (const args of order) {
    const s = sum.get(args);
    const row = await load(...args, undefined, {
      duration: DURATION / SLICES,
      print: false,
      warmup: !s.warm,
    });
    s.warm = true;
    s.total += row.total;
    s.seconds += row.seconds;
    s.cpu += row.cpu;
    s.bad += row.bad;
  }
  return { b: sum.get(bareCase), a: sum.get(appCase) };
}
