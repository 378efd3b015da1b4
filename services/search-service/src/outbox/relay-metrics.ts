import type pg from 'pg';
import type { Metrics } from '@hub/service-kit';
import { countDeadLetters } from './dead-letters';

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
  const { client, registry } = metrics;
  const existing = (name: string) => registry.getSingleMetric(name);
  const pendingGauge =
    existing('search_outbox_pending') ??
    new client.Gauge({
      name: 'search_outbox_pending',
      help: 'Search outbox rows not yet applied to the index',
      registers: [registry],
      async collect() {
        const r = await pool.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM search_outbox WHERE done_at IS NULL`,
        );
        this.set(Number(r.rows[0]!.n));
      },
    });
  const lagGauge =
    existing('search_outbox_lag_seconds') ??
    new client.Gauge({
      name: 'search_outbox_lag_seconds',
      help: 'Age of the oldest search outbox row not yet applied (0 when none)',
      registers: [registry],
      async collect() {
        const r = await pool.query<{ age: number | null }>(
          `SELECT extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
             FROM (SELECT created_at FROM search_outbox WHERE done_at IS NULL ORDER BY id LIMIT 1) o`,
        );
        this.set(r.rows[0]?.age ?? 0);
      },
    });
  const applied = (existing('search_outbox_applied_total') ??
    new client.Counter({
      name: 'search_outbox_applied_total',
      help: 'Search outbox rows settled (sent to the index, or superseded)',
      registers: [registry],
    })) as InstanceType<typeof client.Counter>;
  const failures = (existing('search_outbox_failures_total') ??
    new client.Counter({
      name: 'search_outbox_failures_total',
      help: 'Failed index writes of the search outbox relay, by kind',
      labelNames: ['kind'],
      registers: [registry],
    })) as InstanceType<typeof client.Counter<'kind'>>;
  const visibility = (existing('search_outbox_visibility_seconds') ??
    new client.Histogram({
      name: 'search_outbox_visibility_seconds',
      help: 'From the write transaction to the index confirming the change',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    })) as InstanceType<typeof client.Histogram>;
  const deadGauge =
    existing('search_outbox_dead_letters') ??
    new client.Gauge({
      name: 'search_outbox_dead_letters',
      help: 'Search outbox changes that Meilisearch rejected too often (see /admin/dead-letters)',
      registers: [registry],
      async collect() {
        this.set(await countDeadLetters(pool));
      },
    });
  const deadLettered = (existing('search_outbox_dead_lettered_total') ??
    new client.Counter({
      name: 'search_outbox_dead_lettered_total',
      help: 'Search outbox changes moved to the dead letters',
      registers: [registry],
    })) as InstanceType<typeof client.Counter>;
  void pendingGauge;
  void lagGauge;
  void deadGauge;
  return { applied, failures, visibility, deadLettered };
}
