function formatDuration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** `reindex: queued 1500/6000 (25 %), 500/s, ETA 9 s` */
export function formatProgress(
  verb: string,
  done: number,
  total: number,
  elapsedMs: number,
): string {
  const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
  const perSecond = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const rate = perSecond < 10 ? perSecond.toFixed(1) : String(Math.round(perSecond));
  const eta =
    done >= total ? '0 s' : perSecond > 0 ? formatDuration((total - done) / perSecond) : 'unknown';
  return `reindex: ${verb} ${done}/${total} (${percent} %), ${rate}/s, ETA ${eta}`;
}

/** Reports done of total (e.g. to a progress line). */
export type ProgressReport = (done: number, total: number) => void;

/** Prints progress lines at most every intervalMs (and always the last one, done = total). */
export function progressReporter(
  verb: string,
  print: (line: string) => void,
  intervalMs: number,
  now: () => number,
): ProgressReport {
  const started = now();
  let lastPrinted = -Infinity;
  let last = '';
  return (done, total) => {
    const t = now();
    const key = `${done}/${total}`;
    if (key === last || (t - lastPrinted < intervalMs && done < total)) return;
    last = key;
    lastPrinted = t;
    print(formatProgress(verb, done, total, t - started));
  };
}
