import type { Metrics } from '@hub/service-kit';

/** A counter with labels, as far as the pinger uses it. */
export interface LabelledCounter {
  inc(labels: Record<string, string>): void;
}

export interface PingMetrics {
  /** pings (one hub, one feed URL) by `hub` and `result`: delivered, failed, abandoned */
  pings: LabelledCounter;
  /** attempts that failed, retried or not, by `hub` */
  attemptFailures: LabelledCounter;
}

/** The WebSub counters in the app's registry (made once per registry). */
export function pingMetrics(metrics: Metrics): PingMetrics {
  return {
    pings: counter(
      metrics,
      'websub_pings_total',
      'WebSub publish pings by hub and result (delivered, failed, abandoned at shutdown)',
      ['hub', 'result'],
    ),
    attemptFailures: counter(
      metrics,
      'websub_ping_attempt_failures_total',
      'WebSub publish ping attempts that failed (retried or not), by hub',
      ['hub'],
    ),
  };
}

function counter(
  { registry, client }: Metrics,
  name: string,
  help: string,
  labelNames: string[],
): LabelledCounter {
  const existing = registry.getSingleMetric(name) as LabelledCounter | undefined;
  return existing ?? new client.Counter({ name, help, labelNames, registers: [registry] });
}
