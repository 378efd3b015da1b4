import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import type pg from 'pg';
import {
  createLogger,
  createMetrics,
  docsRouter,
  openApiRouter,
  operationsRouter,
  readOpenApiFile,
  requestContext,
  serviceAddress,
  type Logger,
  type Metrics,
} from '@hub/service-kit';
import { createFeedCache } from './cache/feed-cache';
import { createInvalidationListener, type InvalidationListener } from './cache/invalidation';
import type { FeedConfig } from './config';
import type { FeedContext } from './domain/context';
import { createAuthenticator } from './http/auth';
import type { HttpContext } from './http/context';
import { errorHandler, notFoundHandler } from './http/errors';
import { createFastPath } from './http/fast-path';
import { createFastPathStats, type FastPathStats } from './http/fast-path-stats';
import { createFeedResponder } from './http/feed-response';
import { createNegotiator } from './http/negotiation';
import { feedRoutes } from './http/routes';
import { createItemsRepository } from './store/items';
import { createHubPinger, type HubPinger } from './websub/hub-pinger';
import { DEFAULT_PING_POLICY, type PingPolicy } from './websub/ping-policy';

export interface FeedDeps {
  config: FeedConfig;
  pool: pg.Pool;
  logger?: Logger;
  metrics?: Metrics;
  /** milliseconds since the epoch; tests pin it */
  clock?: () => number;
  /** serve cached reads from raw node:http in front of Express (default true) */
  fastPath?: boolean;
  /** cache rendered feeds, kept valid by LISTEN/NOTIFY on a dedicated connection (default true) */
  cache?: boolean;
  /** how WebSub pings are retried (tests shorten it; default DEFAULT_PING_POLICY) */
  websub?: Partial<PingPolicy>;
}

/** A request listener (what http.createServer and supertest take) with its parts and a close(). */
export type FeedApp = ((req: IncomingMessage, res: ServerResponse) => void) & {
  express: express.Express;
  context: HttpContext;
  fastPathStats: FastPathStats;
  /** the LISTEN/NOTIFY connection keeping the cache valid (absent when caching is off) */
  listener?: InvalidationListener;
  /** resolves once the rendered-feed cache is live (immediately when caching is off) */
  ready: Promise<void>;
  /** pings the WebSub hubs after each write (does nothing without FEED_WEBSUB_HUBS) */
  websub: HubPinger;
  /** stops the invalidation listener, timers and WebSub pings (the pool belongs to the caller) */
  close(): Promise<void>;
};

/** Builds the feed-service; no listening, no process concerns (see main.ts). */
export function createApp(deps: FeedDeps): FeedApp {
  const { config, pool } = deps;
  const logger = deps.logger ?? createLogger('feed-service', 'silent');
  const metrics = deps.metrics ?? createMetrics('feed-service');
  const clock = deps.clock ?? Date.now;

  const cache = createFeedCache(clock);
  const websub = createHubPinger(
    config.websubHubs,
    { ...DEFAULT_PING_POLICY, ...deps.websub },
    logger,
    metrics,
  );
  const domain: FeedContext = {
    config,
    items: createItemsRepository(pool),
    cache,
    hubs: websub,
    clock,
  };
  const negotiator = createNegotiator(config.vendor);
  const httpContext: HttpContext = {
    domain,
    auth: createAuthenticator(config.jwt, clock),
    negotiator,
    responder: createFeedResponder(negotiator, config.cacheMaxAge),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.set('case sensitive routing', true);
  app.use(requestContext(logger, metrics));
  app.use(operationsRouter({ database: () => pool.query('SELECT 1'), metrics }));
  // served (no token) when the package has one, its servers naming where the service is reached
  app.use(
    openApiRouter(readOpenApiFile(path.join(__dirname, '..')), {
      server: serviceAddress({ baseUrl: config.baseUrl, given: config.baseUrlGiven }),
    }),
  );
  app.use(docsRouter({ title: 'feed-service' }));
  app.use(feedRoutes(httpContext));
  app.use(notFoundHandler);
  app.use(errorHandler(logger, negotiator));

  const listener =
    deps.cache === false
      ? undefined
      : createInvalidationListener(config.databaseUrl, cache, logger);
  const ready = listener ? listener.start() : Promise.resolve();
  const stats = createFastPathStats(logger, metrics);
  const fast = deps.fastPath === false ? undefined : createFastPath(httpContext, stats);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (fast?.(req, res)) return;
    app(req, res);
  };
  return Object.assign(handler, {
    express: app,
    context: httpContext,
    fastPathStats: stats,
    listener,
    ready,
    websub,
    async close() {
      stats.stop();
      await Promise.all([listener?.close(), websub.close()]);
    },
  });
}
