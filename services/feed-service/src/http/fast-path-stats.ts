import type { Logger, Metrics } from '@hub/service-kit';

/** Fast-path requests are logged as one summary line per interval, not one line each. */
export const FAST_PATH_LOG_INTERVAL_MS = 10_000;

const METHODS = ['GET', 'HEAD'] as const;
const STATUSES = [200, 304] as const;

/** The counters of one route: one plain integer per method × status. */
export class RouteCounter {
  /** [GET 200, GET 304, HEAD 200, HEAD 304] */
  readonly counts = [0, 0, 0, 0];
  constructor(readonly route: string) {}

  count(method: string, status: number): void {
    this.counts[(method === 'HEAD' ? 2 : 0) + (status === 304 ? 1 : 0)]!++;
  }
}

/**
 * What the fast path served, counted in plain integers per route (no per-request logging,
 * label hashing or string building): added to http_requests_total every second, logged as
 * one summary line every FAST_PATH_LOG_INTERVAL_MS. Fast-path requests are not in the
 * latency histogram.
 */
export class FastPathStats {
  private readonly routes = new Map<string, RouteCounter>();
  private window: Record<string, number> = {};
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics | undefined,
  ) {
    this.timers = [
      setInterval(() => this.flushMetrics(), 1000),
      setInterval(() => this.flushLog(), FAST_PATH_LOG_INTERVAL_MS),
    ];
    for (const t of this.timers) t.unref();
  }

  /** The counter of a route (one per route, made once). */
  counter(route: string): RouteCounter {
    let c = this.routes.get(route);
    if (!c) this.routes.set(route, (c = new RouteCounter(route)));
    return c;
  }

  /** Requests served by the fast path, counted or not yet. */
  served = 0;

  /** Moves the counts into the Prometheus counter and the log window. */
  flushMetrics(): void {
    for (const c of this.routes.values()) {
      c.counts.forEach((n, slot) => {
        if (n === 0) return;
        c.counts[slot] = 0;
        const method = METHODS[slot >> 1]!;
        const status = String(STATUSES[slot & 1]);
        this.metrics?.httpRequests.inc({ method, route: c.route, status }, n);
        const k = `${method} ${c.route} ${status}`;
        this.window[k] = (this.window[k] ?? 0) + n;
      });
    }
  }

  flushLog(): void {
    this.flushMetrics();
    const counts = this.window;
    if (Object.keys(counts).length === 0) return;
    this.window = {};
    this.logger.info(
      { fastPath: counts, intervalMs: FAST_PATH_LOG_INTERVAL_MS },
      'fast-path requests',
    );
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.flushLog();
  }
}
