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
export interface FastPathStats {
  /** The counter of a route (one per route, made once). */
  counter(route: string): RouteCounter;
  /** Requests served by the fast path, counted or not yet. */
  readonly served: number;
  /** Moves the counts into the Prometheus counter and the log window. */
  flushMetrics(): void;
  flushLog(): void;
  stop(): void;
}

export function createFastPathStats(logger: Logger, metrics: Metrics | undefined): FastPathStats {
  const routes = new Map<string, RouteCounter>();
  let window: Record<string, number> = {};
  /** requests already moved out of the route counters */
  let flushed = 0;

  function counter(route: string): RouteCounter {
    let c = routes.get(route);
    if (!c) routes.set(route, (c = new RouteCounter(route)));
    return c;
  }

  function flushMetrics(): void {
    for (const c of routes.values()) {
      c.counts.forEach((n, slot) => {
        if (n === 0) return;
        c.counts[slot] = 0;
        flushed += n;
        const method = METHODS[slot >> 1]!;
        const status = String(STATUSES[slot & 1]);
        metrics?.httpRequests.inc({ method, route: c.route, status }, n);
        const k = `${method} ${c.route} ${status}`;
        window[k] = (window[k] ?? 0) + n;
      });
    }
  }

  function flushLog(): void {
    flushMetrics();
    const counts = window;
    if (Object.keys(counts).length === 0) return;
    window = {};
    logger.info({ fastPath: counts, intervalMs: FAST_PATH_LOG_INTERVAL_MS }, 'fast-path requests');
  }

  const timers = [
    setInterval(flushMetrics, 1000),
    setInterval(flushLog, FAST_PATH_LOG_INTERVAL_MS),
  ];
  for (const t of timers) t.unref();

  return {
    counter,
    /** every request the fast path served is counted in exactly one slot of a route counter */
    get served() {
      let pending = 0;
      for (const c of routes.values()) for (const n of c.counts) pending += n;
      return flushed + pending;
    },
    flushMetrics,
    flushLog,
    stop() {
      for (const t of timers) clearInterval(t);
      flushLog();
    },
  };
}
