import type pg from 'pg';
import { counterOf, gaugeOf, histogramOf, type Metrics } from '@hub/service-kit';
import { foldLag } from './fold-store';
import type { SupervisionObserver } from './folder-supervisor';

/** What the folder reports (to /metrics, directly or from its worker thread). */
export interface FolderObserver {
  /** a fold committed a new segment of the collection */
  folded(documents: number, seconds: number, collectionId: string): void;
  /** a merge committed a new segment of the collection in place of several */
  merged(seconds: number, collectionId: string): void;
}

/**
 * The folder's Prometheus metrics: what it reports (batch sizes, durations), what its
 * supervisor reports (running, restarts), and the fold lag, read from Postgres at scrape time
 * so that it keeps growing while no folder runs (a dead folder reports nothing).
 */
export function folderMetrics(
  metrics: Metrics | undefined,
  pool: pg.Pool,
): (FolderObserver & SupervisionObserver) | undefined {
  if (!metrics) return undefined;
  let lag = { documents: 0, seconds: 0 };
  /** one query per scrape for both lag gauges; the last value stays when Postgres fails */
  let reading: Promise<void> | null = null;
  const readLag = () =>
    (reading ??= foldLag(pool)
      .then((l) => void (lag = l))
      .catch(() => {})
      .finally(() => (reading = null)));
  for (const [name, help, key] of [
    [
      'search_fold_lag_documents',
      'Committed documents not yet folded into the bitmap index (searched as the pending tail)',
      'documents',
    ],
    [
      'search_fold_lag_seconds',
      'Age of the oldest committed document not yet folded (0: none), across collections',
      'seconds',
    ],
  ] as const) {
    gaugeOf(metrics, {
      name,
      help,
      async collect() {
        await readLag();
        this.set(lag[key]);
      },
    });
  }
  const running = gaugeOf(metrics, {
    name: 'search_folder_running',
    help: "1 while this instance's folder runs; 0 while it is restarted after dying, or is off",
  });
  const restarts = counterOf(metrics, {
    name: 'search_folder_restarts_total',
    help: 'Times this instance restarted its folder after it died',
  });
  const batch = histogramOf(metrics, {
    name: 'search_fold_batch_documents',
    help: 'Documents folded into one segment',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2000],
  });
  const duration = histogramOf<'step'>(metrics, {
    name: 'search_fold_duration_seconds',
    help: 'Duration of one fold or merge transaction of the bitmap index',
    labelNames: ['step'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  return {
    folded: (n, seconds) => {
      batch.observe(n);
      duration.observe({ step: 'fold' }, seconds);
    },
    merged: (seconds) => duration.observe({ step: 'merge' }, seconds),
    running: (up) => running.set(up ? 1 : 0),
    restarted: () => restarts.inc(),
  };
}
