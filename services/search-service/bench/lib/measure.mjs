// Figures: percentiles, CPU time per operation (Linux /proc), and n tasks at a concurrency.
import fs from 'node:fs';

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
export const fmt = (ms) => ms.toFixed(1).padStart(7);
/** bytes in MB, as text */
export const mb = (b) => (b / 2 ** 20).toFixed(0);

/**
 * user + system CPU of a /proc stat line, in ms (USER_HZ = 100 on Linux); withChildren: also
 * that of its ended children it has waited for (a backend's CPU moves to the postmaster's
 * when it exits, so a sum over PostgreSQL's processes never goes back)
 */
function statCpu(stat, withChildren = false) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = withChildren ? Number(f[13]) + Number(f[14]) : 0;
  return (Number(f[11]) + Number(f[12]) + children) * 10;
}

/**
 * CPU time so far, in ms (Linux /proc; null elsewhere), read by the load generator: the
 * service's main thread (the first thread of the service's process, the generator's parent),
 * the service's other threads (the folder, the thumbnails' resizing, V8's and libuv's
 * helpers: the whole process but its main thread), the PostgreSQL processes (with their ended
 * backends), and the whole machine (every core, every process).
 */
export function cpuTimes() {
  const service = process.ppid;
  try {
    const main = statCpu(fs.readFileSync(`/proc/${service}/task/${service}/stat`, 'utf8'));
    const whole = statCpu(fs.readFileSync(`/proc/${service}/stat`, 'utf8'));
    const cpu = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const machine = (cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6]) * 10;
    let postgres = 0;
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (st.includes('(postgres)')) postgres += statCpu(st, true);
      } catch {
        // gone
      }
    }
    return { main, others: whole - main, machine, postgres };
  } catch {
    return null;
  }
}
/** "CPU per op: service thread x ms, …" between two cpuTimes() readings */
export function cpuPer(before, after, ops) {
  if (!before || !after) return '';
  const per = (k) => ((after[k] - before[k]) / ops.n).toFixed(2);
  return (
    `; CPU per ${ops.label}: service thread ${per('main')} ms, its other threads ${per('others')} ms, ` +
    `PostgreSQL ${per('postgres')} ms, machine ${per('machine')} ms`
  );
}

/** work(0) … work(n - 1), at most `concurrency` at a time */
export async function inParallel(n, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

export const WINDOW_MS = 5000;

/**
 * "41.2 38.0 …": the p99 of the searches that ended in each WINDOW_MS of a measurement (is
 * a tail spread over the measurement, or in its first seconds, after a load?)
 */
export function windows(timeline) {
  const by = [];
  for (const [at, ms] of timeline) (by[Math.floor(at / WINDOW_MS)] ??= []).push(ms);
  return by
    .map((l) =>
      l
        ? percentile(
            l.sort((a, b) => a - b),
            99,
          ).toFixed(1)
        : '-',
    )
    .join(' ');
}
