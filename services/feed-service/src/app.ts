import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import type pg from 'pg';
import {
  createLogger,
  createMetrics,
  docsRouter,
  operationsRouter,
  requestContext,
  type Logger,
  type Metrics,
} from '@hub/service-kit';
import { FeedCache } from './cache/feed-cache';
import { createInvalidationListener, type InvalidationListener } from './cache/invalidation';
import type { FeedConfig } from './config';
import type { FeedContext } from './domain/context';
import { Authenticator } from './http/auth';
import type { HttpContext } from './http/context';
import { errorHandler, notFoundHandler } from './http/errors';
import { createFastPath } from './http/fast-path';
import { FastPathStats } from './http/fast-path-stats';
import { FeedResponder } from './http/feed-response';
import { Negotiator } from './http/negotiation';
import { feedRoutes } from './http/routes';
import { ItemsRepository } from './store/items';
import { HubPinger } from './websub/hub-pinger';
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

  const cache = new FeedCache(clock);
  const websub = new HubPinger(
    config.websubHubs,
    { ...DEFAULT_PING_POLICY, ...deps.websub },
    logger,
    metrics,
  );
  const domain: FeedContext = {
    config,
    items: new ItemsRepository(pool),
    cache,
    hubs: websub,
    clock,
  };
  const negotiator = new Negotiator(config.vendor);
  const h: HttpContext = {
    domain,
    auth: new Authenticator(config.jwt, clock),
    negotiator,
    responder: new FeedResponder(negotiator, config.cacheMaxAge),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.set('case sensitive routing', true);
  app.use(requestContext(logger, metrics));
  app.use(operationsRouter({ database: () => pool.query('SELECT 1'), metrics }));
  const openapi = readOpenApi();
  if (openapi) {
    app.get('/openapi.json', (_req, res) => {
      res.writeHead(200, {
        'Content-Type': 'application/json;charset=utf-8',
        'Content-Length': String(openapi.length),
      });
      res.end(openapi);
    });
  }
  app.use(docsRouter({ title: 'feed-service' }));
  app.use(feedRoutes(h));
  app.use(notFoundHandler);
  app.use(errorHandler(logger, negotiator));

  const listener =
    deps.cache === false
      ? undefined
      : createInvalidationListener(config.databaseUrl, cache, logger);
  const ready = listener ? listener.start() : Promise.resolve();
  const stats = new FastPathStats(logger, metrics);
  const fast = deps.fastPath === false ? undefined : createFastPath(h, stats);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (fast?.(req, res)) return;
    app(req, res);
  };
  return Object.assign(handler, {
    express: app,
    context: h,
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

/** openapi/openapi.json next to src/ and dist/, served as is (no token) when present. */
function readOpenApi(): Buffer | undefined {
  try {
    return fs.readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'));
  } catch {
    return undefined;
  }
}
