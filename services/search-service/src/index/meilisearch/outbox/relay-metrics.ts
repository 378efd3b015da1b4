import type pg from 'pg';
import { counterOf, gaugeOf, histogramOf, type Logger, type Metrics } from '@hub/service-kit';
import { countDeadLetters } from './dead-letters';
import type { Recorded } from './record-outcomes';

/**
 * The relay's Prometheus metrics, registered once per registry (a second relay on the same
 * registry reuses them): pending rows and lag (read at scrape time), settled rows, failures by
 * kind, visibility latency, dead letters (read at scrape time) and rows dead-lettered.
 */
export interface RelayMetrics {
  applied: { inc(value?: number): void };
  failures: { inc(labels: { kind: string }): void };
  visibility: { observe(value: number): void };
  deadLettered: { inc(value?: number): void };
}

export function relayMetrics(metrics: Metrics | undefined, pool: pg.Pool): RelayMetrics | null {
  if (!metrics) return null;
  const readAtScrape = (name: string, help: string, read: () => Promise<number>) =>
    gaugeOf(metrics, {
      name,
      help,
      async collect() {
        this.set(await read());
      },
    });
  readAtScrape(
    'search_outbox_pending',
    'Search outbox rows not yet applied to the index',
    async () => {
      const r = await pool.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM search_outbox WHERE done_at IS NULL`,
      );
      return Number(r.rows[0]!.n);
    },
  );
  readAtScrape(
    'search_outbox_lag_seconds',
    'Age of the oldest search outbox row not yet applied (0 when none)',
    async () => {
      const r = await pool.query<{ age: number | null }>(
        `SELECT extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
           FROM (SELECT created_at FROM search_outbox WHERE done_at IS NULL ORDER BY id LIMIT 1) o`,
      );
      return r.rows[0]?.age ?? 0;
    },
  );
  readAtScrape(
    'search_outbox_dead_letters',
    'Search outbox changes that Meilisearch rejected too often (see /admin/dead-letters)',
    () => countDeadLetters(pool),
  );
  return {
    applied: counterOf(metrics, {
      name: 'search_outbox_applied_total',
      help: 'Search outbox rows settled (sent to the index, or superseded)',
    }),
    failures: counterOf(metrics, {
      name: 'search_outbox_failures_total',
      help: 'Failed index writes of the search outbox relay, by kind',
      labelNames: ['kind'],
    }),
    visibility: histogramOf(metrics, {
      name: 'search_outbox_visibility_seconds',
      help: 'From the write transaction to the index confirming the change',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    }),
    deadLettered: counterOf(metrics, {
      name: 'search_outbox_dead_lettered_total',
      help: 'Search outbox changes moved to the dead letters',
    }),
  };
}

/** What a batch's recording tells operators: metrics, and a log line per failure. */
export function reportRecorded(
  recorded: Recorded,
  metrics: RelayMetrics | null,
  logger: Pick<Logger, 'warn' | 'error'>,
): void {
  if (metrics) {
    metrics.applied.inc(recorded.done);
    for (const s of recorded.visibility) metrics.visibility.observe(s);
    metrics.deadLettered.inc(recorded.deadLettered);
  }
  for (const f of recorded.failures) {
    metrics?.failures.inc({ kind: f.kind });
    const attempts = Math.max(...f.rows.map((r) => r.attempts + 1));
    logger[attempts > 3 ? 'error' : 'warn'](
      { err: f.error, kind: f.kind, rows: f.rows.length, attempts },
      'search index write failed; will retry',
    );
  }
  if (recorded.deadLettered > 0)
    logger.error(
      { changes: recorded.deadLettered },
      'search index rejected changes too often; moved to the dead letters',
    );
}
