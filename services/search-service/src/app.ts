import express from 'express';
import type pg from 'pg';
import { createLogger, createMetrics, operationsRouter, requestContext, type Logger, type Metrics } from '@hub/service-kit';
import type { SearchConfig } from './config';
import { errorHandler, notFoundHandler } from './http/errors';

export interface SearchDeps {
  config: SearchConfig;
  pool: pg.Pool;
  logger?: Logger;
  metrics?: Metrics;
}

/** Builds the search-service Express app; no listening, no process concerns (see main.ts). */
export function createApp(deps: SearchDeps): express.Express {
  const logger = deps.logger ?? createLogger('search-service', 'silent');
  const metrics = deps.metrics ?? createMetrics('search-service');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger, metrics));
  app.use(operationsRouter({ database: () => deps.pool.query('SELECT 1'), metrics }));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
