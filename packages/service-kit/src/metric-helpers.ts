import client from 'prom-client';
import type { Metrics } from './metrics';

type MetricClass<M, C> = new (config: C) => M;

/**
 * A metric registered once per registry: a second component on the same registry (two relays,
 * two apps in one test process) gets the metric the first one made instead of an error.
 */
function metricOf<M, C extends { name: string }>(
  kind: MetricClass<M, C & { registers: client.Registry[] }>,
  metrics: Metrics,
  config: C,
): M {
  return (metrics.registry.getSingleMetric(config.name) ??
    new kind({ ...config, registers: [metrics.registry] })) as M;
}

export const counterOf = <L extends string = string>(
  metrics: Metrics,
  config: Omit<client.CounterConfiguration<L>, 'registers'>,
): client.Counter<L> => metricOf(client.Counter<L>, metrics, config);

export const gaugeOf = <L extends string = string>(
  metrics: Metrics,
  config: Omit<client.GaugeConfiguration<L>, 'registers'>,
): client.Gauge<L> => metricOf(client.Gauge<L>, metrics, config);

export const histogramOf = <L extends string = string>(
  metrics: Metrics,
  config: Omit<client.HistogramConfiguration<L>, 'registers'>,
): client.Histogram<L> => metricOf(client.Histogram<L>, metrics, config);
