import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_CATEGORY_CODES } from '@hub/contracts';
import type { Logger, Metrics } from '@hub/service-kit';
import { feedPath } from '../domain/read-feed';
import type { FeedKey } from '../store/items';
import { findToken } from './auth';
import type { HttpContext } from './context';
import { ROUTES } from './routes';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Fast-path requests are logged as one summary line per interval, not one line each. */
export const FAST_PATH_LOG_INTERVAL_MS = 10_000;

const PATHS = new Map<string, { feed: FeedKey; route: string }>([
  [feedPath('all'), { feed: 'all', route: ROUTES.contents }],
  ...FEED_CATEGORY_CODES.map((c) => [feedPath(c), { feed: c, route: ROUTES.category }] as const),
]);

/**
 * What the fast path served, counted in plain integers (no per-request logging or metric
 * label hashing): added to http_requests_total every second, logged as one summary line
 * every FAST_PATH_LOG_INTERVAL_MS. Fast-path requests are not in the latency histogram.
 */
export class FastPathStats {
  served = 0;
  private pending = new Map<string, number>();
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

  record(method: string, route: string, status: number): void {
    this.served++;
    const k = `${method} ${route} ${status}`;
    this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
  }

  /** Moves the counts into the Prometheus counter and the log window. */
  flushMetrics(): void {
    if (this.pending.size === 0) return;
    const counts = this.pending;
    this.pending = new Map();
    for (const [k, n] of counts) {
      const [method, route, status] = k.split(' ') as [string, string, string];
      this.metrics?.httpRequests.inc({ method, route, status }, n);
      this.window[k] = (this.window[k] ?? 0) + n;
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

/**
 * Raw node:http handling of a cached feed read, skipping Express's per-request cost.
 * It answers only when every step is a plain success from memory: GET/HEAD of one of the
 * two read paths, a token already verified and unexpired, a usable Accept (memoised),
 * and a cached rendering. Anything else returns false and Express handles the request
 * (which then applies the same steps in the same order, and fills the caches).
 */
export function createFastPath(
  h: HttpContext,
  stats: FastPathStats,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const method = req.method!;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url!;
    const q = url.indexOf('?');
    const route = PATHS.get(q < 0 ? url : url.slice(0, q));
    if (route === undefined) return false;
    const found = findToken(req.headers, method, q < 0 ? undefined : url.slice(q + 1));
    if (found.kind !== 'token') return false;
    const now = h.domain.clock();
    if (h.auth.cached(found.token, now) === undefined) return false;
    const accept = h.negotiator.accept(req.headers.accept);
    if (accept.kind !== 'ok') return false;
    const representation = h.domain.cache.peek(route.feed, accept.format, now);
    if (representation === undefined) return false;

    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    const status = h.responder.write(req, res, representation, now, id);
    stats.record(method, route.route, status);
    return true;
  };
}
