import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_CATEGORY_CODES } from '@hub/contracts';
import { createRequestIds } from '@hub/service-kit';
import { feedPath } from '../domain/read-feed';
import type { FeedKey } from '../store/item-types';
import { findToken, plainBearerToken } from './auth';
import type { HttpContext } from './context';
import type { FastPathStats, RouteCounter } from './fast-path-stats';
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
  context: HttpContext,
  stats: FastPathStats,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { domain, auth, negotiator, responder } = context;
  const paths = new Map<string, { feed: FeedKey; counter: RouteCounter }>([
    [feedPath('all'), { feed: 'all', counter: stats.counter(ROUTES.contents) }],
    ...FEED_CATEGORY_CODES.map(
      (c) => [feedPath(c), { feed: c, counter: stats.counter(ROUTES.category) }] as const,
    ),
  ]);
  const ids = createRequestIds();
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
    const now = domain.clock();
    if (auth.cached(token, now) === undefined && auth.tryVerify(token) === undefined) return false;
    const accept = negotiator.accept(headers.accept);
    if (accept.kind !== 'ok') return false;
    const representation = domain.cache.peek(route.feed, accept.format, now);
    if (representation === undefined) return false;

    const id = ids.for(headers['x-request-id']);
    const status = responder.write(req, res, representation, now, id);
    route.counter.count(method, status);
    return true;
  };
}
