import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import type pg from 'pg';
import {
  createLogger,
  createMetrics,
  docsRouter,
  openApiRouter,
  createRequestObserver,
  operationsRouter,
  requestContextOf,
  serviceAddress,
  type Logger,
  type Metrics,
} from '@hub/service-kit';
import { adminRouter } from './admin/admin-router';
import { mountPath, type SearchConfig } from './config';
import { createCallLimiter, type CallLimiter } from './http/call-limiter';
import { createCollectionGate, type CollectionGate } from './http/collection-gate';
import { errorHandler, notFoundHandler } from './http/errors';
import { createFastPath } from './http/fast-path';
import { indexRoutes, searchRoutes, type RouteDeps } from './http/routes';
import type { SearchIndex } from './index/search-index';
import { createCollectionDirectory, type CollectionDirectory } from './store/collections';
import { createGroupedAdds } from './store/grouped-adds';
import { noThumbnails, type ThumbnailService } from './thumbnails/thumbnail-service';

/** The OpenAPI 3.1 document of this service (openapi/openapi.json, shipped next to dist/). */
export const OPENAPI = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8'),
) as object;

export interface SearchDeps {
  config: SearchConfig;
  pool: pg.Pool;
  index: SearchIndex;
  thumbnails?: ThumbnailService;
  logger?: Logger;
  metrics?: Metrics;
  /** more routes mounted before the 404 handler, e.g. the thumbnail images at THUMBNAIL_URL's path */
  mounts?: Array<{ path: string; handler: express.RequestHandler }>;
}

/** What an app instance holds besides its routes (tests and main.ts reach them here). */
export interface AppServices {
  callLimiter: CallLimiter;
  collections: CollectionDirectory;
  /** each collection's searches running and waiting (their share of the cores) */
  gate: CollectionGate;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  /** requests the fast path answered (http/fast-path.ts; 0 with SEARCH_FAST_PATH=false) */
  fastPathRequests(): number;
  /** writes the locally counted API calls; call before the pool closes */
  close(): Promise<void>;
}

/**
 * The request handler (node:http's): the fast path's search and add (http/fast-path.ts), else
 * the Express app, which is also reachable as `express`.
 */
export type SearchApp = ((req: IncomingMessage, res: ServerResponse) => void) & {
  services: AppServices;
  express: express.Express;
};

/**
 * Builds the search-service's request handler; no listening, no process concerns (see
 * main.ts). A search or an add that the fast path takes is answered there (same operations,
 * answers, errors, logs and metrics: http/fast-path.ts); every other request goes to the
 * Express app. The Express app's order: request context → search (under the path of
 * {search_url}) → add, update, field update, delete, status (under {base_url}) → operations
 * (/healthz, /readyz, /metrics) → /openapi.json → / and /docs (docsRouter) → admin API
 * (/admin) → 404 → errors.
 *
 * The operations of the spec come first because they are nearly every request: each router a
 * request enters before its own costs a walk of that router's layers (a URL re-parsed, closures
 * and strings made), and a search used to enter four of them first. Their paths all start
 * with /v2/{cid}/, which no other route has, so the order decides nothing else.
 */
export function createApp(deps: SearchDeps): SearchApp {
  const { config, pool, index } = deps;
  const logger = deps.logger ?? createLogger('search-service', 'silent');
  const metrics = deps.metrics ?? createMetrics('search-service');
  const thumbnails = deps.thumbnails ?? noThumbnails;
  const collections = createCollectionDirectory({ pool, ttlMs: config.collectionCacheMs });
  const callLimiter = createCallLimiter({
    pool,
    windowSeconds: config.apiCallWindowSeconds,
    flushMs: config.apiCallFlushMs,
    exactMargin: config.apiCallExactMargin,
    logger,
  });
  const gate = createCollectionGate(config.maxConcurrentSearches, {
    maxWaiting: config.maxQueuedSearches,
    maxWaitMs: config.maxSearchWaitMs,
  });
  const adds = createGroupedAdds({
    db: pool,
    statementsPerCollection: config.addStatementsPerCollection,
    maxGroup: config.maxAddGroup,
  });
  const routeDeps: RouteDeps = {
    pool,
    adds,
    index,
    thumbnails,
    logger,
    collections,
    callLimiter,
    gate,
    maxBodyBytes: config.maxBodyBytes,
  };

  const observer = createRequestObserver(logger, metrics);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContextOf(observer));
  app.use(mountPath(config.searchUrl) || '/', searchRoutes(routeDeps));
  app.use(mountPath(config.baseUrl) || '/', indexRoutes(routeDeps));
  app.use(
    operationsRouter({
      database: () => pool.query('SELECT 1'),
      readiness: { search_engine: () => index.ping() },
      metrics,
    }),
  );
  app.use(
    openApiRouter(JSON.stringify(OPENAPI), {
      server: serviceAddress({ baseUrl: config.baseUrl, given: config.baseUrlGiven }),
    }),
  );
  app.use(docsRouter({ title: 'search-service' }));
  app.use(
    '/admin',
    adminRouter({
      pool,
      adminToken: config.adminToken,
      index,
      thumbnails,
      collections,
      callLimiter,
      defaults: {
        maxDocuments: config.defaultMaxDocuments,
        maxApiCalls: config.defaultMaxApiCalls,
        thumbnailSize: config.defaultThumbnailSize,
      },
      logger,
    }),
  );
  for (const { path, handler } of deps.mounts ?? []) app.use(path, handler);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  const fast = config.fastPath
    ? createFastPath(routeDeps, {
        searchMount: mountPath(config.searchUrl),
        baseMount: mountPath(config.baseUrl),
        observer,
        logger,
      })
    : undefined;
  const services: AppServices = {
    callLimiter,
    collections,
    gate,
    index,
    thumbnails,
    fastPathRequests: () => fast?.taken() ?? 0,
    close: () => callLimiter.close(),
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (fast?.(req, res)) return;
    app(req, res);
  };
  return Object.assign(handler, { services, express: app });
}
