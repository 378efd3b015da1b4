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
 * CPU time so far, in ms (Linux /proc; null elsewhere): the service's main thread (this
 * process's first thread), the PostgreSQL processes (ended backends are not counted), and the
 * whole machine (every core, every process).
 */
export function cpuTimes() {
  try {
    const tick = 10; // USER_HZ = 100 on Linux
    const stat = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const main = (Number(f[11]) + Number(f[12])) * tick;
    const cpu = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const machine = (cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6]) * tick;
    let postgres = 0;
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!st.includes('(postgres)')) continue;
        const g = st.slice(st.lastIndexOf(')') + 2).split(' ');
        postgres += (Number(g[11]) + Number(g[12])) * tick;
      } catch {
        // gone
      }
    }
    return { main, machine, postgres };
  } catch {
    return null;
  }
}
/** "CPU per op: service x ms, machine y ms" between two cpuTimes() readings */
export function cpuPer(before, after, ops) {
  if (!before || !after) return '';
  const per = (k) => ((after[k] - before[k]) / ops.n).toFixed(2);
  return `; CPU per ${ops.label}: service thread ${per('main')} ms, PostgreSQL ${per('postgres')} ms, machine ${per('machine')} ms`;
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
