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

type Counter = { inc(): void };
type Observer = { observe(v: number): void };

/** Counts, per interval, what the fast path served; metrics are updated per request (pre-bound label sets). */
export class FastPathStats {
  served = 0;
  private window: Record<string, number> = {};
  private readonly counters = new Map<string, { requests: Counter; duration: Observer }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics | undefined,
  ) {
    this.timer = setInterval(() => this.flush(), FAST_PATH_LOG_INTERVAL_MS);
    this.timer.unref();
  }

  record(method: string, route: string, status: number, seconds: number): void {
    this.served++;
    const k = `${method} ${route} ${status}`;
    this.window[k] = (this.window[k] ?? 0) + 1;
    if (!this.metrics) return;
    let c = this.counters.get(k);
    if (!c) {
      const labels = { method, route, status: String(status) };
      c = {
        requests: this.metrics.httpRequests.labels(labels),
        duration: this.metrics.httpDuration.labels(labels),
      };
      this.counters.set(k, c);
    }
    c.requests.inc();
    c.duration.observe(seconds);
  }

  flush(): void {
    const counts = this.window;
    if (Object.keys(counts).length === 0) return;
    this.window = {};
    this.logger.info(
      { fastPath: counts, intervalMs: FAST_PATH_LOG_INTERVAL_MS },
      'fast-path requests',
    );
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
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
    const start = process.hrtime.bigint();
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
    res.setHeader(
      'X-Request-Id',
      typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID(),
    );
    const status = h.responder.write(req, res, representation, now);
    stats.record(method, route.route, status, Number(process.hrtime.bigint() - start) / 1e9);
    return true;
  };
}
