import { gaugeOf, histogramOf, type Metrics } from '@hub/service-kit';

/** What the folder reports (to /metrics, directly or from its worker thread). */
export interface FolderObserver {
  lag(pendingDocuments: number): void;
  folded(documents: number, seconds: number): void;
  merged(seconds: number): void;
}

/** A FolderObserver that records into the service's Prometheus metrics. */
export function folderMetrics(metrics: Metrics | undefined): FolderObserver | undefined {
  if (!metrics) return undefined;
  const lag = gaugeOf(metrics, {
    name: 'search_fold_lag_documents',
    help: 'Committed documents not yet folded into the bitmap index (searched as the pending tail)',
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
    lag: (n) => lag.set(n),
    folded: (n, seconds) => {
      batch.observe(n);
      duration.observe({ step: 'fold' }, seconds);
    },
    merged: (seconds) => duration.observe({ step: 'merge' }, seconds),
  };
}
