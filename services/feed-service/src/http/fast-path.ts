import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_CATEGORY_CODES } from '@hub/contracts';
import { createRequestIds, ServiceError } from '@hub/service-kit';
import { feedPath } from '../domain/read-feed';
import type { HttpContext } from './context';
import type { FastPathStats, RouteCounter } from './fast-path-stats';
import { checkRead } from './read-checks';
import { ROUTES } from './routes';

/**
 * Raw node:http handling of a cached feed read, skipping Express's per-request cost.
 * It answers only when every step is a plain success: GET/HEAD of one of the read paths
 * (the route, from a table of paths built at start), checkRead (the same checks, in the
 * same order, as the Express route: token, Accept, category) and a cached rendering.
 * Anything else returns false and Express handles the request: it runs checkRead again,
 * answers the error, or fills the cache. Per request it allocates nothing but the request
 * id (and, for a token or an Accept header not seen before, what verifying it costs).
 */
export function createFastPath(
  context: HttpContext,
  stats: FastPathStats,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { domain, responder } = context;
  const paths = new Map<string, { category: string | undefined; counter: RouteCounter }>([
    [feedPath('all'), { category: undefined, counter: stats.counter(ROUTES.contents) }],
    ...FEED_CATEGORY_CODES.map(
      (c) => [feedPath(c), { category: c, counter: stats.counter(ROUTES.category) }] as const,
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
    const now = domain.clock();
    const target = checkRead(
      context,
      req,
      q < 0 ? undefined : url.slice(q + 1),
      route.category,
      now,
    );
    if (target instanceof ServiceError) return false;
    const representation = domain.cache.peek(target.feed, target.format, now);
    if (representation === undefined) return false;

    const id = ids.for(req.headers['x-request-id']);
    const status = responder.write(req, res, representation, now, id);
    route.counter.count(method, status);
    return true;
  };
}
