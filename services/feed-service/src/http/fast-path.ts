import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_CATEGORY_CODES } from '@hub/contracts';
import { feedPath } from '../domain/read-feed';
import type { FeedKey } from '../store/items';
import { findToken, plainBearerToken } from './auth';
import type { HttpContext } from './context';
import type { FastPathStats, RouteCounter } from './fast-path-stats';
import { RequestIds } from './request-id';
import { ROUTES } from './routes';

/**
 * Raw node:http handling of a cached feed read, skipping Express's per-request cost.
 * It answers only when every step is a plain success: GET/HEAD of one of the two read
 * paths, a valid token (remembered, or verified here with the key built at start), a
 * usable Accept (memoised), and a cached rendering. Anything else returns false and
 * Express handles the request (which then applies the same steps in the same order,
 * answers every error, and fills the caches). Per request it allocates nothing but the
 * request id.
 */
export function createFastPath(
  h: HttpContext,
  stats: FastPathStats,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const paths = new Map<string, { feed: FeedKey; counter: RouteCounter }>([
    [feedPath('all'), { feed: 'all', counter: stats.counter(ROUTES.contents) }],
    ...FEED_CATEGORY_CODES.map(
      (c) => [feedPath(c), { feed: c, counter: stats.counter(ROUTES.category) }] as const,
    ),
  ]);
  const ids = new RequestIds();
  return (req, res) => {
    const method = req.method!;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url!;
    const q = url.indexOf('?');
    const route = paths.get(q < 0 ? url : url.slice(0, q));
    if (route === undefined) return false;
    const headers = req.headers;
    const query = q < 0 ? undefined : url.slice(q + 1);
    let token = plainBearerToken(headers, query);
    if (token === undefined) {
      const found = findToken(headers, method, query);
      if (found.kind !== 'token') return false;
      token = found.token;
    }
    const now = h.domain.clock();
    if (h.auth.cached(token, now) === undefined && h.auth.tryVerify(token) === undefined)
      return false;
    const accept = h.negotiator.accept(headers.accept);
    if (accept.kind !== 'ok') return false;
    const representation = h.domain.cache.peek(route.feed, accept.format, now);
    if (representation === undefined) return false;

    const id = ids.for(headers['x-request-id']);
    const status = h.responder.write(req, res, representation, now, id);
    stats.served++;
    route.counter.count(method, status);
    return true;
  };
}
