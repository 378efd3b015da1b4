import client from 'prom-client';
import type { Metrics } from './metrics';

/**
 * Metrics registered once per registry: a second component on the same registry (two relays,
 * two apps in one test process) gets the metric the first one made instead of an error.
 */
export function counterOf<L extends string = string>(
  metrics: Metrics,
  config: Omit<client.CounterConfiguration<L>, 'registers'>,
): client.Counter<L> {
  return (metrics.registry.getSingleMetric(config.name) ??
    new client.Counter<L>({ ...config, registers: [metrics.registry] })) as client.Counter<L>;
}

export function gaugeOf<L extends string = string>(
  metrics: Metrics,
  config: Omit<client.GaugeConfiguration<L>, 'registers'>,
): client.Gauge<L> {
  return (metrics.registry.getSingleMetric(config.name) ??
    new client.Gauge<L>({ ...config, registers: [metrics.registry] })) as client.Gauge<L>;
}

export function histogramOf<L extends string = string>(
  metrics: Metrics,
  config: Omit<client.HistogramConfiguration<L>, 'registers'>,
): client.Histogram<L> {
  return (metrics.registry.getSingleMetric(config.name) ??
    new client.Histogram<L>({ ...config, registers: [metrics.registry] })) as client.Histogram<L>;
}
