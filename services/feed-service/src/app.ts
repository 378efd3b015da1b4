import express from 'express';
import type pg from 'pg';
import { createLogger, createMetrics, operationsRouter, requestContext, type Logger, type Metrics } from '@hub/service-kit';
import type { FeedConfig } from './config';
import { errorHandler, notFoundHandler } from './http/errors';

export interface FeedDeps {
  config: FeedConfig;
  pool: pg.Pool;
  logger?: Logger;
  metrics?: Metrics;
}

/** Builds the feed-service Express app; no listening, no process concerns (see main.ts). */
export function createApp(deps: FeedDeps): express.Express {
  const logger = deps.logger ?? createLogger('feed-service', 'silent');
  const metrics = deps.metrics ?? createMetrics('feed-service');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger, metrics));
  app.use(operationsRouter({ database: () => deps.pool.query('SELECT 1'), metrics }));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
